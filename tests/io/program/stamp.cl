// Stamps the step into every cell (tests/io/program/wave.xml): a result that depends on the
// step numbers a run gives its launches, so a restarted or out-of-core run that numbered its
// steps wrongly differs. `scale` is a table read from a file (scale[0] = 0.5).
__kernel void stamp(__global float* a, __global const float* scale, const int nx, const int ny,
                    const int nz, const int step) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  const int c = x + nx * (y + ny * z);
  a[c] = a[c] * scale[0] + (float)step;  // scale[0] = 0.5 (data/scale.raw)
}
