// Batched tridiagonal solves: the public entry point, its layouts and its methods.
#pragma once
#include <cstdint>
#include <string>

#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve::tridiag {

// System s, row i:  a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i,  i = 0..n-1.
// a_0 and c_{n-1} are never read. No pivoting is done: the methods are meant for
// diagonally dominant or symmetric positive definite systems (what discretized
// elliptic operators produce). A zero pivot, a NaN, or a pivot lost to cancellation
// (smaller than a few rounding errors of the terms that formed it) raises Error.
enum class Layout {
  strided,      // systems one after another: element (s, i) at s * n + i
  interleaved,  // element i of every system adjacent: element (s, i) at i * count + s
};

enum class Method {
  automatic,                  // picks by device, layout and size (see choose_method)
  thomas,                     // LU sweep per system; one thread per system on the GPU
  cyclic_reduction,           // CR; on the GPU one block per system in shared memory
  parallel_cyclic_reduction,  // PCR; on the GPU one block per system, n <= 1024
  cr_pcr,                     // GPU: CR until the system fits one thread per row, then PCR
  partitioned,                // split into partitions, reduced system, fix up (long systems)
};

std::string to_string(Method m);
Method parse_method(const std::string& name);
std::string to_string(Layout l);
Layout parse_layout(const std::string& name);

template <class T>
struct Batch {
  const T* a = nullptr;  // sub-diagonal
  const T* b = nullptr;  // diagonal
  const T* c = nullptr;  // super-diagonal
  T* d = nullptr;        // right-hand sides in, solutions out
  int n = 0;             // rows per system
  int count = 1;         // systems
  Layout layout = Layout::strided;

  GRIDSOLVE_HD std::int64_t system_stride() const { return layout == Layout::strided ? n : 1; }
  GRIDSOLVE_HD std::int64_t row_stride() const { return layout == Layout::strided ? 1 : count; }
};

struct Options {
  Method method = Method::automatic;
  // Wait for the device and check the pivots (a failed pivot is only known then).
  // Benchmarks turn it off to time the solve alone.
  bool check = true;
};

// Solves every system of the batch in place; the arrays live on `device`.
template <class T>
void solve(Device device, const Batch<T>& batch, const Options& options = {});

// The method `automatic` resolves to.
template <class T>
Method choose_method(Device device, const Batch<T>& batch);

}  // namespace gridsolve::tridiag
