// Interleaved batches of long systems in one pass, on a cluster of blocks.
//
// Reading a, b, c, d once and writing x once (5 words per unknown) needs every system's
// eliminated rows (3 words each) held on chip until the system's reduced equations are
// solved. It also needs whole 128-byte lines per load: on an H100, a kernel that only
// reads and writes these rows the way this one does (16 rows a thread, adjacent systems
// adjacent threads) reaches 47% of the copy bandwidth with 32 adjacent bytes per row,
// 59% with 64 and 89% with 128, even though other blocks read the rest of each line. So
// a block takes S = 128 / sizeof(T) adjacent systems; 4096 rows of them hold 1.5 MB in
// double, more than an SM has, so a cluster of CL blocks (reading each other's shared
// memory) takes them, each block a contiguous range of rows: as few blocks as hold the
// system, of 128 or 256 rows (48 or 96 KB of shared memory), 16 at most (cluster_shape).
// The cluster's size is a launch parameter, not the kernel's: 1 to 16 blocks.
//
// Levels, all with the partition form of eliminate_partition (interior unknowns expressed
// by the first and last of their range, the range's end rows coupled to the neighbours):
//  1. each thread eliminates its partition of M rows into shared memory; partitions'
//     first and last rows form a unit-diagonal chain of 2 P rows per system in the block;
//  2. groups of Q chain rows are eliminated alike in place, a thread per group, and the
//     groups' end rows (a chain of 4 P / Q rows) by one thread per system;
//  3. that chain's end rows, two per block, form a chain of 2 CL rows per system across
//     the cluster; every block gathers it from the others' shared memory and solves it by
//     parallel cyclic reduction (ceil(log2(2 CL)) steps) for its own two unknowns;
//  4. the levels are undone in reverse, a product and two fused multiply-adds per row,
//     and x is stored.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/solve/tridiag/partition_form.cuh"
#include "gridsolve/solve/tridiag/device_reciprocal.cuh"
#include "gridsolve/solve/tridiag/interleaved_partitions.cuh"
#include "gridsolve/solve/tridiag/thomas.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::tridiag::interleaved {

// Chain rows per group in level 2.
constexpr int cluster_group_rows = 8;
// Rows per partition.
constexpr int cluster_partition_rows = 16;
// Blocks per cluster, at most (the largest non-portable cluster size).
constexpr int cluster_max_blocks = 16;

template <class T>
constexpr int cluster_systems() {
  return 128 / int(sizeof(T));  // a whole 128-byte line of adjacent systems per row
}

// Shared memory per block of a cluster of `blocks`: the partitions' rows (a, c, d: M per
// thread), the level-2 chain of 4 P / Q rows per system (a, c, d, x), the cluster's
// chain (a, c, d).
template <class T>
std::size_t cluster_shared_bytes(int blocks, int parts) {
  const int systems = cluster_systems<T>(), threads = parts * systems;
  const int top = 4 * parts / cluster_group_rows;
  return (std::size_t(3) * cluster_partition_rows * threads + std::size_t(4) * top * systems +
          std::size_t(3) * 2 * blocks * systems) *
         sizeof(T);
}

