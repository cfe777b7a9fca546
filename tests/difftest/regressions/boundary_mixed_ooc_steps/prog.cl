#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// difftest program, seed 502: 3D 15x9x21, 4 steps, 1 launch(es), swap(s0a,s0b) rotate(s1a,s1b,s1c), temps [], read-only [c0,c1], acc, every 1, types double,float,int,uint; k0: halo [2, 2, 2]/[2, 1, 2] rim [2, 2, 2]/[2, 1, 2]; boundaries s1a:x=periodic c0:x=copy c1:x=mirror s0a:y=periodic s1b:y=mirror c0:y=copy c1:y=copy

__kernel void k0(__global double* s1c, __global const int* s0a, __global const float* c1, __global uint* acc, __global const double* c0, __global const double* s1b, __global int* s0b, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 2 || x >= nx - 2 || y < 2 || y >= ny - 1 || z < 2 || z >= nz - 2) return;  // the rim (halo below/above: [2, 2, 2]/[2, 1, 2])
  const int c = x + nx * (y + ny * z);
  double s_s1c = 0.0;
  s_s1c = s_s1c + 0.034801 * (double)(c1[c + (-2)]);
  s_s1c = s_s1c + 0.007907 * s1b[c + nx * ny * (1)];
  s_s1c = s_s1c + 0.091228 * (double)(c1[c + nx * (-1)]);
  s_s1c = s_s1c + 0.051096 * (double)(c1[c + nx * ny * (-2)]);
  s_s1c = s_s1c + 0.019972 * s1b[c + (-1) + nx * (-2) + nx * ny * (1)];
  s_s1c = s_s1c + 0.055886 * (double)(s0a[c + nx * (1)]) * 0.0009765625;
  s_s1c = s_s1c + -0.061908 * s1b[c];
  s_s1c = s_s1c + 0.057526 * c0[c];
  s_s1c = s_s1c + -0.092884 * (double)(s0a[c]) * 0.0009765625;
  s_s1c = s_s1c + 0.088118 * (double)(c1[c + (-2) + nx * ny * (-1)]);
  s_s1c = s_s1c + -0.031571 * c0[c + (2)];
  s_s1c = s_s1c + 0.065011 * c0[c + nx * (1)];
  s_s1c = s_s1c + 0.032826 * s1b[c + (-2)];
  s_s1c = s_s1c + -0.064262 * (double)(c1[c + (-2) + nx * (-1)]);
  s_s1c = s_s1c + -0.063827 * s1b[c + nx * (1)];
  s_s1c = s_s1c + 0.070193 * c0[c + nx * ny * (2)];
  s_s1c = s_s1c + -0.081553 * s1b[c + nx * (-2)];
  s1c[c] = s_s1c;
  uint s_s0b = 0u;
  s_s0b = s_s0b + 8u * (uint)(int)(c1[c + (-2) + nx * ny * (-1)] * 256.0f);
  s_s0b = s_s0b + 7u * (uint)(int)(c1[c + (-2)] * 256.0f);
  s_s0b = s_s0b + 9u * (uint)(int)(c1[c + (-2) + nx * (-1)] * 256.0f);
  s_s0b = s_s0b + 8u * (uint)(int)(s1b[c + (-1) + nx * (-2) + nx * ny * (1)] * 256.0);
  s_s0b = s_s0b + 6u * (uint)(int)(c0[c + (2)] * 256.0);
  s_s0b = s_s0b + 5u * (uint)(int)(s1b[c + (-2)] * 256.0);
  s_s0b = s_s0b + 6u * (uint)(int)(c1[c] * 256.0f);
  s_s0b = s_s0b + 5u * (uint)(int)(c0[c + nx * (1)] * 256.0);
  s_s0b = s_s0b + 2u * (uint)(int)(c1[c + nx * (-1)] * 256.0f);
  s_s0b = s_s0b + 8u * (uint)(int)(s1b[c + nx * (-2)] * 256.0);
  s_s0b = s_s0b + 9u * (uint)(s0a[c + nx * (1)]);
  s_s0b = s_s0b + 8u * (uint)(s0a[c]);
  s_s0b = s_s0b + 7u * (uint)(int)(s1b[c + nx * ny * (1)] * 256.0);
  s_s0b = s_s0b + 7u * (uint)(int)(c0[c + nx * ny * (2)] * 256.0);
  s_s0b = s_s0b + 8u * (uint)(int)(c1[c + nx * ny * (-2)] * 256.0f);
  s_s0b = s_s0b + 7u * (uint)(int)(s1b[c + nx * (1)] * 256.0);
  s0b[c] = (int)(s_s0b % 1021u);
  uint s_acc = 0u;
  s_acc = s_acc + 3u * (uint)(int)(c0[c] * 256.0);
  s_acc = s_acc + 8u * (uint)(int)(s1b[c + (-2)] * 256.0);
  s_acc = s_acc + 1u * (uint)(int)(c1[c + (-2)] * 256.0f);
  s_acc = s_acc + 7u * (uint)(int)(s1b[c + nx * (1)] * 256.0);
  s_acc = s_acc + 8u * (uint)(int)(c0[c + (2)] * 256.0);
  s_acc = s_acc + 9u * (uint)(int)(s1b[c + (-1) + nx * (-2) + nx * ny * (1)] * 256.0);
  s_acc = s_acc + 4u * (uint)(s0a[c + nx * (1)]);
  s_acc = s_acc + 6u * (uint)(int)(s1b[c + nx * ny * (1)] * 256.0);
  s_acc = s_acc + 1u * (uint)(int)(s1b[c + nx * (-2)] * 256.0);
  s_acc = s_acc + 7u * (uint)(int)(c0[c + nx * (1)] * 256.0);
  s_acc = s_acc + 5u * (uint)(int)(c1[c + nx * ny * (-2)] * 256.0f);
  s_acc = s_acc + 7u * (uint)(int)(c0[c + nx * ny * (2)] * 256.0);
  s_acc = s_acc + 6u * (uint)(int)(c1[c + nx * (-1)] * 256.0f);
  s_acc = s_acc + 1u * (uint)(int)(s1b[c] * 256.0);
  s_acc = s_acc + 2u * (uint)(int)(c1[c + (-2) + nx * (-1)] * 256.0f);
  s_acc = s_acc + 6u * (uint)(int)(c1[c + (-2) + nx * ny * (-1)] * 256.0f);
  s_acc = s_acc + 1u * ((uint)(int)(c0[c + nx * ny * (2)] * 256.0) * (uint)(int)(c1[c + (-2) + nx * ny * (-1)] * 256.0f));
  s_acc = s_acc + 2u * ((uint)(s0a[c]) / 3u);
  acc[c] = (uint)(((uint)(acc[c]) + s_acc) % 1021u);
}
