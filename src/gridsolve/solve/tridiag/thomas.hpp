// Thomas algorithm: LU elimination without pivoting for one strided tridiagonal system.
#pragma once
#include <cstdint>
#include <limits>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::tridiag {

template <class T>
GRIDSOLVE_HD inline T abs_of(T x) {
  return x < T(0) ? -x : x;
}

// A pivot is usable when it is larger than a few rounding errors of the terms that
// formed it; this rejects exact zeros, NaN and catastrophic cancellation alike.
template <class T>
GRIDSOLVE_HD inline bool pivot_ok(T pivot, T scale) {
  return abs_of(pivot) > T(8) * std::numeric_limits<T>::epsilon() * scale &&
         abs_of(pivot) >= std::numeric_limits<T>::min();
}

// Solves in place: d becomes x. Row i of the system is at offset i * stride of each
// pointer; cp (same indexing) is scratch for the modified super-diagonal.
// Returns -1, or the row whose pivot failed.
template <class T>
GRIDSOLVE_HD int thomas(int n, const T* a, const T* b, const T* c, T* d, T* cp,
                        std::int64_t stride) {
  T den = b[0];
  if (!pivot_ok(den, abs_of(den))) return 0;
  T inv = T(1) / den;
  T cprev = n > 1 ? c[0] * inv : T(0);
  T dprev = d[0] * inv;
  cp[0] = cprev;
  d[0] = dprev;
  for (int i = 1; i < n; ++i) {
    const std::int64_t o = i * stride;
    const T ai = a[o];
    const T t = ai * cprev;
    den = b[o] - t;
    if (!pivot_ok(den, abs_of(b[o]) + abs_of(t))) return i;
    inv = T(1) / den;
    cprev = i + 1 < n ? c[o] * inv : T(0);
    dprev = (d[o] - ai * dprev) * inv;
    cp[o] = cprev;
    d[o] = dprev;
  }
  T x = dprev;
  for (int i = n - 2; i >= 0; --i) {
    const std::int64_t o = i * stride;
    x = d[o] - cp[o] * x;
    d[o] = x;
  }
  return -1;
}

}  // namespace gridsolve::tridiag
