// Interleaved batches solved on chip: a block takes a few whole systems, each split into
// partitions of M rows, one thread per partition; rows stay in registers from the load to
// the store, so the solve moves a, b, c, d in and x out and nothing else.
//
// Each thread eliminates its partition so that every interior unknown is expressed by
// the partition's first and last, x_k = D_k - A_k x_0 - C_k x_{M-1} (a downward and an
// upward sweep over registers), and keeps D, A, C. The partitions' first and last rows
// then form a tridiagonal system of 2 P unknowns per system with a unit diagonal; it is
// solved in shared memory by parallel cyclic reduction, each thread owning its two rows,
// after which each thread knows its x_0 and x_{M-1} and finishes its interior.
//
// Threads are numbered system fastest, so a warp's loads of one row are runs of S
// adjacent systems: whole 32-byte sectors once S * sizeof(T) >= 32. A system must fit in
// a block (P <= max threads); S is as many systems as then fit, up to 32.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/partition_form.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::tridiag::interleaved {

using FailFlag = unsigned long long;

// A thread's rows kept in shared memory instead of registers: row k at base[k * stride]
// (stride = the block's threads, so a warp's accesses to one row are adjacent).
template <class T>
struct SharedRows {
  T* base;
  int stride;
  __device__ T& operator[](int k) const { return base[k * stride]; }
};

// Systems per block for partitions of m rows: the largest power of two (at most 32)
// whose partitions all fit in max_threads; 0 when one system does not.
inline int systems_per_block(int n, int m, int max_threads) {
  const int parts = (n + m - 1) / m;
  if (parts > max_threads) return 0;
  int s = 1;
  while (s < 32 && 2 * s * parts <= max_threads) s *= 2;
  return s;
}

// Loads partition rows i0 .. i0 + M - 1 of system s and eliminates them so that
// x_k = D_k - A_k x_0 - C_k x_{M-1} for the interior rows, while row 0 reads
// A_0 x_{-1} + x_0 + C_0 x_{M-1} = D_0 and row M - 1 reads A x_0 + x_{M-1} + C x_M = D
// (the partition's two rows of the reduced system). Rows past n, and all rows of a system
// past the batch (live false), are identity rows; the last real row's c is taken as 0.
// Failed pivots are recorded in `bad` (as s * n + i, the first one) when `bad` is given.
// A, C, D are M rows of registers (T[M]) or of shared memory (SharedRows).
template <class T, int M, class Rows>
__device__ void eliminate_partition(const Batch<T>& bt, std::int64_t s, int i0, bool live, Rows& A,
                                    Rows& C, Rows& D, std::int64_t* bad) {
  const std::int64_t count = bt.count;
  const int n = bt.n;
  auto check = [&](T pivot, T scale, int i) {
    if (bad && *bad < 0 && live && !pivot_ok(pivot, scale)) *bad = s * n + i;
  };
  // Rows are loaded L at a time, all of a chunk's loads issued before its eliminations.
  // Registers (T[M]) take the whole partition at once. Shared memory takes 4 rows at a
  // time: the compiler cannot move loads past stores to shared memory, which it cannot
  // tell from the inputs, and registers for a whole partition would cost blocks.
  constexpr int L = std::is_array_v<Rows> ? M : M < 4 ? M : 4;
  static_assert(M % L == 0, "partitions are whole load chunks");
  // Downward (partition_form.cuh), the previous row in registers; then upward.
  T ap = 0, cp = 0, dp = 0;
#pragma unroll
  for (int k0 = 0; k0 < M; k0 += L) {
    T qa[L], qb[L], qc[L], qd[L];
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const int i = i0 + k0 + l;
      const bool real = live && i < n;
      const std::int64_t o = std::int64_t(i) * count + s;
      qa[l] = real && i > 0 ? bt.a[o] : T(0);
      qb[l] = real ? bt.b[o] : T(1);
      qc[l] = real && i + 1 < n ? bt.c[o] : T(0);
      qd[l] = real ? bt.d[o] : T(0);
    }
#pragma unroll
    for (int l = 0; l < L; ++l) {
      const int k = k0 + l;
      T ak = qa[l], ck = qc[l], dk = qd[l];
      eliminate_downward_row(k, ak, qb[l], ck, dk, ap, cp, dp,
                             [&](T pivot, T scale) { check(pivot, scale, i0 + k); });
      A[k] = ak, C[k] = ck, D[k] = dk;
      ap = ak, cp = ck, dp = dk;
    }
  }
  eliminate_upward<T, M>(A, C, D, [&](T pivot, T scale) { check(pivot, scale, i0); });
}

