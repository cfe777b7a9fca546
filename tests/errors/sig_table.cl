// The kernels of sig_table.xml: a table parameter that is not const (the kernel could write
// the table), one of another element type, and one that is not a pointer.
__kernel void k(__global const float* a, __global float* b, __global float* w,
                __global const int* n, const float s) {}
