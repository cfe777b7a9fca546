#pragma OPENCL FP_CONTRACT OFF
// A Jacobi step indexed CUDA-style (tests/e2e/offset_blind_test.sh): the group's first item plus
// the local index, not get_global_id(), which a launch over part of the work-items offsets.
__kernel void jacobi_group(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_group_id(0) * get_local_size(0) + get_local_id(0);
  const int y = get_group_id(1) * get_local_size(1) + get_local_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  B[c] = 0.25f * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}
