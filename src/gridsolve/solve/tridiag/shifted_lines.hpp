// Batched GPU solves of the constant-coefficient shifted lines of transform solvers.
#pragma once
#include <cstdint>

namespace gridsolve::tridiag {

// Geometry of a batch of lines in one array: line s starts at
// (s / inner) * outer + s % inner and its rows are `row_stride` apart. Covers the
// strided (inner 1, outer n, row stride 1) and interleaved (inner = count, row stride
// count) layouts and the lines along any axis of a 3D array.
struct LineGeometry {
  int n = 0;               // rows per line
  std::int64_t count = 0;  // lines
  std::int64_t inner = 1;
  std::int64_t outer = 0;
  std::int64_t row_stride = 1;
};

// Line s solves off x_{i-1} + (sigma_s w_i + e_i) x_i + off x_{i+1} = d_i, with
// (w_i, e_i) = (w_first, e_first) on row 0, (w_last, e_last) on row n - 1 and (1, e_mid)
// in between: a transform solver's remaining axis after the others are diagonalized.
// sigma holds the shifts (device memory): line s takes sigma[s], or sigma[s % sigma_period]
// when sigma_period > 0 (one shift per position in a repeating group of lines). With
// skip_zero_shift, lines whose
// shift is exactly zero are left untouched (the caller treats that singular line).
struct ShiftedLines {
  const double* sigma = nullptr;
  std::int64_t sigma_period = 0;
  double off = 0;
  double w_first = 1, w_last = 1;
  double e_first = 2, e_mid = 2, e_last = 2;
  bool skip_zero_shift = false;
};

#if GRIDSOLVE_HAVE_CUDA
// Solves in place on the current stream (no pivot checks: the lines are diagonally
// dominant by construction).
template <class T>
void solve_shifted_lines_cuda(const LineGeometry& g, const ShiftedLines& lines, T* d);
#endif

}  // namespace gridsolve::tridiag
