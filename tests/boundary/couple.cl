#pragma OPENCL FP_CONTRACT OFF
// Three coupled diffusions with a coefficient read across its neighbours (tests/boundary/
// mixed_*.xml, whose arrays have different <boundary> kinds along one dimension): each of U, V,
// W diffuses and relaxes towards the next, at a rate from C's 4 neighbours. Every array is read
// past the edge. Written as for one device: a cell is updated where its whole stencil lies
// inside the buffer (nx, ny: the buffer's extents).
__kernel void couple(__global const float* U, __global const float* V, __global const float* W,
                     __global const float* C, __global float* U2, __global float* V2,
                     __global float* W2, const int nx, const int ny) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  const float k = 0.02f * ((C[c - 1] + C[c + 1]) + (C[c - nx] + C[c + nx]));
  const float u = U[c], v = V[c], w = W[c];
  const float lap_u = ((U[c - 1] + U[c + 1]) + (U[c - nx] + U[c + nx])) - 4.0f * u;
  const float lap_v = ((V[c - 1] + V[c + 1]) + (V[c - nx] + V[c + nx])) - 4.0f * v;
  const float lap_w = ((W[c - 1] + W[c + 1]) + (W[c - nx] + W[c + nx])) - 4.0f * w;
  U2[c] = u + (0.1f * lap_u + k * (v - u));
  V2[c] = v + (0.1f * lap_v + k * (w - v));
  W2[c] = w + (0.1f * lap_w + k * (u - w));
}
