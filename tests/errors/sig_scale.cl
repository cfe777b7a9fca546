// Kernels for the signature cases of the error suite (sig_*.xml, sig_*.yaml). The OpenCL runtime
// names scale's `out` by its typedef (real*); the check resolves it.
typedef float real;

__kernel void scale(__global const float* in, __global real* out, const int n, const float f) {
  const int i = get_global_id(0);
  if (i < n) out[i] = f * in[i];
}

__kernel void shift(__global const float* in, __global float* out, const int n) {
  const int i = get_global_id(0);
  if (i > 0 && i < n) out[i] = in[i - 1];
}
