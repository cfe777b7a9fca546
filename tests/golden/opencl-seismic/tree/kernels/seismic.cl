#pragma OPENCL FP_CONTRACT OFF
// 3D acoustic wave for sources and receivers (<inject>, <record>): 2nd order in time, 4th order
// in space, a 13-point stencil of radius 2 along each axis.
//   p_next = (vel^2 * DT2) * lap4(p_cur) + 2 p_cur - p_prev      (grid spacing 1)
// vel is a read-only velocity field; DT2 keeps the scheme stable (vel < 1,
// DT2 * max|lap4 eigenvalue| = 0.1 * 16 < 4).
// nx, ny, nz are the extents of the buffer the kernel is given (owned plus ghost cells). A cell
// is updated only where its whole stencil lies inside that buffer; the outer 2-cell shell (the
// fixed domain boundary) keeps the value p_next already holds.

#define RADIUS 2
#define C0 (-2.5f)          /* -5/2  */
#define C1 1.33333333f      /*  4/3  */
#define C2 (-0.0833333333f) /* -1/12 */
#define DT2 0.1f

// The fourth-order second difference along one axis (stride s), without the centre term.
float axis4(__global const float* p, const int c, const int s) {
  return C2 * (p[c + 2 * s] + p[c - 2 * s]) + C1 * (p[c + s] + p[c - s]);
}

__kernel void wave(__global const float* p_prev, __global const float* p_cur,
                   __global const float* vel, __global float* p_next, const int nx, const int ny,
                   const int nz) {
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
  lap = lap + axis4(p_cur, c, 1);
  lap = lap + axis4(p_cur, c, sy);
  lap = lap + axis4(p_cur, c, sz);
  const float v = vel[c];
  p_next[c] = v * v * DT2 * lap + 2.0f * centre - p_prev[c];
}
