#pragma OPENCL FP_CONTRACT OFF
// Gray-Scott reaction-diffusion, one explicit Euler step (dt = 1):
//   U2 = U + Du * lap(U) - U*V*V + F * (1 - U)
//   V2 = V + Dv * lap(V) + U*V*V - (F + k) * V
// with the 5-point Laplacian. nx, ny are the extents of the buffer the kernel is given (owned
// plus ghost cells); a cell is updated where its whole stencil lies inside that buffer. The
// kernel is written as for one device with no boundary logic: with <boundary kind="periodic">
// the buffer holds a frame past the grid's edge, so the edge cells are computed too.

#define DU 0.16f
#define DV 0.08f
#define FEED 0.035f
#define KILL 0.065f

__kernel void grayscott(__global const float* U, __global const float* V, __global float* U2,
                        __global float* V2, const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float u = U[c];
  const float v = V[c];
  const float lap_u = ((U[c - 1] + U[c + 1]) + (U[c - nx] + U[c + nx])) - 4.0f * u;
  const float lap_v = ((V[c - 1] + V[c + 1]) + (V[c - nx] + V[c + nx])) - 4.0f * v;
  const float uvv = u * v * v;
  U2[c] = u + ((DU * lap_u - uvv) + FEED * (1.0f - u));
  V2[c] = v + ((DV * lap_v + uvv) - (FEED + KILL) * v);
}
