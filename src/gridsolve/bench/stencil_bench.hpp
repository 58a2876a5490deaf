// Stencil benchmark: the device's copy bandwidth, our kernels and the peers, in one run.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

// One timed kernel. Rates use the interior nodes the kernel updates ((n - 2)^2) and the
// minimal traffic named in `traffic` (bytes a kernel must move at the least), so the
// kernels of one job compare by time and by GB/s alike. gcells_per_s is 0 for the copy.
struct BenchRow {
  std::string name;       // what ran, e.g. "jacobi sweep, tuned"
  std::string precision;  // "fp32", "fp64", or "-" for the copy
  double ms = 0;          // median time of one call
  double gcells_per_s = 0;
  double gbytes_per_s = 0;      // at the counted traffic
  double fraction_of_copy = 0;  // gbytes_per_s over the copy row's
  std::string traffic;          // what was counted
};

// A row from a median time, the cells it updated and the bytes it moved (rates per
// second), and the copy bandwidth of the same run (0: no fraction).
BenchRow bench_row(std::string name, std::string precision, double ms, double cells, double bytes,
                   double copy_gbs, std::string traffic);

// Times on device d, for an n x n node grid (the 5-point Laplacian, random non-zero
// data): the copy ceiling (cudaMemcpy device to device, or a threaded memcpy on the
// CPU), one Jacobi sweep (tuned, generic and, on the GPU, a plain one-thread-per-cell
// kernel), and one red-black SOR iteration (tuned colour-reordered on the GPU, generic
// natural layout), each in fp32 and fp64. Warm-up first, then the median of `repeats`
// timings (device events on the GPU). The copy row comes first.
std::vector<BenchRow> run_stencil_bench(Device d, int n, int repeats);

}  // namespace gridsolve