// With x_0 and x_{M-1} of the partition known, stores all its real rows.
template <class T, int M, class Rows>
__device__ void finish_partition(const Batch<T>& bt, std::int64_t s, int i0, const Rows& A,
                                 const Rows& C, const Rows& D, T x0, T xl) {
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int i = i0 + k;
    if (i >= bt.n) break;
    const T x = k == 0 ? x0 : k == M - 1 ? xl : D[k] - A[k] * x0 - C[k] * xl;
    bt.d[std::int64_t(i) * bt.count + s] = x;
  }
}

// Shared memory: 4 arrays (a, b, c, d of the reduced rows) of 2 P S elements.
template <class T, int M, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads)
    partitions_kernel(Batch<T> bt, int parts, int systems, FailFlag* flag) {
  extern __shared__ unsigned char smem_raw[];
  T* ra = reinterpret_cast<T*>(smem_raw);
  const int rows = 2 * parts;  // reduced rows per system
  T* rb = ra + rows * systems;
  T* rc = rb + rows * systems;
  T* rd = rc + rows * systems;

  const int tid = int(threadIdx.x);
  const int sl = tid % systems, p = tid / systems;
  const std::int64_t count = bt.count, s = std::int64_t(blockIdx.x) * systems + sl;
  const int n = bt.n, i0 = p * M;
  const bool live = s < count;
  std::int64_t bad = -1;  // first failed row of this thread, as s * n + i
  auto check = [&](T pivot, T scale, int i) {
    if (bad < 0 && live && !pivot_ok(pivot, scale)) bad = s * n + i;
  };
  T A[M], C[M], D[M];
  eliminate_partition<T, M>(bt, s, i0, live, A, C, D, &bad);

  // Reduced system: row 2p is this partition's first row (coupled to the previous
  // partition's last unknown and to this one's last), row 2p + 1 its last (coupled to
  // this one's first and the next one's first). Rows of a system are S apart.
  T ea[2] = {A[0], A[M - 1]}, eb[2] = {T(1), T(1)}, ec[2] = {C[0], C[M - 1]},
    ed[2] = {D[0], D[M - 1]};
  auto at = [&](int j) { return j * systems + sl; };
  for (int step = 1; step < rows; step *= 2) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * p + h;
      ra[at(j)] = ea[h], rb[at(j)] = eb[h], rc[at(j)] = ec[h], rd[at(j)] = ed[h];
    }
    __syncthreads();
    T na[2], nb[2], nc[2], nd[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * p + h;
      T k1 = 0, k2 = 0, am = 0, cm = 0, dm = 0, ap = 0, cp = 0, dp = 0;
      if (j - step >= 0) {
        const int q = at(j - step);
        k1 = ea[h] / rb[q];
        am = ra[q], cm = rc[q], dm = rd[q];
      }
      if (j + step < rows) {
        const int q = at(j + step);
        k2 = ec[h] / rb[q];
        ap = ra[q], cp = rc[q], dp = rd[q];
      }
      const T t1 = k1 * cm, t2 = k2 * ap;
      nb[h] = eb[h] - t1 - t2;
      check(nb[h], abs_of(eb[h]) + abs_of(t1) + abs_of(t2), i0 + (h ? M - 1 : 0));
      na[h] = -k1 * am;
      nc[h] = -k2 * cp;
      nd[h] = ed[h] - k1 * dm - k2 * dp;
    }
    __syncthreads();
#pragma unroll
    for (int h = 0; h < 2; ++h) ea[h] = na[h], eb[h] = nb[h], ec[h] = nc[h], ed[h] = nd[h];
  }
  const T x0 = ed[0] / eb[0], xl = ed[1] / eb[1];

  if (bad >= 0) atomicMin(flag, FailFlag(bad));
  if (live) finish_partition<T, M>(bt, s, i0, A, C, D, x0, xl);
}

