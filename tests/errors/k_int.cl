// kernel_int_extent.xml: a kernel given its extent as an int.
__kernel void k(__global const uchar* a, __global uchar* b, const int n) {}
