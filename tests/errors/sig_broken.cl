// A kernel source that does not build (sig_build_error.xml).
__kernel void scale(__global const float* in, __global float* out, const int n, const float f) {
  const int i = get_global_id(0);
  if (i < n) out[i] = f * in[i] + undeclared_offset;
}
