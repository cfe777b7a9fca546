#pragma OPENCL FP_CONTRACT OFF
// Issue 22's failing case: both kernels skip the one-cell shell of their buffer.
__kernel void lap(__global const float* u, __global float* L, const int nx, const int ny,
                  const int nz) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  L[i] = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx * ny] + u[i + nx * ny] -
         6.0f * u[i];
}

__kernel void upd(__global const float* uprev, __global const float* u, __global const float* L,
                  __global const float* c, __global float* unew, const int nx, const int ny,
                  const int nz) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  unew[i] = 0.5f * u[i] + 0.25f * uprev[i] + 0.0625f * c[i] * L[i];
}
