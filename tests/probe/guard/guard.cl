// A Jacobi step that reads its four neighbours but skips 10 cells at each edge of its buffer (a
// guard wider than its halo, as kernels for one device are sometimes written).
#pragma OPENCL FP_CONTRACT OFF
__kernel void banded(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 10 || x >= nx - 10 || y < 10 || y >= ny - 10) return;
  const int c = x + nx * y;
  B[c] = 0.25f * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}
