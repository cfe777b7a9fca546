__kernel void k(__global float* a){}
