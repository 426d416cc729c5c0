// POPUCOM_PER_ISA: one copy of a kernel per x86-64 level, picked when the
// module loads. The default build targets x86-64-v2 (4-wide SSE, no FMA),
// which would leave AVX2 and AVX-512 machines at a fraction of their width.
// `flatten` inlines the helpers into each copy (a called helper would be
// compiled for the default level). Sanitizer builds and other compilers get
// the one default copy, as does the baseline-only build (POPUCOM_BASELINE_ONLY: what an
// x86-64-v2 CPU runs, testable on any x86-64 machine).
#ifndef POPUCOM_NN_PER_ISA_H_
#define POPUCOM_NN_PER_ISA_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(POPUCOM_BASELINE_ONLY)
#define POPUCOM_PER_ISA __attribute__((flatten, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define POPUCOM_PER_ISA
#endif

#endif  // POPUCOM_NN_PER_ISA_H_
