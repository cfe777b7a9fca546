// difftest program, seed 40000: 3D 9x13x11, 7 steps, 1 launch(es), swap(s0a,s0b) swap(s1a,s1b), temps [], read-only [c0], every 1, types float,int; k0: halo [8, 1, 1]/[0, 1, 1] rim [0, 1, 1]/[0, 1, 1]; scan k0 along x forward; boundaries s0b:z=periodic

__global__ void k0(float* s0b, const float* s0a, const int* s1a, int* s1b, const int nx, const int ny, const int nz) {
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (y >= ny || z >= nz) return;
  if (y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;  // the rim (halo below/above: [8, 1, 1]/[0, 1, 1])
  float r_s0b = 0.0f;
  unsigned r_s1b = 0u;
  for (int x = 0; x < nx; ++x) {
  const int c = x + nx * (y + ny * z);
  float s_s0b = 0.0f;
  s_s0b = s_s0b + 0.025727f * s0a[c + nx * (1)];
  s_s0b = s_s0b + 0.010597f * s0a[c + nx * (-1)];
  s_s0b = s_s0b + 0.066446f * s0a[c + nx * ny * (-1)];
  s_s0b = s_s0b + 0.141349f * (float)(s1a[c + nx * (1)]) * 0.0009765625f;
  s_s0b = s_s0b + -0.071611f * s0a[c + nx * ny * (1)];
  s_s0b = s_s0b + -0.049145f * s0a[c];
  s_s0b = s_s0b + 0.134606f * s0a[c + nx * (1) + nx * ny * (-1)];
  s_s0b = s_s0b + -0.126623f * (float)(s1a[c]) * 0.0009765625f;
  s_s0b = s_s0b + 0.126942f * s0a[c + nx * (-1) + nx * ny * (1)];
  s_s0b = s_s0b + -0.146595f * ((float)(s1a[c + nx * (1)]) * 0.0009765625f * s0a[c + nx * (-1) + nx * ny * (1)]);
  s_s0b = s_s0b + -0.092797f * (s0a[c] / 7.0f);
  r_s0b = 0.5f * r_s0b + 0.5f * s_s0b;
  s0b[c] = r_s0b;
  unsigned s_s1b = 0u;
  s_s1b = s_s1b + 9u * (unsigned)(s1a[c + nx * (1)]);
  s_s1b = s_s1b + 9u * (unsigned)(int)(s0a[c + nx * ny * (-1)] * 256.0f);
  s_s1b = s_s1b + 7u * (unsigned)(int)(s0a[c + nx * (-1)] * 256.0f);
  s_s1b = s_s1b + 1u * (unsigned)(int)(s0a[c] * 256.0f);
  s_s1b = s_s1b + 9u * (unsigned)(int)(s0a[c + nx * (1)] * 256.0f);
  s_s1b = s_s1b + 2u * (unsigned)(int)(s0a[c + nx * (1) + nx * ny * (-1)] * 256.0f);
  s_s1b = s_s1b + 3u * (unsigned)(int)(s0a[c + nx * (-1) + nx * ny * (1)] * 256.0f);
  s_s1b = s_s1b + 3u * (unsigned)(s1a[c]);
  s_s1b = s_s1b + 6u * (unsigned)(int)(s0a[c + nx * ny * (1)] * 256.0f);
  r_s1b = (r_s1b * 3u + s_s1b) % 1021u;
  s1b[c] = (int)r_s1b;
  }
}
