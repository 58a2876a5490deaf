// Elimination into the partition form, shared by the kernels that give each thread a
// partition of consecutive rows (interleaved_partitions.cuh, interleaved_clusters.cuh,
// strided_blocks.cuh): every interior unknown expressed by the partition's first and
// last, x_k = D_k - A_k x_0 - C_k x_{M-1}, and the partition's end rows coupled to its
// neighbours. The steps work on any rows with operator[] (registers or shared memory);
// where the rows come from is the caller's.
#pragma once
#include <cuda_runtime.h>

#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"

namespace gridsolve::tridiag {

// Downward step at row k of a partition, given its a, b, c, d and row k - 1 already
// eliminated (ap, cp, dp): rows 0 and 1 are normalized; row k >= 2 loses x_{k-1} and
// gains a coupling to x_0: A_k x_0 + x_k + C_k x_{k+1} = D_k. a, c, d become A, C, D.
// check(pivot, scale) sees each pivot.
template <class T, class Check>
__device__ __forceinline__ void eliminate_downward_row(int k, T& a, T b, T& c, T& d, T ap, T cp,
                                                       T dp, Check check) {
  if (k < 2) {
    check(b, abs_of(b));
    const T r = reciprocal(b);
    a *= r, c *= r, d *= r;
  } else {
    const T t = a * cp;
    const T den = b - t;
    check(den, abs_of(b) + abs_of(t));
    const T r = reciprocal(den);
    d = (d - a * dp) * r;
    a = -a * ap * r;
    c *= r;
  }
}

// After the downward steps over all M rows: upward over the interior, row k
// (1 <= k <= M-2) becomes A_k x_0 + x_k + C_k x_{M-1} = D_k (row k + 1 carried in
// registers); row 0 loses x_1 through row 1: A_0 x_{-1} + x_0 + C_0 x_{M-1} = D_0 after
// scaling. check(pivot, scale) sees row 0's pivot.
template <class T, int M, class Rows, class Check>
__device__ __forceinline__ void eliminate_upward(Rows& A, Rows& C, Rows& D, Check check) {
  static_assert(M >= 3, "the first row's elimination needs an interior row");
  T an = A[M - 2], cn = C[M - 2], dn = D[M - 2];
#pragma unroll
  for (int k = M - 3; k >= 1; --k) {
    const T ck = C[k];
    dn = D[k] - ck * dn;
    an = A[k] - ck * an;
    cn = -ck * cn;
    A[k] = an, C[k] = cn, D[k] = dn;
  }
  const T c0 = C[0], t = c0 * an;
  const T den = T(1) - t;
  check(den, T(1) + abs_of(t));
  const T r = reciprocal(den);
  D[0] = (D[0] - c0 * dn) * r;
  A[0] *= r;
  C[0] = -c0 * cn * r;
}

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