// Two passes for batches too large to keep on chip, or systems too long: a thread per
// partition of M rows, threads numbered system fastest (a warp's loads of a row are 32
// adjacent systems, 256 contiguous bytes in double). The reduce pass eliminates each
// partition and writes its two reduced rows, an interleaved batch of 2 P rows per system
// (unit diagonal); that batch is solved by any method; the finish pass reloads the
// partition, repeats the elimination in registers (cheaper than writing and rereading
// three words per row) and stores x. Traffic: 4 + 4 + 1 words per unknown and 10 / M for
// the reduced rows.
template <class T, int M>
__global__ void __launch_bounds__(256)
    reduce_partitions_kernel(Batch<T> bt, int parts, T* ra, T* rb, T* rc, T* rd, FailFlag* flag) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t count = bt.count, s = t % count, p = t / count;
  if (p >= parts) return;
  std::int64_t bad = -1;
  T A[M], C[M], D[M];
  eliminate_partition<T, M>(bt, s, int(p) * M, true, A, C, D, &bad);
  if (bad >= 0) atomicMin(flag, FailFlag(bad));
  const std::int64_t first = (2 * p) * count + s, last = first + count;
  ra[first] = A[0], rb[first] = T(1), rc[first] = C[0], rd[first] = D[0];
  ra[last] = A[M - 1], rb[last] = T(1), rc[last] = C[M - 1], rd[last] = D[M - 1];
}

template <class T, int M>
__global__ void __launch_bounds__(256)
    finish_partitions_kernel(Batch<T> bt, int parts, const T* rx) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t count = bt.count, s = t % count, p = t / count;
  if (p >= parts) return;
  T A[M], C[M], D[M];
  eliminate_partition<T, M>(bt, s, int(p) * M, true, A, C, D, nullptr);
  const std::int64_t first = (2 * p) * count + s;
  finish_partition<T, M>(bt, s, int(p) * M, A, C, D, rx[first], rx[first + count]);
}

// Longest system the on-chip solve takes: 256 partitions of 32 rows.
constexpr int max_rows = 256 * 32;
// When to keep systems on chip rather than make two passes, from measurements on an H200
// in fp64 (ps per unknown, one pass against two): on chip wins for short systems at any
// batch size (64 rows: 13 against 20; 256 rows: 19 against 20) and loses for longer ones
// in large batches (1000 rows: 29 against 21; 4096 rows: 38 against 21); small batches
// stay on chip, where two passes' three launches would dominate.
constexpr int on_chip_rows = 256;
constexpr std::int64_t on_chip_unknowns = std::int64_t(1) << 20;

// Shared memory stays under the default 48 KB: 4 arrays of 2 P S <= 2 MaxThreads elements.
template <class T, int M, int MaxThreads>
void launch_partitions(const Batch<T>& bt, FailFlag* flag) {
  const int systems = systems_per_block(bt.n, M, MaxThreads);
  require(systems > 0, "interleaved on-chip tridiagonal solve: a system longer than a block");
  const int parts = (bt.n + M - 1) / M;
  const std::size_t smem = 4 * std::size_t(2 * parts) * systems * sizeof(T);
  const std::int64_t blocks = (bt.count + systems - 1) / systems;
  partitions_kernel<T, M, MaxThreads>
      <<<unsigned(blocks), unsigned(systems * parts), smem>>>(bt, parts, systems, flag);
}

// The partition length by system length, as measured on an H200 in fp64: short
// partitions keep short systems' blocks full of threads; from a few hundred rows on,
// longer partitions (fewer reduced rows, fewer reduction steps) win.
template <class T>
void solve_on_chip(const Batch<T>& bt, FailFlag* flag) {
  if (bt.n <= 16)
    launch_partitions<T, 8, 512>(bt, flag);
  else if (bt.n <= 256)
    launch_partitions<T, 16, 256>(bt, flag);
  else
    launch_partitions<T, 32, 256>(bt, flag);
}

}  // namespace gridsolve::tridiag::interleaved
