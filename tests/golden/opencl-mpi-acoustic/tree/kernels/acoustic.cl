#pragma OPENCL FP_CONTRACT OFF
// 3D acoustic wave propagator (Shen, Ino, Farres, Hanzich, IEICE 2020, Sect. 3 and Fig. 1):
// 2nd order in time, 8th order in space, a 25-point stencil of radius 4 along each axis.
//   p_next = (vel^2 * DT2) * lap8(p_cur) + 2 p_cur - p_prev      (grid spacing 1)
// vel is a read-only velocity field; DT2 scales it so the scheme stays stable
// (vel < 1, DT2 * max|lap8 eigenvalue| = 0.0625 * 19.5 < 4).
// nx, ny, nz are the extents of the buffer the kernel is given (owned plus ghost cells). A cell
// is updated only where its whole stencil lies inside that buffer; the outer 4-cell shell (the
// fixed domain boundary) keeps the value p_next already holds.

#define RADIUS 4
#define C0 (-2.84722222f)    /* -205/72 */
#define C1 1.6f              /*  8/5    */
#define C2 (-0.2f)           /* -1/5    */
#define C3 0.0253968254f     /*  8/315  */
#define C4 (-0.00178571429f) /* -1/560  */
#define DT2 0.0625f

// The eighth-order second difference along one axis (stride s), without the centre term.
float axis8(__global const float* p, const int c, const int s) {
  return C4 * (p[c + 4 * s] + p[c - 4 * s]) + C3 * (p[c + 3 * s] + p[c - 3 * s]) +
         C2 * (p[c + 2 * s] + p[c - 2 * s]) + C1 * (p[c + s] + p[c - s]);
}

__kernel void acoustic(__global const float* p_prev, __global const float* p_cur,
                       __global const float* vel, __global float* p_next, const int nx,
                       const int ny, const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < RADIUS || x >= nx - RADIUS || y < RADIUS || y >= ny - RADIUS || z < RADIUS ||
      z >= nz - RADIUS)
    return;
  const int sy = nx;
  const int sz = nx * ny;
  const int c = x + sy * y + sz * z;
  const float centre = p_cur[c];
  float lap = (3.0f * C0) * centre;
  lap = lap + axis8(p_cur, c, 1);
  lap = lap + axis8(p_cur, c, sy);
  lap = lap + axis8(p_cur, c, sz);
  const float v = vel[c];
  p_next[c] = v * v * DT2 * lap + 2.0f * centre - p_prev[c];
}
