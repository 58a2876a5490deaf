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
constexpr int k_threads = 512;

// f(i, j, k) at every node of b, the block's threads taking them in turn; then a barrier,
// after which every thread of the block sees what the loop wrote (global memory too).
template <class F>
__device__ void block_for_each(const Box& b, const F& f) {
  if (!b.empty()) {
    const int nx = b.extent(0), ny = b.extent(1);
    const int count = nx * ny * b.extent(2);
    for (int q = int(threadIdx.x); q < count; q += k_threads) {
      const int row = q / nx;
      f(b.lo[0] + (q - row * nx), b.lo[1] + row % ny, b.lo[2] + row / ny);
    }
  }
  __syncthreads();
}

// One colour's nodes of b updated in place (a node's update reads only the other colour),
// as colour_update does over a launch.
template <class T, class U>
__device__ void block_colour_pass(const Box& b, int colour, const U& update,
                                  const FieldView<T>& v) {
  if (!b.empty()) {
    const FieldView<const T> in(v);
    const int nx = b.extent(0), ny = b.extent(1), per_row = (nx + 1) / 2;
    const int count = per_row * ny * b.extent(2);
    for (int q = int(threadIdx.x); q < count; q += k_threads) {
      const int row = q / per_row;
      const int j = b.lo[1] + row % ny, k = b.lo[2] + row / ny;
      const int i = b.lo[0] + ((b.lo[0] + j + k + colour) & 1) + 2 * (q - row * per_row);
      if (i <= b.hi[0]) v(i, j, k) = update(update.row(i, j, k), in, i, j, k);
    }
  }
  __syncthreads();
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
    block_for_each(below.a.active,
                   RestrictBody<T, Dims>{L.to_coarse, FieldView<const T>(L.r), below.rhs, below.a,
                                         L.nodes, L.positional});
    for (std::int64_t q = threadIdx.x; q < below.u_size; q += k_threads) below.u_storage[q] = T(0);
    __syncthreads();
  }
  {
    // The coarsest level: gather its right-hand side, multiply by the inverse, scatter.
    const BlockLevel<T>& L = c.level[last];
    const BlockCoarsest<T>& s = c.coarsest;
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
