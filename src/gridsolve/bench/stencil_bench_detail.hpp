// Pieces the CPU and GPU halves of the stencil benchmark share.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/bench/stencil_bench.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve::bench_detail {

// The uniform 5-point Laplacian on an n x n unit-square grid with a non-zero constant
// right-hand side; the interior nodes are the unknowns.
template <class T>
StencilOperator<T> laplacian(int n, Device d);
// Random values in [-1, 1] on every node and ghost, from a fixed seed.
template <class T>
Field<T> random_field(int n, Device d, std::uint64_t seed);

double median(std::vector<double> v);
BenchRow make_row(std::string name, std::string precision, double ms, double cells,
                  double bytes_per_cell, double copy_gbs, std::string traffic);

inline const char* jacobi_traffic = "2 words/cell: read u, write u";
inline const char* sor_traffic = "3 words/cell: per colour 2 reads, 1 write";

#if GRIDSOLVE_HAVE_CUDA
std::vector<BenchRow> run_cuda(int n, int repeats);
#endif

}  // namespace gridsolve::bench_detail
