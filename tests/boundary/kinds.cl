#pragma OPENCL FP_CONTRACT OFF
// A 13-point smoothing step: the 9 points around a cell (diagonals included, so the frame's
// corners are read) and the cells two away along x and y (a frame two cells wide, where mirror
// and copy differ). Written as for one device: a cell is updated where its whole stencil lies
// inside the buffer.
__kernel void smooth(__global const float* A, __global float* B, const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x < 2 || x >= nx - 2 || y < 2 || y >= ny - 2) return;
  const int c = x + nx * y;
  const float side = (A[c - 1] + A[c + 1]) + (A[c - nx] + A[c + nx]);
  const float diag = (A[c - nx - 1] + A[c - nx + 1]) + (A[c + nx - 1] + A[c + nx + 1]);
  const float far = (A[c - 2] + A[c + 2]) + (A[c - 2 * nx] + A[c + 2 * nx]);
  B[c] = ((0.4f * A[c] + 0.1f * side) + 0.025f * diag) + 0.025f * far;
}
