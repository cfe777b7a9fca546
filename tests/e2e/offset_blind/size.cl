#pragma OPENCL FP_CONTRACT OFF
// A Jacobi step that takes its buffer's extents from the launch (tests/e2e/offset_blind_test.sh):
// the global size is exactly extent(X, d), and get_global_size() is read as those extents (nx and
// ny, given, go unused).
__kernel void jacobi_size(__global const float* B, __global float* A, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  const int w = get_global_size(0), h = get_global_size(1);
  if (x < 1 || x >= w - 1 || y < 1 || y >= h - 1) return;
  const int c = x + w * y;
  A[c] = 0.25f * (B[c - 1] + B[c + 1] + B[c - w] + B[c + w]);
}
