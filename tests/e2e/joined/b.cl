// tests/e2e/joined_test.sh: the helper of a.cl, defined again.
inline int at(int x, int y, int nx) {
  return x + nx * y;
}
__kernel void back(__global const float* B, __global float* A, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  A[at(x, y, nx)] = B[at(x, y, nx)];
}
