__kernel void k0(__global const long* a, __global long* b, const int nx) {
  const int x = get_global_id(0);
  if (x >= nx) return;
  if (x < 1 || x >= nx - 1) return;
  b[x] = (long)(((uint)a[x - 1] + 2u * (uint)a[x] + 3u * (uint)a[x + 1]) % 1021u);
}