// One group of S systems by one cluster (the kernel's body, one group per cluster) of CL
// blocks, or, with CL = 0, of as many as the launch has.
template <class T, int M, int S, int P, int CL>
__device__ __forceinline__ void solve_cluster_group(const Batch<T>& bt, FailFlag* flag) {
  constexpr int parts = P;
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = int(cluster.block_rank()), blocks = CL > 0 ? CL : int(cluster.num_blocks());
  const std::int64_t group = blockIdx.x / blocks;
  constexpr int Q = cluster_group_rows;
  const int R = 2 * blocks;  // cluster chain rows per system

  extern __shared__ unsigned char smem_raw[];
  const int threads = S * parts, chain = 2 * parts, groups = chain / Q, top = 2 * groups;
  T* pa = reinterpret_cast<T*>(smem_raw);
  T* pc = pa + M * threads;
  T* pd = pc + M * threads;
  T* ga = pd + M * threads;
  T* gc = ga + top * S;
  T* gd = gc + top * S;
  T* gx = gd + top * S;
  T* ca = gx + top * S;
  T* cc = ca + R * S;
  T* cd = cc + R * S;

  const int tid = int(threadIdx.x), sl = tid % S, p = tid / S;
  const std::int64_t count = bt.count;
  const int n = bt.n;
  const std::int64_t s = group * S + sl;
  const bool live = s < count;
  // Chain row j of this system: the first (j even) or last row of partition j / 2.
  auto chain_at = [&](int j) { return (j % 2 ? M - 1 : 0) * threads + (j / 2) * S + sl; };
  std::int64_t bad = -1;  // as s * n + i
  // Notes a failed pivot at chain row j of a block, as the system row behind it.
  auto note = [&](int block, int j) {
    const int i = ((block * parts + j / 2) * M) + (j % 2 ? M - 1 : 0);
    if (bad < 0 && live) bad = s * n + (i < n ? i : n - 1);
  };

  // Level 1: each partition eliminated into shared memory.
  SharedRows<T> A{pa + tid, threads}, C{pc + tid, threads}, D{pd + tid, threads};
  eliminate_partition<T, M>(bt, s, (rank * parts + p) * M, live, A, C, D, &bad);
  __syncthreads();

  // Level 2: groups of Q chain rows in place, then the groups' end rows by one thread per
  // system.
  if (p < groups) {
    const int j0 = p * Q;
    const int b = eliminate_chain(
        pa, pc, pd, [&](int k) { return chain_at(j0 + k); }, Q);
    if (b >= 0) note(rank, j0 + b);
    const int f = 2 * p * S + sl, l = f + S, of = chain_at(j0), ol = chain_at(j0 + Q - 1);
    ga[f] = pa[of], gc[f] = pc[of], gd[f] = pd[of];
    ga[l] = pa[ol], gc[l] = pc[ol], gd[l] = pd[ol];
  }
  __syncthreads();
  if (p == 0) {
    const int b = eliminate_chain(
        ga, gc, gd, [&](int k) { return k * S + sl; }, top);
    if (b >= 0) note(rank, (b / 2) * Q + (b % 2 ? Q - 1 : 0));
  }
  cluster.sync();

  // Level 3: gather the cluster's chain (row 2r + h: block r's first or last end row).
  // All of a thread's remote loads are issued before its stores (which the compiler
  // would otherwise keep in order with them).
  // Rows of the cluster's chain per thread, at most.
  constexpr int own = (2 * (CL > 0 ? CL : cluster_max_blocks) + P - 1) / P;
  constexpr bool ragged = CL == 0 || 2 * CL % P != 0;
  {
    T va[own], vc[own], vd[own];
#pragma unroll
    for (int u = 0; u < own; ++u) {
      const int k = tid + u * threads;
      if (ragged && k >= R * S) continue;
      const int q = k / S, block = q / 2, o = (q % 2 ? top - 1 : 0) * S + k % S;
      va[u] = *cluster.map_shared_rank(ga + o, block);
      vc[u] = *cluster.map_shared_rank(gc + o, block);
      vd[u] = *cluster.map_shared_rank(gd + o, block);
    }
#pragma unroll
    for (int u = 0; u < own; ++u) {
      const int k = tid + u * threads;
      if (ragged && k >= R * S) continue;
      ca[k] = va[u], cc[k] = vc[u], cd[k] = vd[u];
    }
  }
  // The other blocks' shared memory has been read (the values are stored here, so the
  // loads are complete): they may finish once all have arrived. A relaxed arrival: the
  // default one orders memory at GPU scope, a fence that costs microseconds here.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  __syncthreads();
  // Parallel cyclic reduction, keeping unit diagonals: each step row q eliminates
  // x_{q-h} and x_{q+h} through those rows, after which it couples to q +- 2h.
  for (int h = 1; h < R; h *= 2) {
    T na[own], nc[own], nd[own];
#pragma unroll
    for (int u = 0; u < own; ++u) {
      const int q = p + u * parts;
      if (ragged && q >= R) continue;
      const int o = q * S + sl;
      const T a = ca[o], c = cc[o];
      T am = 0, cm = 0, dm = 0, ap = 0, cp = 0, dp = 0;
      if (q - h >= 0) am = ca[o - h * S], cm = cc[o - h * S], dm = cd[o - h * S];
      if (q + h < R) ap = ca[o + h * S], cp = cc[o + h * S], dp = cd[o + h * S];
      const T t1 = a * cm, t2 = c * ap, den = T(1) - t1 - t2;
      if (!pivot_ok(den, T(1) + abs_of(t1) + abs_of(t2))) note(q / 2, q % 2 ? chain - 1 : 0);
      const T r = reciprocal(den);
      na[u] = -a * am * r;
      nc[u] = -c * cp * r;
      nd[u] = (cd[o] - a * dm - c * dp) * r;
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < own; ++u) {
      const int q = p + u * parts;
      if (ragged && q >= R) continue;
      const int o = q * S + sl;
      ca[o] = na[u], cc[o] = nc[u], cd[o] = nd[u];
    }
    __syncthreads();
  }
  if (p == 0) gx[sl] = cd[2 * rank * S + sl], gx[(top - 1) * S + sl] = cd[(2 * rank + 1) * S + sl];
  __syncthreads();

  // Undo level 2: the groups' end unknowns, then each partition's two.
  for (int k = 1 + p; k < top - 1; k += parts) {
    const int o = k * S + sl;
    gx[o] = gd[o] - ga[o] * gx[sl] - gc[o] * gx[(top - 1) * S + sl];
  }
  __syncthreads();
  T ends[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = 2 * p + h, g = j / Q, k = j % Q;
    const T xf = gx[2 * g * S + sl], xl = gx[(2 * g + 1) * S + sl];
    const int o = chain_at(j);
    ends[h] = k == 0 ? xf : k == Q - 1 ? xl : pd[o] - pa[o] * xf - pc[o] * xl;
  }
  if (live) finish_partition<T, M>(bt, s, (rank * parts + p) * M, A, C, D, ends[0], ends[1]);
  if (bad >= 0) atomicMin(flag, FailFlag(bad));
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

// At most 128 registers a thread, so that blocks of fewer threads (shorter systems) are
// more per SM rather than register-bound. CL > 0: clusters of CL blocks only, the
// cluster's chain solved in loops of known length (measured on an H200 against the cluster
// size read at run time: 4096 rows in 16 blocks 295 against 303 us, 1024 rows in 8
// blocks 255 against 264 us).
template <class T, int M, int S, int P, int CL>
__global__ void __launch_bounds__(S* P, S* P <= 512 ? 512 / (S * P) : 1)
    cluster_partitions_kernel(Batch<T> bt, FailFlag* flag) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  solve_cluster_group<T, M, S, P, CL>(bt, flag);
#endif
}

