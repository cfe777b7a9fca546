#pragma OPENCL FP_CONTRACT OFF
// A 3D wave step in two launches (issue 22's failing case; see wave2k.xml). nx, ny, nz are the
// extents of the buffer each kernel is given. Both kernels skip the same one-cell shell of
// their buffer, upd too although it reads no neighbour: a kernel written for one device.

__kernel void lap(__global const float* u, __global float* L, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int sy = nx;
  const int sz = nx * ny;
  const int i = x + sy * y + sz * z;
  L[i] = u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz] - 6.0f * u[i];
}

__kernel void upd(__global const float* uprev, __global const float* u, __global const float* L,
                  __global const float* c, __global float* unew, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1) return;
  const int i = x + nx * y + nx * ny * z;
  unew[i] = 2.0f * u[i] - uprev[i] + 0.0625f * c[i] * L[i];
}
