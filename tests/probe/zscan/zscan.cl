// column recurrence along z (a scan): V[z] = 0.5 V[z-1] + U[z]; right on one device, not a stencil
__kernel void zscan(__global const float* U, __global float* V, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  const int sz = nx * ny;
  float acc = 0.0f;
  for (int z = 0; z < nz; ++z) {
    const int c = x + nx * y + sz * z;
    acc = 0.5f * acc + U[c];
    V[c] = acc;
  }
}
__kernel void relax(__global const float* V, __global float* U, const int nx, const int ny, const int nz) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  const int c = x + nx * (y + ny * z);
  U[c] = 0.3f * V[c];
}
