// SumOfSquares: a 2-norm accumulated in one pass without overflow or underflow (Blue's method).
#pragma once
#include <cmath>

#include "gridsolve/core/hd.hpp"

namespace gridsolve {

// Squares of values above 2^486 would overflow a double once summed, those below 2^-511
// underflow to zero; so each value's square goes to one of three accumulators, the big
// and small ones scaled by a power of two (exact), and norm() combines them at the end.
// This is the scheme of LAPACK 3.10's dnrm2 (Blue, 1978; Anderson, 2017): one pass, one
// comparison and at most one multiplication by a constant per value, so a GPU reduction
// stays as fast as the plain sum of squares. NaN and infinity propagate to norm().
// Usage: reduce<SumOfSquares>(..., [] (...) { return SumOfSquares::of(x); }, SumOp{}, {}).
struct SumOfSquares {
  static constexpr double big_threshold = 0x1p486;     // above: scaled down
  static constexpr double small_threshold = 0x1p-511;  // below: scaled up
  static constexpr double big_scale = 0x1p-538;
  static constexpr double small_scale = 0x1p537;

  double small = 0, medium = 0, big = 0;

  GRIDSOLVE_HD static SumOfSquares of(double x) {
    SumOfSquares s;
    const double a = std::fabs(x);
    if (a > big_threshold) {
      const double y = a * big_scale;
      s.big = y * y;
    } else if (a < small_threshold) {
      const double y = a * small_scale;
      s.small = y * y;
    } else {
      s.medium = a * a;  // NaN lands here and stays NaN
    }
    return s;
  }
  GRIDSOLVE_HD SumOfSquares operator+(const SumOfSquares& o) const {
    return SumOfSquares{small + o.small, medium + o.medium, big + o.big};
  }
  // sqrt(sum of the squares).
  GRIDSOLVE_HD double norm() const {
    if (big > 0 || std::isnan(big)) {
      // The medium squares are negligible next to the big ones unless they are many;
      // either way they fit in the big accumulator's scale.
      const double b = big + (medium * big_scale) * big_scale;
      return std::sqrt(b) / big_scale;
    }
    if (small > 0 && !(medium > 0) && !std::isnan(medium)) return std::sqrt(small) / small_scale;
    if (small > 0) {
      const double m = std::sqrt(medium), s = std::sqrt(small) / small_scale;
      const double hi = m > s ? m : s, lo = m > s ? s : m;
      return hi * std::sqrt(1 + (lo / hi) * (lo / hi));
    }
    return std::sqrt(medium);
  }
  // The sum of the squares itself (may overflow to infinity; norm() does not).
  GRIDSOLVE_HD double sum() const {
    const double n = norm();
    return n * n;
  }
};

}  // namespace gridsolve
