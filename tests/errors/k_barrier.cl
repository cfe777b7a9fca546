// A kernel whose results depend on its work-group shape: a tile in local memory.
__kernel void k(__global const float* a, __global float* b) {
  __local float tile[64];
  const int i = get_global_id(0);
  tile[get_local_id(0)] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  b[i] = tile[0];
}
