// faces_x86_64_v3.cpp — faces.cpp a second time, for processors with AVX2
// and FMA (x86-64-v3), which cf_find_faces calls when the processor has
// them: dlib's HOG features and filters are then 8 floats wide. Measured on
// a 640 x 480 search: 19.0 ms baseline, 15.3 ms here, the same faces and
// scores (docs/performance.md, issue #23).
//
// The binary is for any x86-64, so this copy must not leak into the
// baseline code. dlib is header-only here: its templates compiled twice
// would be the same symbols, and the linker keeps either copy. So:
//  - every standard header is included first, outside the target region,
//    so the standard templates both copies use are compiled once, for any
//    x86-64;
//  - dlib's namespace is renamed (a macro: header names are not expanded),
//    so its templates here are symbols of their own;
//  - dlib's SIMD switches are set as -mavx2 would set them, and every
//    function declared after is compiled for x86-64-v3.
// scripts/faces/check-copies.sh disassembles the binary and fails if any
// function outside this copy uses AVX registers.
#if defined(__x86_64__) && defined(__clang__)
#include <bits/stdc++.h>
#include <immintrin.h>

#define DLIB_HAVE_SSE2
#define DLIB_HAVE_SSE3
#define DLIB_HAVE_SSE41
#define DLIB_HAVE_AVX
#define DLIB_HAVE_AVX2
#define dlib collage_dlib_x86_64_v3
#define CF_X86_64_V3_COPY
#define cf_find_faces cf_find_faces_x86_64_v3

#pragma clang attribute push(__attribute__((target("arch=x86-64-v3"))), apply_to = function)
#include "faces.cpp"
#pragma clang attribute pop
#endif
