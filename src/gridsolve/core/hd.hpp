// GRIDSOLVE_HD marks functions callable from host and device code alike.
#pragma once
#if defined(__CUDACC__)
#define GRIDSOLVE_HD __host__ __device__
#define GRIDSOLVE_RESTRICT __restrict__
#else
#define GRIDSOLVE_HD
#define GRIDSOLVE_RESTRICT __restrict__
#endif

// Unrolls the loop that follows where a compile-time trip count allows (the device pass;
// host compilers unroll on their own).
#if defined(__CUDA_ARCH__)
#define GRIDSOLVE_UNROLL _Pragma("unroll")
#else
#define GRIDSOLVE_UNROLL
#endif
