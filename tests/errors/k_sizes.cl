// kernel_grid_size_constants.xml: kernels given their sizes as int arguments.
__kernel void k(__global const float* a, __global float* b, const int nx, const int ny) {}
__kernel void k2(__global const float* a, __global float* b, const int nx, const int ny) {}
