// Elimination of a unit-diagonal chain in shared memory into the partition form: the
// reduction level shared by the kernels that keep eliminated partitions on chip
// (interleaved_clusters.cuh, strided_blocks.cuh).
#pragma once
#include <cuda_runtime.h>

#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"

namespace gridsolve::tridiag {

// Eliminates a unit-diagonal chain of len >= 3 rows (a x_{k-1} + x_k + c x_{k+1} = d,
// row k at offset at(k) in shared memory) in place into the partition form. Returns the
// first row whose pivot failed, or -1. The same sweeps as eliminate_partition, which
// starts from rows in global memory with any diagonal; sharing the upward half between
// them was measured 6 to 14% slower (H100: other registers, other spills).
template <class T, class Index>
__device__ int eliminate_chain(T* a, T* c, T* d, Index at, int len) {
  int bad = -1;
  T ap = a[at(1)], cp = c[at(1)], dp = d[at(1)];  // row k - 1, from row 1
  for (int k = 2; k < len; ++k) {
    const int o = at(k);
    const T ak = a[o], t = ak * cp, den = T(1) - t;
    if (bad < 0 && !pivot_ok(den, T(1) + abs_of(t))) bad = k;
    const T r = reciprocal(den);
    dp = (d[o] - ak * dp) * r;
    ap = -ak * ap * r;
    cp = c[o] * r;
    a[o] = ap, c[o] = cp, d[o] = dp;
  }
  // Row len - 2 already reads x = D - A x_0 - C x_{len-1}; the rows above it follow.
  T an = a[at(len - 2)], cn = c[at(len - 2)], dn = d[at(len - 2)];  // row k + 1
  for (int k = len - 3; k >= 1; --k) {
    const int o = at(k);
    const T ck = c[o];
    dn = d[o] - ck * dn;
    an = a[o] - ck * an;
    cn = -ck * cn;
    a[o] = an, c[o] = cn, d[o] = dn;
  }
  const int o0 = at(0), o1 = at(1);
  const T c0 = c[o0], t = c0 * a[o1], den = T(1) - t;
  if (bad < 0 && !pivot_ok(den, T(1) + abs_of(t))) bad = 0;
  const T r = reciprocal(den);
  d[o0] = (d[o0] - c0 * d[o1]) * r;
  a[o0] *= r;
  c[o0] = -c0 * c[o1] * r;
  return bad;
}

}  // namespace gridsolve::tridiag
