// The fused column pass of the GPU demag convolution of a single layer: for every x
// frequency, the y transform of the rows that hold cells, the product with the tensor and
// the inverse y transform of the rows that are kept, in one kernel, in shared memory.
#pragma once
#include <cstdint>

#include "gridsolve/transform/demag_layout.hpp"

namespace gridsolve::demag {

// What the pass reads and writes: three spectra of rows (row pitch `pitch` complex values,
// n[1] rows holding data after the x transform, p[1] rows per column), transformed along y
// in place; `kernel` is the tensor's reduced spectrum, `twiddle` exp(-2 pi i m / p[1]) for
// m = 0 .. p[1] - 1 as interleaved complex values.
template <class T>
struct ColumnPassArgs {
  T* rows[3];
  std::int64_t pitch = 0;
  const T* kernel = nullptr;
  const T* twiddle = nullptr;
  int hx = 0, ny = 0, py = 0;
};

// Whether the pass can run for this layout on the current GPU (a single layer, p[1] a
// product of 2, 3 and 5, three columns fitting in shared memory).
template <class T>
bool column_pass_fits(const Layout& l);

template <class T>
void run_column_pass(const ColumnPassArgs<T>& a);

}  // namespace gridsolve::demag
