// A staggered 2D acoustic step (a user's): p at cell centres, vx at x + 1/2, vy at y + 1/2;
// K and rb per cell. p is periodic along x and y, vx along x only, vy along y only.
__kernel void upd_p(__global float* p, __global const float* vx, __global const float* vy,
                    __global const float* K, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || y < 1) return;
  const int c = x + nx * y;
  const float div = (vx[c] - vx[c - 1]) + (vy[c] - vy[c - nx]);
  p[c] = p[c] - 0.4f * K[c] * div;
}
__kernel void upd_v(__global const float* p, __global float* vx, __global float* vy,
                    __global const float* rb, const int nx, const int ny) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x >= nx - 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float r = 0.4f * rb[c];
  vx[c] = vx[c] - r * (p[c + 1] - p[c]);
  vy[c] = vy[c] - r * (p[c + nx] - p[c]);
}
