#pragma OPENCL FP_CONTRACT OFF
__kernel void k0(__global const float* a, __global float* b, const int nx) {
  const int x = get_global_id(0);
  if (x >= nx) return;
  if (x < 1 || x >= nx - 1) return;
  b[x] = 0.25f * a[x - 1] + 0.5f * a[x] + 0.25f * a[x + 1];
}
