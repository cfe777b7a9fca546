// First-order upwind advection along y, written for one device: the velocity is u - 0.5, and
// each cell reads q's upstream neighbour; the first and last rows are left as they are.
__kernel void upwind(__global const float* u, __global const float* q, __global float* qn,
                     const int nx, const int ny, const float c) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y < 1 || y >= ny - 1) return;
  const int i = x + nx * y;
  const float v = u[i] - 0.5f;
  const float dq = v > 0.0f ? q[i] - q[i - nx] : q[i + nx] - q[i];
  qn[i] = q[i] - c * v * dq;
}
