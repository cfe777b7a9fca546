/* The boundary frames' copies (stepgen/exec/engine_opencl.hpp, cl::FrameKernels): up to 8 boxes of
   one buffer copied to another in one launch, one kernel per element size. Embedded into the
   program at build time (cmake/embed_kernels.cmake). */
typedef struct { long src, dst, ex, ey, ez, src_row, src_slice, dst_row, dst_slice; } FrameBox;
typedef struct { FrameBox b[8]; long count; } FrameBoxes;
#define STEPGEN_FRAME_KERNEL(NAME, T)                                                       \
__kernel void NAME(__global const T* src, __global T* dst, FrameBoxes boxes) {              \
  const long j = (long)get_global_id(1);                                                    \
  if (j >= boxes.count) return;                                                             \
  const FrameBox k = boxes.b[j];                                                            \
  const long plane = k.ex * k.ey;                                                           \
  for (long i = (long)get_global_id(0); i < plane * k.ez; i += (long)get_global_size(0)) {  \
    const long z = i / plane, r = i - z * plane, y = r / k.ex, x = r - y * k.ex;            \
    dst[k.dst + z * k.dst_slice + y * k.dst_row + x] =                                      \
        src[k.src + z * k.src_slice + y * k.src_row + x];                                   \
  }                                                                                         \
}
STEPGEN_FRAME_KERNEL(stepgen_frame_copies_1, uchar)
STEPGEN_FRAME_KERNEL(stepgen_frame_copies_2, ushort)
STEPGEN_FRAME_KERNEL(stepgen_frame_copies_4, uint)
STEPGEN_FRAME_KERNEL(stepgen_frame_copies_8, ulong)
