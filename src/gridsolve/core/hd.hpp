// GRIDSOLVE_HD marks functions callable from host and device code alike.
#pragma once
#if defined(__CUDACC__)
#define GRIDSOLVE_HD __host__ __device__
#define GRIDSOLVE_RESTRICT __restrict__
#else
#define GRIDSOLVE_HD
#define GRIDSOLVE_RESTRICT __restrict__
#endif
