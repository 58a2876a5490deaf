// Strided batches of systems of 16 to 4096 rows in one pass, whole systems per block.
//
// With the rows of a system adjacent, a block can take whole systems (as many as fit in
// 4096 rows) and read each of a, b, c, d once in whole 128-byte lines: a, c and d are
// copied straight into the shared memory where their eliminated form will live (3 words a
// row, 96 KB in double for 4096 rows: two blocks per SM), 32 consecutive rows per warp
// instruction; b, needed only while eliminating, goes to registers, each thread loading
// the 16 consecutive rows of its partition (a warp's 32 lines complete within 8 loads of
// 16 bytes, or 16 of one element where the block's rows are not 16-byte aligned).
// x leaves through shared memory, again 32 consecutive rows per instruction. 5 words per
// unknown and nothing else; the couplings across the block's system boundaries are
// masked to zero, so the block solves one block-diagonal system.
//
// Levels, as in interleaved_clusters.cuh:
//  1. each of the 256 threads eliminates its partition of 16 rows in place into the
//     partition form (interior unknowns in terms of the partition's first and last);
//  2. the partitions' first and last rows, a unit-diagonal chain of 512 rows, are
//     eliminated alike in groups of 8, a thread per group;
//  3. the groups' end rows (128) are solved by parallel cyclic reduction, a thread each;
//  4. the levels are undone in reverse and x is stored.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/partition_form.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::tridiag::strided {

using FailFlag = unsigned long long;

constexpr int partition_rows = 16;
constexpr int block_threads = 256;  // a partition each
constexpr int block_rows = partition_rows * block_threads;
constexpr int group_rows = 8;                             // chain rows per group, level 2
constexpr int top_rows = 4 * block_threads / group_rows;  // groups' end rows, level 3
constexpr int min_rows = partition_rows;  // a partition then holds at most one system start

// Shared memory slot of row k of partition t: each partition's 16 rows permuted by an
// XOR with t, so that 32 threads reading one row each of their partitions, and a warp
// copying 32 consecutive rows, fall in distinct banks (2 per 8-byte bank, the minimum),
// without padding.
__device__ inline int slot(int t, int k) {
  return t * partition_rows + (k ^ (t & (partition_rows - 1)));
}

// A partition's rows in shared memory, through slot().
template <class T>
struct SwizzledRows {
  T* base;
  int t;
  __device__ T& operator[](int k) const { return base[slot(t, k)]; }
};

template <class T>
constexpr std::size_t shared_bytes() {
  return (std::size_t(3) * block_rows + std::size_t(4) * top_rows) * sizeof(T);
}

// Systems per block, as many as 4096 rows hold.
inline int systems_per_block(int n) {
  return block_rows / n;
}

