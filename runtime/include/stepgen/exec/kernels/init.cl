/* Initial values made on the device (stepgen/exec/init_opencl.hpp): zero, a value, and random
   values with the same bits as the host's (stepgen/description/init.hpp). Embedded into the program at
   build time (cmake/embed_kernels.cmake). */
ulong stepgen_splitmix64(ulong x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

/* rt::random_bits_from_hash (init.hpp) for double: the top 53 bits m of the hash as m * 2^-53,
   built from its exponent and mantissa in integer arithmetic (no cl_khr_fp64 needed). */
ulong stepgen_double_bits(ulong bits) {
  const ulong m = bits >> 11;
  if (m == 0UL) return 0UL;
  const int top = 63 - (int)clz(m);
  return ((ulong)(top - 53 + 1023) << 52) | ((m << (52 - top)) & 0xFFFFFFFFFFFFFUL);
}

/* The box: nx x ny x nz cells from element `base` (strides sy, sz), its first cell at global
   linear index `first` of a grid gx x gy wide (rt::fill_geometry), each cell given VALUE (of
   `h`, the cell's hash splitmix64(mixed ^ index), for the random kernels), and the same cells of
   `also` where it is not null (a copy(X) of this array made in the same pass). Grid-stride loops
   over the cells, x fastest, so a few thousand work-groups each fill many rows (or one long
   row); one kernel per kind and type: no branch per cell. */
#define STEPGEN_INIT_FILL(NAME, E, VALUE)                                                 \
  __kernel void NAME(__global E* buf, __global E* also, const ulong mixed,                \
                     const ulong value, const long base, const long nx, const long ny,    \
                     const long nz, const long sy, const long sz, const long gx,          \
                     const long gy, const ulong first) {                                  \
    for (long z = (long)get_global_id(2); z < nz; z += (long)get_global_size(2))          \
      for (long y = (long)get_global_id(1); y < ny; y += (long)get_global_size(1)) {      \
        const long row = base + y * sy + z * sz;                                          \
        const ulong g = first + (ulong)((y + z * gy) * gx);                               \
        for (long x = (long)get_global_id(0); x < nx; x += (long)get_global_size(0)) {    \
          const ulong h = stepgen_splitmix64(mixed ^ (g + (ulong)x));                     \
          const E v = (E)(VALUE);                                                         \
          buf[row + x] = v;                                                               \
          if (also) also[row + x] = v;                                                    \
        }                                                                                 \
      }                                                                                   \
  }

/* zero and value(v): the value's low bytes (the hash is not used: the compiler drops it) */
STEPGEN_INIT_FILL(stepgen_init_value1, uchar, value)
STEPGEN_INIT_FILL(stepgen_init_value2, ushort, value)
STEPGEN_INIT_FILL(stepgen_init_value4, uint, value)
STEPGEN_INIT_FILL(stepgen_init_value8, ulong, value)
/* random integers: (hash % 100) */
STEPGEN_INIT_FILL(stepgen_init_random_int1, uchar, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int2, ushort, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int4, uint, h % 100UL)
STEPGEN_INIT_FILL(stepgen_init_random_int8, ulong, h % 100UL)
/* random floats: the top 24 bits m as m * 2^-24, exact in a conversion and a multiplication by
   a power of two (the same bits as init.hpp's integer building) */
STEPGEN_INIT_FILL(stepgen_init_random_float, uint,
                  as_uint(convert_float((uint)(h >> 40)) * 0x1p-24f))
/* random doubles */
STEPGEN_INIT_FILL(stepgen_init_random_double, ulong, stepgen_double_bits(h))