// Blocks per cluster and partitions per block (and system) by system length: as few
// blocks as hold the system, of 128 rows (48 KB, four per SM) up to 1024 rows, of 256 rows
// (96 KB, two per SM) beyond. Measured on an H100 in fp64 over 2^24 unknowns (% of the
// copy bandwidth at 5 words, one run): 300 rows in 3 blocks of 128 rows 80% (in 2 of 256
// rows 64%, in 4 of 128 69%), 768 rows in 6 of 128 80% (3 of 256: 78%), 1280 rows in 5
// of 256 76% (10 of 128: 55%), 2048 rows in 8 of 256 77% (16 of 128: 59%), 4096 rows in
// 16 of 256 71%. Larger clusters fit fewer at a time: 16 blocks of 256 rows 14 clusters
// on an H100 (224 of its 264 block slots), 12 blocks 16 clusters, 8 blocks 30.
struct ClusterShape {
  int blocks;
  int parts;
};
inline ClusterShape cluster_shape(int n) {
  const int rows = 8 * cluster_partition_rows;
  if (n <= 8 * rows) return {(n + rows - 1) / rows, 8};
  return {(n + 2 * rows - 1) / (2 * rows), 16};
}
// Each kernel's largest cluster (the most shared memory and the most SMs it takes): those
// of run-time size, and those of the two common shapes (1024 and 4096 rows) fixed.
constexpr ClusterShape cluster_largest[] = {{7, 8}, {8, 8}, {15, 16}, {16, 16}};

