// The CUDA twin of lbm.cl: the same arithmetic in the same order.
// D2Q9 lattice-Boltzmann channel, one step: pull streaming with bounce-back at solid cells, then
// BGK collision. obst[c] != 0 marks a solid cell (the channel's walls and a cylinder).
// Directions: 0 (0,0), 1 (1,0), 2 (0,1), 3 (-1,0), 4 (0,-1), 5 (1,1), 6 (-1,1), 7 (-1,-1), 8
// (1,-1).
__global__ void lbm(const float* f0, const float* f1, const float* f2, const float* f3,
                    const float* f4, const float* f5, const float* f6, const float* f7,
                    const float* f8, const int* obst, float* g0, float* g1, float* g2, float* g3,
                    float* g4, float* g5, float* g6, float* g7, float* g8, const int nx,
                    const int ny) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x),
            y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  if (obst[c] != 0) return;
  // streaming (pull): population i comes from the cell c - e_i, or bounces back off a solid one
  const float p0 = f0[c];
  const float p1 = obst[c - 1] != 0 ? f3[c] : f1[c - 1];
  const float p2 = obst[c - nx] != 0 ? f4[c] : f2[c - nx];
  const float p3 = obst[c + 1] != 0 ? f1[c] : f3[c + 1];
  const float p4 = obst[c + nx] != 0 ? f2[c] : f4[c + nx];
  const float p5 = obst[c - 1 - nx] != 0 ? f7[c] : f5[c - 1 - nx];
  const float p6 = obst[c + 1 - nx] != 0 ? f8[c] : f6[c + 1 - nx];
  const float p7 = obst[c + 1 + nx] != 0 ? f5[c] : f7[c + 1 + nx];
  const float p8 = obst[c - 1 + nx] != 0 ? f6[c] : f8[c - 1 + nx];
  const float rho = p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8;
  const float ux = (p1 - p3 + p5 - p6 - p7 + p8) / rho + 1e-5f;  // + a body force along x
  const float uy = (p2 - p4 + p5 + p6 - p7 - p8) / rho;
  const float omega = 1.2f, usq = 1.5f * (ux * ux + uy * uy);
  const float w0 = 4.0f / 9.0f, w1 = 1.0f / 9.0f, w5 = 1.0f / 36.0f;
#define EQ(w, cu) ((w)*rho * (1.0f + 3.0f * (cu) + 4.5f * (cu) * (cu)-usq))
  g0[c] = p0 + omega * (EQ(w0, 0.0f) - p0);
  g1[c] = p1 + omega * (EQ(w1, ux) - p1);
  g2[c] = p2 + omega * (EQ(w1, uy) - p2);
  g3[c] = p3 + omega * (EQ(w1, -ux) - p3);
  g4[c] = p4 + omega * (EQ(w1, -uy) - p4);
  g5[c] = p5 + omega * (EQ(w5, ux + uy) - p5);
  g6[c] = p6 + omega * (EQ(w5, -ux + uy) - p6);
  g7[c] = p7 + omega * (EQ(w5, -ux - uy) - p7);
  g8[c] = p8 + omega * (EQ(w5, ux - uy) - p8);
#undef EQ
}