template <class T>
__global__ void __launch_bounds__(block_threads, 2)
    strided_blocks_kernel(Batch<T> bt, int systems_per_block, FailFlag* flag) {
  constexpr int M = partition_rows, Q = group_rows, R = top_rows;
  extern __shared__ unsigned char smem_raw[];
  T* sa = reinterpret_cast<T*>(smem_raw);
  T* sc = sa + block_rows;
  T* sd = sc + block_rows;
  T* ga = sd + block_rows;
  T* gc = ga + R;
  T* gd = gc + R;
  T* gx = gd + R;

  const int n = bt.n, t = int(threadIdx.x);
  const std::int64_t s0 = std::int64_t(blockIdx.x) * systems_per_block;
  const std::int64_t r0 = s0 * n;  // the block's first row in the batch
  const std::int64_t left = bt.count - s0;
  const int rows = int(left < systems_per_block ? left : systems_per_block) * n;

  // a, c, d into their slots, 32 consecutive rows per warp instruction; rows past the
  // block's systems are identity rows (b = 1 below).
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const int i = j * block_threads + t, o = slot(i / M, i % M);
    if (i < rows) {
      __pipeline_memcpy_async(sa + o, bt.a + r0 + i, sizeof(T));
      __pipeline_memcpy_async(sc + o, bt.c + r0 + i, sizeof(T));
      __pipeline_memcpy_async(sd + o, bt.d + r0 + i, sizeof(T));
    } else {
      sa[o] = T(0), sc[o] = T(0), sd[o] = T(0);
    }
  }
  __pipeline_commit();
  const int i0 = t * M;  // this thread's partition: rows i0 .. i0 + 15 of the block
  T b[M];
  if (i0 + M <= rows && reinterpret_cast<std::uintptr_t>(bt.b + r0) % 16 == 0) {
    // 16-byte loads where the block's rows are 16-byte aligned: a half (double) or a
    // quarter (float) of the load instructions, and L1 lookups (32 lines each), of
    // one-element loads.
    using V = std::conditional_t<sizeof(T) == 8, double2, float4>;
    constexpr int W = int(sizeof(V) / sizeof(T));
    const V* src = reinterpret_cast<const V*>(bt.b + r0 + i0);
#pragma unroll
    for (int q = 0; q < M / W; ++q) {
      const V v = src[q];
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (int w = 0; w < W; ++w) b[q * W + w] = e[w];
    }
  } else {
#pragma unroll
    for (int k = 0; k < M; ++k) b[k] = i0 + k < rows ? bt.b[r0 + i0 + k] : T(1);
  }
  __pipeline_wait_prior(0);
  __syncthreads();

  std::int64_t bad = -1;  // first failed row, as an index into the batch
  auto fail = [&](int i) {
    if (bad < 0) bad = r0 + i;
  };
  auto check = [&](T pivot, T scale, int i) {
    if (!pivot_ok(pivot, scale)) fail(i);
  };
  // The couplings across system boundaries are not part of the systems: a at a system's
  // first row and c at its last become 0 (n >= 16: at most one of each per partition).
  {
    const int pos = i0 % n;
    const int first = pos == 0 ? 0 : n - pos, last = n - 1 - pos;
    if (first < M) sa[slot(t, first)] = T(0);
    if (last < M) sc[slot(t, last)] = T(0);
  }

  // Level 1: the partition's rows in place, as in eliminate_partition but with a, c, d
  // in shared memory and b in registers.
  SwizzledRows<T> A{sa, t}, C{sc, t}, D{sd, t};
  T ap = 0, cp = 0, dp = 0;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    T ak = A[k], ck = C[k], dk = D[k];
    eliminate_downward_row(k, ak, b[k], ck, dk, ap, cp, dp,
                           [&](T pivot, T scale) { check(pivot, scale, i0 + k); });
    A[k] = ak, C[k] = ck, D[k] = dk;
    ap = ak, cp = ck, dp = dk;
  }
  eliminate_upward<T, M>(A, C, D, [&](T pivot, T scale) { check(pivot, scale, i0); });
  // A failed pivot's inf or NaN crosses the zero couplings between systems in the levels
  // below (0 * NaN), where it would fail pivots of other systems: those levels report
  // only while the block has no failure yet.
  bool failed = __syncthreads_or(bad >= 0);

  // Level 2: chain row j is the first (j even) or last row of partition j / 2.
  auto chain_at = [](int j) { return slot(j / 2, j % 2 ? M - 1 : 0); };
  auto chain_row = [](int j) { return (j / 2) * M + (j % 2 ? M - 1 : 0); };
  if (t < R / 2) {
    const int j0 = t * Q;
    const int f = eliminate_chain(
        sa, sc, sd, [&](int k) { return chain_at(j0 + k); }, Q);
    if (f >= 0 && !failed) fail(chain_row(j0 + f));
    const int of = chain_at(j0), ol = chain_at(j0 + Q - 1);
    ga[2 * t] = sa[of], gc[2 * t] = sc[of], gd[2 * t] = sd[of];
    ga[2 * t + 1] = sa[ol], gc[2 * t + 1] = sc[ol], gd[2 * t + 1] = sd[ol];
  }
  failed = __syncthreads_or(bad >= 0);

  // Level 3: parallel cyclic reduction over the groups' end rows, keeping unit
  // diagonals; after it each row reads x = d. It stops at the first step with a failed
  // pivot (the block's result is then not used).
  for (int h = 1; h < R; h *= 2) {
    T na = 0, nc = 0, nd = 0;
    bool ok = true;
    if (t < R) {
      const T a = ga[t], c = gc[t];
      T am = 0, cm = 0, dm = 0, aq = 0, cq = 0, dq = 0;
      if (t - h >= 0) am = ga[t - h], cm = gc[t - h], dm = gd[t - h];
      if (t + h < R) aq = ga[t + h], cq = gc[t + h], dq = gd[t + h];
      const T t1 = a * cm, t2 = c * aq, den = T(1) - t1 - t2;
      ok = pivot_ok(den, T(1) + abs_of(t1) + abs_of(t2));
      const T r = reciprocal(den);
      na = -a * am * r;
      nc = -c * cq * r;
      nd = (gd[t] - a * dm - c * dq) * r;
    }
    if (__syncthreads_or(!ok)) {
      if (!ok && !failed) fail(chain_row((t / 2) * Q + (t % 2 ? Q - 1 : 0)));
      break;
    }
    if (t < R) ga[t] = na, gc[t] = nc, gd[t] = nd;
    __syncthreads();
  }
  if (t < R) gx[t] = gd[t];
  __syncthreads();

  // Undo level 2 for this partition's two chain rows, then level 1; x over d.
  T ends[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = 2 * t + h, g = j / Q, k = j % Q;
    const T xf = gx[2 * g], xl = gx[2 * g + 1];
    const int o = chain_at(j);
    ends[h] = k == 0 ? xf : k == Q - 1 ? xl : sd[o] - sa[o] * xf - sc[o] * xl;
  }
#pragma unroll
  for (int k = 0; k < M; ++k) {
    D[k] = k == 0 ? ends[0] : k == M - 1 ? ends[1] : D[k] - A[k] * ends[0] - C[k] * ends[1];
  }
  if (bad >= 0) atomicMin(flag, FailFlag(bad));
  __syncthreads();
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const int i = j * block_threads + t;
    if (i < rows) bt.d[r0 + i] = sd[slot(i / M, i % M)];
  }
}

template <class T>
void launch_strided_blocks(const Batch<T>& bt, FailFlag* flag) {
  require(bt.layout == Layout::strided && bt.n >= min_rows && bt.n <= block_rows,
          "strided block tridiagonal solve: systems of 16 to 4096 rows, strided");
  static const bool configured = [] {
    cuda::check(
        cudaFuncSetAttribute(strided_blocks_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(shared_bytes<T>())),
        "cudaFuncSetAttribute");
    cuda::check(cudaFuncSetAttribute(strided_blocks_kernel<T>,
                                     cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared),
                "cudaFuncSetAttribute");
    return true;
  }();
  (void)configured;
  const int per_block = systems_per_block(bt.n);
  const std::int64_t blocks = (std::int64_t(bt.count) + per_block - 1) / per_block;
  strided_blocks_kernel<T>
      <<<unsigned(blocks), block_threads, shared_bytes<T>()>>>(bt, per_block, flag);
  cuda::check_launch("strided block tridiagonal kernel");
}

}  // namespace gridsolve::tridiag::strided
