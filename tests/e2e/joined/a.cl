// tests/e2e/joined_test.sh: a helper defined here and, again, in b.cl.
inline int at(int x, int y, int nx) {
  return x + nx * y;
}
__kernel void smooth(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  B[at(x, y, nx)] = 0.25f * (A[at(x - 1, y, nx)] + A[at(x + 1, y, nx)] + A[at(x, y - 1, nx)] +
                             A[at(x, y + 1, nx)]);
}
