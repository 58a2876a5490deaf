// Cyclic reduction (CR) and parallel cyclic reduction (PCR) for one system of any size.
#pragma once
#include <cstdint>

#include "gridsolve/solve/tridiag/thomas.hpp"

namespace gridsolve::tridiag {

// One CR elimination of row j against rows j - s and j + s (j + s may be past the end).
// k2 divides by b_{j+s}: a common printed form divides by b_j, which agrees only when
// the coefficients are constant, so constant-coefficient tests cannot tell the two apart.
// Returns false when the new pivot is lost to cancellation.
template <class T>
GRIDSOLVE_HD inline bool cr_eliminate(T* a, T* b, T* c, T* d, int j, int s, int n) {
  const T k1 = a[j] / b[j - s];
  const bool has_up = j + s < n;
  const T k2 = has_up ? c[j] / b[j + s] : T(0);
  const T t1 = c[j - s] * k1;
  const T t2 = has_up ? a[j + s] * k2 : T(0);
  const T bj = b[j] - t1 - t2;
  const bool ok = pivot_ok(bj, abs_of(b[j]) + abs_of(t1) + abs_of(t2));
  b[j] = bj;
  d[j] = d[j] - d[j - s] * k1 - (has_up ? d[j + s] * k2 : T(0));
  a[j] = -a[j - s] * k1;
  c[j] = has_up ? -c[j + s] * k2 : T(0);
  return ok;
}

// CR on contiguous copies a, b, c, d (length n; a[0] and c[n-1] must be zero). Rows
// with (j + 1) a multiple of 2s are reduced at stride s until one row is left; back
// substitution then fills the rows in between. Any n works: neighbours past the end
// are simply absent. d becomes x. Returns -1 or the row whose pivot failed.
template <class T>
GRIDSOLVE_HD int cyclic_reduction_contiguous(int n, T* a, T* b, T* c, T* d) {
  for (int j = 0; j < n; ++j)
    if (!pivot_ok(b[j], abs_of(b[j]))) return j;
  int s = 1;
  for (; 2 * s <= n; s *= 2)
    for (int j = 2 * s - 1; j < n; j += 2 * s)
      if (!cr_eliminate(a, b, c, d, j, s, n)) return j;
  // One row is left at stride s: j = s - 1, decoupled from everything.
  d[s - 1] = d[s - 1] / b[s - 1];
  for (s /= 2; s >= 1; s /= 2)
    for (int j = s - 1; j < n; j += 2 * s) {
      const T lo = j - s >= 0 ? a[j] * d[j - s] : T(0);
      const T hi = j + s < n ? c[j] * d[j + s] : T(0);
      d[j] = (d[j] - lo - hi) / b[j];
    }
  return -1;
}

// CR on a strided system, using work (4n values) for the copies.
template <class T>
GRIDSOLVE_HD int cyclic_reduction(int n, const T* a, const T* b, const T* c, T* d,
                                  std::int64_t stride, T* work) {
  T *wa = work, *wb = work + n, *wc = work + 2 * n, *wd = work + 3 * n;
  for (int i = 0; i < n; ++i) {
    wa[i] = i > 0 ? a[i * stride] : T(0);
    wb[i] = b[i * stride];
    wc[i] = i + 1 < n ? c[i * stride] : T(0);
    wd[i] = d[i * stride];
  }
  const int bad = cyclic_reduction_contiguous(n, wa, wb, wc, wd);
  if (bad >= 0) return bad;
  for (int i = 0; i < n; ++i) d[i * stride] = wd[i];
  return -1;
}

// PCR: every row is reduced at every stride, so after ceil(log2 n) steps each row
// stands alone. O(n log n) work, all of it parallel. work holds 8n values.
template <class T>
GRIDSOLVE_HD int parallel_cyclic_reduction(int n, const T* a, const T* b, const T* c, T* d,
                                           std::int64_t stride, T* work) {
  T *a0 = work, *b0 = work + n, *c0 = work + 2 * n, *d0 = work + 3 * n;
  T *a1 = work + 4 * n, *b1 = work + 5 * n, *c1 = work + 6 * n, *d1 = work + 7 * n;
  for (int i = 0; i < n; ++i) {
    a0[i] = i > 0 ? a[i * stride] : T(0);
    b0[i] = b[i * stride];
    c0[i] = i + 1 < n ? c[i * stride] : T(0);
    d0[i] = d[i * stride];
    if (!pivot_ok(b0[i], abs_of(b0[i]))) return i;
  }
  for (int s = 1; s < n; s *= 2) {
    for (int j = 0; j < n; ++j) {
      const bool lo = j - s >= 0, hi = j + s < n;
      const T k1 = lo ? a0[j] / b0[j - s] : T(0);
      const T k2 = hi ? c0[j] / b0[j + s] : T(0);
      const T t1 = lo ? c0[j - s] * k1 : T(0);
      const T t2 = hi ? a0[j + s] * k2 : T(0);
      b1[j] = b0[j] - t1 - t2;
      if (!pivot_ok(b1[j], abs_of(b0[j]) + abs_of(t1) + abs_of(t2))) return j;
      d1[j] = d0[j] - (lo ? d0[j - s] * k1 : T(0)) - (hi ? d0[j + s] * k2 : T(0));
      a1[j] = lo ? -a0[j - s] * k1 : T(0);
      c1[j] = hi ? -c0[j + s] * k2 : T(0);
    }
    T* t;
    t = a0, a0 = a1, a1 = t;
    t = b0, b0 = b1, b1 = t;
    t = c0, c0 = c1, c1 = t;
    t = d0, d0 = d1, d1 = t;
  }
  for (int i = 0; i < n; ++i) d[i * stride] = d0[i] / b0[i];
  return -1;
}

}  // namespace gridsolve::tridiag
