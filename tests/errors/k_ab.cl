// The kernels of the cases whose spec is valid (warnings only), so that their signatures match:
// k reads one array and writes another; k2 updates one in place.
__kernel void k(__global const float* a, __global float* b) {}
__kernel void k2(__global float* b) {}
