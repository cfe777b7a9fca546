// A kernel whose far read is taken only where the data say so: cells whose mask is 9 (a
// material code; the probe's integers are 0 and 1..7) take u from two rows up, cells whose
// h exceeds 2.5 (the probe's floating values lie in [1, 2) and (-2, -1]) from one row down.
__kernel void blend(__global const float* u, __global const int* m, __global const float* h,
                   __global float* v, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y < 2 || y >= ny - 2) return;
  const int c = x + nx * y;
  float r = 0.5f * u[c];
  if (m[c] == 9) r += 0.25f * u[c + 2 * nx];
  if (h[c] > 2.5f) r += 0.25f * u[c - nx];
  v[c] = r;
}
