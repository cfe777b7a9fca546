// A Jacobi step indexed from the launch's offset (an index less get_global_offset, as if the
// launch always started at 0): right for a whole launch, wrong on a slab launched through a
// global offset.
__kernel void jacobi_offset(__global const float* A, __global float* B, const int nx,
                            const int ny) {
  const int x = get_global_id(0) - get_global_offset(0),
            y = get_global_id(1) - get_global_offset(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  B[c] = 0.25f * (A[c - 1] + A[c + 1] + A[c - nx] + A[c + nx]);
}
