// CPU back end of the tridiagonal solvers (OpenMP over systems or partitions).
#pragma once
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::tridiag {

// Solves in place; returns -1, or system * n + row of the first failed pivot found.
template <class T>
std::int64_t solve_cpu(const Batch<T>& batch, Method method);

#if GRIDSOLVE_HAVE_CUDA
// GPU back end (tridiagonal_cuda.cu); same contract, and -1 when options.check is off.
template <class T>
std::int64_t solve_cuda(const Batch<T>& batch, Method method, bool check);
int cuda_shared_rows_limit(std::size_t elem_bytes);
#endif

// Pivot failures become this Error.
[[noreturn]] void throw_pivot_error(std::int64_t where, int n, Method method);

}  // namespace gridsolve::tridiag
