// A float grid read through float4 pointers: one work-item per 4 cells of a row, smoothing
// along y only (as kernels for one device are written: the row length nx / 4 in float4s).
__kernel void ysmooth(__global const float4* A, __global float4* B, const int nx, const int ny) {
  const int x4 = get_global_id(0), y = get_global_id(1);
  const int w = nx / 4;
  if (x4 >= w || y >= ny) return;
  if (y < 1 || y >= ny - 1) return;
  const int c = x4 + w * y;
  B[c] = 0.5f * (A[c - w] + A[c + w]) + 0.25f * A[c];
}
