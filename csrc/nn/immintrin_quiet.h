// <immintrin.h> for the files that use AVX-512 intrinsics. GCC 12's intrinsics seed their
// unused pass-through operand with _mm512_undefined_*, which -W(maybe-)uninitialized reports
// wherever they are inlined (a false positive, GCC bug 105593); the diagnostic state at the
// intrinsics' own lines is what counts.
#ifndef POPUCOM_NN_IMMINTRIN_QUIET_H_
#define POPUCOM_NN_IMMINTRIN_QUIET_H_

#if defined(__x86_64__) || defined(__i386__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#endif  // POPUCOM_NN_IMMINTRIN_QUIET_H_
