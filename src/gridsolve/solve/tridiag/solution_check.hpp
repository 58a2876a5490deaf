// How well a computed x solves strided tridiagonal systems, and the limit a solve must
// meet: the check `gridsolve tridiag` makes before it hands a solution out.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>

namespace gridsolve::tridiag {

struct SolutionCheck {
  // The worst system's relative residual (see check_solution), and where it lies.
  double residual = 0;
  int system = 0, row = 0;
  // The first x that is not a finite number (inf from an overflow, NaN), if any.
  bool finite = true;
  int bad_system = 0, bad_row = 0;
};

// Relative residual of each system: max_i |d_i - a_i x_{i-1} - b_i x_i - c_i x_{i+1}|
// over max_i (|a_i x_{i-1}| + |b_i x_i| + |c_i x_{i+1}| + |d_i|), the residual against the
// size of the terms it is made of. A solve without pivoting of a diagonally dominant
// system keeps this a few rounding errors whatever n and the scale, where max |d| as the
// divisor would grow with the condition number (the 1D Laplacian's n^2). Each system is
// measured on its own, so a small system is not hidden beside a large one. Computed in
// long double, so that products of values near double's range do not overflow. a of a
// first row and c of a last row are not read. Strided layout, n rows per system.
inline SolutionCheck check_solution(const double* a, const double* b, const double* c,
                                    const double* d, const double* x, int n, int count) {
  SolutionCheck out;
  for (int q = 0; q < count; ++q) {
    const std::size_t o = std::size_t(q) * std::size_t(n);
    long double rmax = 0, smax = 0;
    int rrow = 0;
    for (int i = 0; i < n; ++i) {
      const std::size_t k = o + std::size_t(i);
      if (out.finite && !std::isfinite(x[k]))
        out.finite = false, out.bad_system = q, out.bad_row = i;
      const long double tb = (long double)b[k] * x[k];
      const long double ta = i > 0 ? (long double)a[k] * x[k - 1] : 0.0L;
      const long double tc = i + 1 < n ? (long double)c[k] * x[k + 1] : 0.0L;
      const long double r = std::fabs((long double)d[k] - ta - tb - tc);
      const long double s = std::fabs(ta) + std::fabs(tb) + std::fabs(tc) + std::fabs(d[k]);
      if (std::isnan(rmax)) continue;  // a NaN residual stays the worst
      if (std::isnan(r) || r > rmax) rmax = r, rrow = i;
      if (s > smax) smax = s;
    }
    double rel = smax > 0 ? double(rmax / smax) : double(rmax);
    if (std::isnan(rel)) rel = std::numeric_limits<double>::infinity();
    if (rel > out.residual) out.residual = rel, out.system = q, out.row = rrow;
  }
  return out;
}

// The largest relative residual accepted from a solve in T: 2^8 unit roundoffs
// (1.5e-5 in float, 2.8e-14 in double). Stable solves stay within a few units (the
// tests measure every CPU method); pivots grown without pivoting, a solution that
// overflowed or underflowed, and values the precision could not hold exceed it by far.
template <class T>
constexpr double residual_limit() {
  return 256 * double(std::numeric_limits<T>::epsilon()) / 2;
}

}  // namespace gridsolve::tridiag
