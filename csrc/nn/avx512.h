// Where the AVX-512 kernels exist: GCC on x86-64 Linux builds them (each in a `#pragma GCC
// target` block of its own file, the rest of the build staying at its baseline level), and a
// CPU that has the instructions runs them.
#ifndef POPUCOM_NN_AVX512_H_
#define POPUCOM_NN_AVX512_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define POPUCOM_HAVE_AVX512_KERNELS 1
#endif

namespace popucom {
namespace nn {

// Whether this CPU runs the float32 AVX-512 kernels (false where the build has none).
inline bool cpu_has_avx512() {
#ifdef POPUCOM_HAVE_AVX512_KERNELS
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return has;
#else
  return false;
#endif
}

// Whether this CPU runs the AVX512-BF16 kernels too.
inline bool cpu_has_avx512_bf16() {
#ifdef POPUCOM_HAVE_AVX512_KERNELS
  static const bool has = cpu_has_avx512() && __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_AVX512_H_
