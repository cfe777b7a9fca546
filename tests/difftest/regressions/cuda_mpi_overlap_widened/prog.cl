#pragma OPENCL FP_CONTRACT OFF
// difftest program, seed 10120: 3D 17x21x23, 7 steps, 2 launch(es), swap(s0a,s0b), temps [t0], read-only [], every 1, types float,long; k0: halo [1, 1, 1]/[0, 0, 1] rim [1, 1, 1]/[0, 0, 1] global rim [3, 3, 3]/[2, 2, 1]; k1: halo [1, 0, 0]/[0, 0, 0] rim [1, 1, 0]/[0, 0, 1]

__kernel void k0(__global float* s0b, __global const long* t0, __global const float* s0a, const int nx, const int ny, const int nz, const int ox, const int oy, const int oz, const int gnx, const int gny, const int gnz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 0 || y < 1 || y >= ny - 0 || z < 1 || z >= nz - 1) return;  // the rim (halo below/above: [1, 1, 1]/[0, 0, 1])
  if (ox + x < 3 || ox + x >= gnx - 2 || oy + y < 3 || oy + y >= gny - 2 || oz + z < 3 || oz + z >= gnz - 1) return;  // the whole grid's boundary
  const int c = x + nx * (y + ny * z);
  float s_s0b = 0.0f;
  s_s0b = s_s0b + 0.078164f * (float)(t0[c]) * 0.0009765625f;
  s_s0b = s_s0b + 0.088174f * s0a[c + nx * (-1)];
  s_s0b = s_s0b + 0.156043f * (float)(t0[c + nx * ny * (1)]) * 0.0009765625f;
  s_s0b = s_s0b + 0.157421f * s0a[c];
  s_s0b = s_s0b + 0.163237f * (float)(t0[c + nx * (-1) + nx * ny * (1)]) * 0.0009765625f;
  s_s0b = s_s0b + -0.067934f * (float)(t0[c + nx * (-1)]) * 0.0009765625f;
  s_s0b = s_s0b + -0.012615f * s0a[c + (-1)];
  s_s0b = s_s0b + 0.202833f * s0a[c + nx * ny * (-1)];
  s0b[c] = s_s0b;
}

__kernel void k1(__global const float* s0a, __global long* t0, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 0 || y < 1 || y >= ny - 0 || z < 0 || z >= nz - 1) return;  // the rim (halo below/above: [1, 0, 0]/[0, 0, 0])
  const int c = x + nx * (y + ny * z);
  uint s_t0 = 0u;
  s_t0 = s_t0 + 1u * (uint)(int)(s0a[c + (-1)] * 256.0f);
  t0[c] = (long)(s_t0 % 1021u);
}
