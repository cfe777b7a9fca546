// B = A * C + D, written for one device, without `#pragma OPENCL FP_CONTRACT OFF`: the generated
// program turns contraction off before the file (tests/e2e/fp_contract_test.sh).
__kernel void fma_like(__global const float* a, __global const float* c, __global const float* d,
                       __global float* b, int n) {
  int x = get_global_id(0);
  if (x < n) b[x] = a[x] * c[x] + d[x];
}
