// A kernel that needs its block's threads together (__shared__, __syncthreads): the CUDA
// emulation must refuse to build it, saying why (tests/cuda_emu.cmake).
__global__ void reverse32(float* a) {
  __shared__ float t[32];
  t[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = t[31 - threadIdx.x];
}
