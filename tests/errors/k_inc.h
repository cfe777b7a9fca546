// kernel_local_include.xml: a header the kernel file includes.
#define QUARTER 0.25f
