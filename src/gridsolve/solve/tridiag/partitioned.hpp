// Partitioned elimination for one long system: local sweeps, a reduced system, fix-up.
#pragma once
#include <cstdint>

#include "gridsolve/solve/tridiag/thomas.hpp"

namespace gridsolve::tridiag::partition {

// Rows [first, last] of partition p of P over n rows (every partition has >= 2 rows
// when P <= n / 2).
GRIDSOLVE_HD inline std::int64_t first_row(std::int64_t p, std::int64_t parts, std::int64_t n) {
  return p * n / parts;
}

// Eliminates the interior rows s+1 .. e-1 of a partition so that each interior
// unknown is x_i = (D_i - G_i x_e - F_i x_s) / Bp_i, and writes the partition's two
// rows of the reduced system (in the unknowns x_s and x_e of every partition, in
// order, which is again tridiagonal) at reduced index 2p and 2p + 1.
// Bp, F, G are scratch indexed like the rows; D is kept in d. Returns -1 or a bad row.
template <class T>
GRIDSOLVE_HD int reduce(std::int64_t s, std::int64_t e, std::int64_t n, const T* a, const T* b,
                        const T* c, T* d, T* Bp, T* F, T* G, T* ra, T* rb, T* rc, T* rd,
                        std::int64_t p) {
  const T as = s > 0 ? a[s] : T(0);
  const T ce = e + 1 < n ? c[e] : T(0);
  if (e - s < 2) {  // two rows, nothing inside
    ra[2 * p] = as, rb[2 * p] = b[s], rc[2 * p] = c[s], rd[2 * p] = d[s];
    ra[2 * p + 1] = a[e], rb[2 * p + 1] = b[e], rc[2 * p + 1] = ce, rd[2 * p + 1] = d[e];
    return -1;
  }
  // Downward: remove x_{i-1} from row i, leaving a coupling F_i to x_s.
  std::int64_t i = s + 1;
  T bp = b[i];
  if (!pivot_ok(bp, abs_of(bp))) return int(i);
  Bp[i] = bp, F[i] = a[i];
  for (i = s + 2; i < e; ++i) {
    const T k = a[i] / Bp[i - 1];
    const T t = k * c[i - 1];
    bp = b[i] - t;
    if (!pivot_ok(bp, abs_of(b[i]) + abs_of(t))) return int(i);
    Bp[i] = bp;
    F[i] = -k * F[i - 1];
    d[i] = d[i] - k * d[i - 1];
  }
  // Upward: remove x_{i+1} from row i, leaving a coupling G_i to x_e.
  G[e - 1] = c[e - 1];
  for (i = e - 2; i > s; --i) {
    const T k = c[i] / Bp[i + 1];
    d[i] = d[i] - k * d[i + 1];
    G[i] = -k * G[i + 1];
    F[i] = F[i] - k * F[i + 1];
  }
  const T q0 = c[s] / Bp[s + 1];
  ra[2 * p] = as;
  rb[2 * p] = b[s] - q0 * F[s + 1];
  rc[2 * p] = -q0 * G[s + 1];
  rd[2 * p] = d[s] - q0 * d[s + 1];
  const T q1 = a[e] / Bp[e - 1];
  ra[2 * p + 1] = -q1 * F[e - 1];
  rb[2 * p + 1] = b[e] - q1 * G[e - 1];
  rc[2 * p + 1] = ce;
  rd[2 * p + 1] = d[e] - q1 * d[e - 1];
  return -1;
}

// With x_s and x_e known (the reduced solution), recovers the interior unknowns.
template <class T>
GRIDSOLVE_HD void finish(std::int64_t s, std::int64_t e, T* d, const T* Bp, const T* F, const T* G,
                         const T* rx, std::int64_t p) {
  const T xs = rx[2 * p], xe = rx[2 * p + 1];
  for (std::int64_t i = s + 1; i < e; ++i) d[i] = (d[i] - G[i] * xe - F[i] * xs) / Bp[i];
  d[s] = xs;
  d[e] = xe;
}

}  // namespace gridsolve::tridiag::partition
