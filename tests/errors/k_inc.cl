// kernel_local_include.xml: a kernel file that includes a file of its folder.
#include "k_inc.h"
__kernel void k(__global const float* a, __global float* b) {}
