// A 1D float grid read through float4 pointers: one work-item per 4 cells.
__kernel void scale(__global const float4* A, __global float4* B, const int n) {
  const int i = get_global_id(0);
  if (i >= n / 4) return;
  B[i] = 0.5f * A[i] + 1.0f;
}
