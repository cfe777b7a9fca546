__kernel void k(__global const float* a, __global float* b) {}