// Longest system the cluster kernels take, and the shortest they are used for: shorter
// ones are faster whole in a block of interleaved_partitions.cuh (H100, fp64, 2^24
// unknowns, % of the copy bandwidth: 64 rows 92% there against 73% in a cluster of one
// block, 100 rows 69% against 87%, 128 rows 86% against 92%, 256 rows 82% against 90%).
constexpr int cluster_max_rows = cluster_max_blocks * 16 * cluster_partition_rows;
constexpr int cluster_min_rows = 65;

template <class T>
using ClusterKernel = void (*)(Batch<T>, FailFlag*);

template <class T>
ClusterKernel<T> cluster_kernel(ClusterShape shape) {
  constexpr int M = cluster_partition_rows, S = cluster_systems<T>();
  if (shape.parts == 8)
    return shape.blocks == 8 ? cluster_partitions_kernel<T, M, S, 8, 8>
                             : cluster_partitions_kernel<T, M, S, 8, 0>;
  return shape.blocks == 16 ? cluster_partitions_kernel<T, M, S, 16, 16>
                            : cluster_partitions_kernel<T, M, S, 16, 0>;
}

// Launch configuration for `clusters` clusters of the given shape.
template <class T>
cudaLaunchConfig_t cluster_config(std::int64_t clusters, ClusterShape shape,
                                  cudaLaunchAttribute* attribute) {
  constexpr int S = cluster_systems<T>();
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(clusters * shape.blocks));
  config.blockDim = dim3(unsigned(S * shape.parts));
  config.dynamicSmemBytes = cluster_shared_bytes<T>(shape.blocks, shape.parts);
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = unsigned(shape.blocks);
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// Whether the cluster kernels take systems of n rows on the current device (clusters
// need compute capability 9, and 16 blocks enough SMs per GPU processing cluster); the
// kernels' attributes are set on the first call.
template <class T>
bool clusters_fit(int n) {
  if (n > cluster_max_rows || n < cluster_min_rows) return false;
  static const bool supported = [] {
    int device = 0, cc = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, device),
                "cudaDeviceGetAttribute");
    if (cc < 9) return false;
    for (const ClusterShape shape : cluster_largest) {
      const ClusterKernel<T> kernel = cluster_kernel<T>(shape);
      const int bytes = int(cluster_shared_bytes<T>(shape.blocks, shape.parts));
      cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                  "cudaFuncSetAttribute");
      cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared),
                  "cudaFuncSetAttribute");
      cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                  "cudaFuncSetAttribute");
      cudaLaunchAttribute attribute{};
      const cudaLaunchConfig_t config = cluster_config<T>(1, shape, &attribute);
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
      if (clusters == 0) return false;
    }
    return true;
  }();
  return supported;
}

template <class T>
void launch_cluster_partitions(const Batch<T>& bt, FailFlag* flag) {
  require(clusters_fit<T>(bt.n),
          "interleaved cluster tridiagonal solve: not on this device or a system too long");
  constexpr int S = cluster_systems<T>();
  const ClusterShape shape = cluster_shape(bt.n);
  require((bt.count + S - 1) / S * shape.blocks < (std::int64_t(1) << 31),
          "interleaved cluster tridiagonal solve: too many systems for one launch");
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config = cluster_config<T>((bt.count + S - 1) / S, shape, &attribute);
  cuda::check(cudaLaunchKernelEx(&config, cluster_kernel<T>(shape), bt, flag),
              "interleaved cluster tridiagonal launch");
}

}  // namespace gridsolve::tridiag::interleaved
