#include "gridsolve/solve/multigrid/block_cycle.hpp"

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/multigrid/level_bodies.hpp"

#if defined(__CUDACC__)
#include "gridsolve/exec/cuda_launch.cuh"
#endif

namespace gridsolve::multigrid {

#if defined(__CUDACC__)
namespace {

// One block of 512 threads: a level of a few thousand nodes is a few nodes a thread, and
// the loop bodies keep the registers they need (at 1024 threads they would be held to 64).
// A stage is bound by its slowest warp's chain of dependent instructions (the row's loads,
// the update's arithmetic and division), not by memory: on an H200 the DFG 2D-2
// pressure's levels of 88 x 33 nodes and below (block_nodes 4096) took 158 us a cycle in
// the block (270 k warp instructions, most of the time at barriers waiting for the
// busiest warps), about what their 60 launches took. Tried and slower: two nodes a thread
// in flight together with the levels' arrays prefetched to L2 at the start (200 us), rows
// shared out among the warps (240 us), 1024 threads (330 us: registers spilled).
constexpr int k_threads = 512;

// f(b.lo[0], j, k, t) for the rows (j, k) = (b.lo[1] + row % ny, b.lo[2] + row / ny),
// row < rows, and t < per_row in each (f makes its i of t), numbered row by row and taken
// by the block's threads in turn: each thread steps its own indices on by the block's
// width instead of dividing its number out each time, and the box and the body are the
// thread's own copies (registers), which the loop's stores to global memory cannot be
// taken to change. Then a barrier, after which every thread of the block sees what the
// loop wrote (global memory too).
template <class F>
__device__ void block_rows(const Box b, int per_row, int rows, const F f) {
  const int ny = b.extent(1), count = per_row * rows;
  int q = int(threadIdx.x);
  if (q < count) {
    const int row0 = q / per_row, row_step = k_threads / per_row;
    const int t_step = k_threads - row_step * per_row;
    int t = q - row0 * per_row, j = row0 % ny, k = row0 / ny;
    for (; q < count; q += k_threads) {
      f(b.lo[0], b.lo[1] + j, b.lo[2] + k, t);
      t += t_step;
      j += row_step;
      if (t >= per_row) t -= per_row, ++j;
      while (j >= ny) j -= ny, ++k;
    }
  }
  __syncthreads();
}

// f(i, j, k) at every node of b.
template <class F>
__device__ void block_for_each(const Box b, const F f) {
  if (b.empty()) {
    __syncthreads();
    return;
  }
  block_rows(b, b.extent(0), b.extent(1) * b.extent(2),
             [&](int lo, int j, int k, int t) { f(lo + t, j, k); });
}

// One colour's nodes of b updated in place (a node's update reads only the other colour),
// as colour_update does over a launch.
template <class T, class U>
__device__ void block_colour_pass(const Box b, int colour, const U update, const FieldView<T> v) {
  if (b.empty()) {
    __syncthreads();
    return;
  }
  const FieldView<const T> in(v);
  const int hi = b.hi[0];
  block_rows(b, (b.extent(0) + 1) / 2, b.extent(1) * b.extent(2), [&](int lo, int j, int k, int t) {
    const int i = lo + ((lo + j + k + colour) & 1) + 2 * t;
    if (i <= hi) v(i, j, k) = update(update.row(i, j, k), in, i, j, k);
  });
}

// `sweeps` red-black Gauss-Seidel sweeps of level L, each colour `first` then the other.
template <class T>
__device__ void block_smooth(const BlockLevel<T>& L, int sweeps, int first) {
  for (int s = 0; s < 2 * sweeps; ++s) {
    const int colour = s % 2 == 0 ? first : 1 - first;
    if (L.a.uniform && !L.a.mask)
      block_colour_pass(L.a.active, colour, uniform_gs_update(L.a), L.u);
    else
      block_colour_pass(L.a.active, colour, GsUpdate<T>{L.a}, L.u);
  }
}

// The launched cycle's steps (MultigridHierarchy::cycle_at) level by level, a barrier
// between each. The cycle's description stays in the launch's parameter space
// (__grid_constant__): the levels are indexed at run time, and a copy would be a few
// kilobytes of local memory a thread.
template <class T, int Dims>
__global__ void __launch_bounds__(k_threads)
    block_cycle_kernel(const __grid_constant__ BlockCycle<T> c, int start, int post_first) {
  const int last = c.count - 1;
  for (int l = start; l < last; ++l) {
    const BlockLevel<T>& L = c.level[l];
    const BlockLevel<T>& below = c.level[l + 1];
    block_smooth(L, c.pre_smooth, 0);
    const FieldView<const T> u(L.u);
    if (L.a.uniform && !L.a.mask)
      block_for_each(L.a.active, UniformResidualBody<T, Dims == 3>{L.a, u, L.r});
    else
      block_for_each(L.a.active, ResidualBody<T>{L.a, u, L.r});
    // The level below's correction zeroed in the restriction's stage (neither reads it).
    T* const zero = below.u_storage;
    for (std::int64_t q = threadIdx.x, n = below.u_size; q < n; q += k_threads) zero[q] = T(0);
    block_for_each(below.a.active,
                   RestrictBody<T, Dims>{L.to_coarse, FieldView<const T>(L.r), below.rhs, below.a,
                                         L.nodes, L.positional});
  }
  {
    // The coarsest level: gather its right-hand side, multiply by the inverse, scatter.
    const BlockLevel<T>& L = c.level[last];
    const BlockCoarsest<T> s = c.coarsest;
    const FieldView<const T> u(L.u);
    for (int r = int(threadIdx.x); r < s.n; r += k_threads)
      s.rhs[r] = L.a.known_rhs(u, s.nodes[3 * r], s.nodes[3 * r + 1], s.nodes[3 * r + 2]);
    __syncthreads();
    for (int r = int(threadIdx.x); r < s.n; r += k_threads) {
      T x = 0;
      for (int col = 0; col < s.n; ++col) x += s.inverse[std::size_t(r) * s.n + col] * s.rhs[col];
      s.x[r] = x;
    }
    __syncthreads();
    for (int r = int(threadIdx.x); r < s.n; r += k_threads)
      L.u(s.nodes[3 * r], s.nodes[3 * r + 1], s.nodes[3 * r + 2]) = s.x[r];
    __syncthreads();
  }
  for (int l = last - 1; l >= start; --l) {
    const BlockLevel<T>& L = c.level[l];
    block_for_each(L.a.active, InterpolateAddBody<T, Dims>{
                                   L.to_coarse, FieldView<const T>(c.level[l + 1].u), L.u, L.a});
    block_smooth(L, c.post_smooth, post_first);
  }
}

}  // namespace
#endif

template <class T>
void run_block_cycle(const BlockCycle<T>& c, int start, bool reverse_post) {
  require(c.count >= 1 && c.count <= k_block_cycle_levels && start >= 0 && start < c.count,
          "multigrid: a block cycle's levels are out of range");
#if defined(__CUDACC__)
  if (c.dims == 3)
    block_cycle_kernel<T, 3><<<1, k_threads, 0, cuda::exec_stream()>>>(c, start, reverse_post);
  else
    block_cycle_kernel<T, 2><<<1, k_threads, 0, cuda::exec_stream()>>>(c, start, reverse_post);
  cuda::check_launch("multigrid block cycle launch");
#else
  throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
}

template void run_block_cycle<float>(const BlockCycle<float>&, int, bool);
template void run_block_cycle<double>(const BlockCycle<double>&, int, bool);

}  // namespace gridsolve::multigrid
