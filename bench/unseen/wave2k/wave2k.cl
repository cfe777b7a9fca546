#pragma OPENCL FP_CONTRACT OFF
__kernel void lap(__global const float* u, __global float* L, const int nx, const int ny,
                  const int nz) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int c = x + nx * (y + ny * z);
  L[c] = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny] - 6.0f * u[c];
}
__kernel void upd(__global const float* uprev, __global const float* u, __global const float* L,
                  __global const float* c, __global float* unew, const int nx, const int ny,
                  const int nz) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * (y + ny * z);
  unew[i] = 2.0f * u[i] - uprev[i] + 0.05f * c[i] * L[i];
}
