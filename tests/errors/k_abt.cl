// The kernel of model_unused_array.xml: reads one array, writes two.
__kernel void k(__global const float* a, __global float* b, __global float* t) {}
