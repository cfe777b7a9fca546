// A kernel that allows one work-group shape only.
__kernel __attribute__((reqd_work_group_size(16, 4, 1))) void k(__global const float* a,
                                                                __global float* b) {
  const int i = get_global_id(0);
  b[i] = a[i];
}
