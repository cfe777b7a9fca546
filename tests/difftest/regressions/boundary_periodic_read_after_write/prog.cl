#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// difftest program, seed 20059: 2D 23x31, 2 steps, 3 launch(es), swap(s0a,s0b), temps [t0,t1], read-only [c0,m0], every 1, types double,float,int,long; k0: halo [22, 0]/[0, 0] rim [0, 0]/[0, 0]; k1: halo [0, 1]/[0, 1] rim [0, 1]/[0, 1] local auto 2 shapes; k2: halo [1, 1]/[0, 1] rim [1, 1]/[0, 1] local auto 2 shapes; scan k0 along x forward; step writer w0 in k1 (every); mask m0 in k1 at (0, 0); mask m0 in k2 at (-1, 1); boundaries s0b:y=value(0.75) t0:y=copy t1:y=value(1) w0:y=periodic m0:y=periodic

__kernel void k0(__global const float* s0a, __global long* t1, const int nx, const int ny, const int istep) {
  const int y = get_global_id(1);
  if (y >= ny) return;
  if (y < 0 || y >= ny - 0) return;  // the rim (halo below/above: [22, 0]/[0, 0])
  uint r_t1 = 0u;
  for (int x = 0; x < nx; ++x) {
  const int c = x + nx * y;
  uint s_t1 = 0u;
  s_t1 = s_t1 + 8u * (uint)(int)(s0a[c] * 256.0f);
  s_t1 = s_t1 + 3u * ((uint)(int)(s0a[c] * 256.0f) / 3u);
  s_t1 = s_t1 + 4u * (uint)istep;
  r_t1 = (r_t1 * 3u + s_t1) % 1021u;
  t1[c] = (long)r_t1;
  }
}

__kernel void k1(__global const float* s0a, __global long* t0, __global double* w0, __global const int* m0, const int nx, const int ny, const int istep) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 0 || x >= nx - 0 || y < 1 || y >= ny - 1) return;  // the rim (halo below/above: [0, 1]/[0, 1])
  const int c = x + nx * y;
  const int m = m0[c] < 7;  // the mask
  uint s_t0 = 0u;
  if (m) {
  s_t0 = s_t0 + 2u * (uint)(int)(s0a[c] * 256.0f);
  } else {
  s_t0 = s_t0 + 6u * (uint)(int)(s0a[c + nx * (-1)] * 256.0f);
  s_t0 = s_t0 + 4u * (uint)(int)(s0a[c + nx * (1)] * 256.0f);
  s_t0 = s_t0 + 6u * ((uint)(int)(s0a[c] * 256.0f) / 5u);
  }
  t0[c] = (long)(s_t0 % 1021u);
  double s_w0 = 0.0;
  s_w0 = s_w0 + -0.889348 * (double)(s0a[c]);
  if (!m && (istep % 2 == 0)) w0[c] = 0.5 * w0[c] + 0.5 * s_w0;
}

__kernel void k2(__global const long* t0, __global const double* w0, __global float* s0b, __global const float* s0a, __global const long* t1, __global const int* m0, const int nx, const int ny, const int istep) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 0 || y < 1 || y >= ny - 1) return;  // the rim (halo below/above: [1, 1]/[0, 1])
  const int c = x + nx * y;
  const int m = m0[c + (-1) + nx * (1)] < 7;  // the mask
  float s_s0b = 0.0f;
  if (m) {
  s_s0b = s_s0b + 0.121216f * (float)(w0[c]);
  s_s0b = s_s0b + 0.386049f * (float)(t0[c]) * 0.0009765625f;
  s_s0b = s_s0b + 0.131611f * s0a[c + nx * (-1)];
  s_s0b = s_s0b + -0.298724f * (float)(w0[c + nx * (1)]);
  } else {
  s_s0b = s_s0b + 0.085661f * (float)(t0[c]) * 0.0009765625f;
  s_s0b = s_s0b + 0.113779f * (float)(t0[c + nx * (1)]) * 0.0009765625f;
  s_s0b = s_s0b + 0.078015f * s0a[c];
  s_s0b = s_s0b + 0.054175f * s0a[c + nx * (-1)];
  s_s0b = s_s0b + 0.110489f * (float)(t1[c + (-1)]) * 0.0009765625f;
  s_s0b = s_s0b + 0.087467f * s0a[c + (-1)];
  s_s0b = s_s0b + 0.065574f * (float)(t1[c]) * 0.0009765625f;
  s_s0b = s_s0b + 0.058958f * s0a[c + nx * (1)];
  s_s0b = s_s0b + -0.092657f * (s0a[c + (-1)] * (float)(t1[c + (-1)]) * 0.0009765625f);
  s_s0b = s_s0b + 0.064939f * (float)(istep % 8) * 0.125f;
  s_s0b = s_s0b + 0.052709f * (float)(w0[c]);
  }
  s0b[c] = s_s0b;
}
