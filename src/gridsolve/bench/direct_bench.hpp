// Direct-solver benchmarks: batched and long tridiagonal systems, fast Poisson solves,
// each beside the copy ceiling and the cuSPARSE / cuFFT peers for the same job.
#pragma once
#include <vector>

#include "gridsolve/bench/stencil_bench.hpp"

namespace gridsolve {

// Tridiagonal, fp64: `systems` x `rows` random diagonally dominant systems in the
// strided and interleaved layouts (ours; cuSPARSE gtsv2StridedBatch), and one system
// of `long_rows` unknowns (ours, partitioned; cuSPARSE gtsv2_nopivot). Traffic counted:
// 5 words per unknown (a, b, c, d read, x written).
std::vector<BenchRow> run_tridiag_bench(Device d, int rows, int systems, int long_rows,
                                        int repeats);

// 2D Poisson, Dirichlet sides, fp64, n x n unknowns, random right-hand side: the
// transform solver, Buneman, and the periodic cuFFT R2C + C2R pair of the same size
// (the lower bound of any transform solver). Traffic counted: 2 words per unknown.
std::vector<BenchRow> run_poisson_bench(Device d, int n, int repeats);

#if GRIDSOLVE_HAVE_CUDA
namespace detail {
std::vector<BenchRow> tridiag_bench_cuda(int rows, int systems, int long_rows, int repeats);
std::vector<BenchRow> poisson_bench_cuda(int n, int repeats);
}  // namespace detail
#endif

}  // namespace gridsolve
