// for_each / for_each_colour / reduce: one loop body, run on the CPU (OpenMP) or the GPU.
#pragma once
#include <cstdint>
#include <limits>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/device.hpp"

#if GRIDSOLVE_HAVE_CUDA && !defined(__CUDACC__)
#error \
    "files that run loop bodies must be compiled as CUDA in a CUDA build (gridsolve_kernel_sources)"
#endif

#if defined(__CUDACC__)
#include "gridsolve/exec/cuda_launch.cuh"
#endif

namespace gridsolve {

// Below this many cells a CPU loop runs on one thread: waking a thread team costs more
// than the loop (multigrid's coarse levels are full of such loops).
constexpr std::int64_t cpu_parallel_threshold = 32768;

struct SumOp {
  template <class T>
  GRIDSOLVE_HD T operator()(T a, T b) const {
    return a + b;
  }
};
// NaN wins, whatever the order the values are combined in: a stopping test on the
// largest update must see a NaN, not skip it.
struct MaxOp {
  template <class T>
  GRIDSOLVE_HD T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};

// Calls f(i, j, k) for every index of the box.
template <class F>
void for_each(Device d, const Box& b, F f) {
  if (b.empty()) return;
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    cuda::launch_box(b, f);
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  const bool parallel = b.cells() >= cpu_parallel_threshold;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
#pragma omp simd
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) f(i, j, k);
}

// Calls f(i, j, k) for the indices of the box with (i + j + k) % 2 == colour.
template <class F>
void for_each_colour(Device d, const Box& b, int colour, F f) {
  if (b.empty()) return;
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    cuda::launch_box_colour(b, colour, f);
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  const bool parallel = b.cells() >= 2 * cpu_parallel_threshold;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j) {
      const int start = b.lo[0] + (((b.lo[0] + j + k) % 2 + 2 + colour) % 2);
      for (int i = start; i <= b.hi[0]; i += 2) f(i, j, k);
    }
}

// Combines f(i, j, k) over the box with op, starting from init (op's identity).
template <class T, class F, class Op>
T reduce(Device d, const Box& b, F f, Op op, T init) {
  if (b.empty()) return init;
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    return cuda::reduce_box<T>(b, f, op, init);
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  T result = init;
  const bool parallel = b.cells() >= cpu_parallel_threshold;
#pragma omp parallel if (parallel)
  {
    T local = init;
#pragma omp for collapse(2) schedule(static) nowait
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) local = op(local, f(i, j, k));
#pragma omp critical(gridsolve_reduce)
    result = op(result, local);
  }
  return result;
}

// Like reduce, but the result lands in *result, memory of device d, without waiting:
// later loop bodies on the same device can read it there. This keeps iterative methods'
// scalars on the GPU, so an iteration needs no host round trip.
template <class T, class F, class Op>
void reduce_into(Device d, const Box& b, F f, Op op, T init, T* result) {
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    if (b.empty()) {
      cuda::check(cudaMemcpy(result, &init, sizeof(T), cudaMemcpyHostToDevice), "reduction init");
      return;
    }
    cuda::reduce_box_async<T>(b, f, op, init, result);
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  *result = reduce<T>(d, b, f, op, init);
}

// The results of several reduce_into calls (count values of memory of device d from
// `results`) read into `host` with one wait, where reduce would wait once for each.
template <class T>
void read_results(Device d, const T* results, T* host, std::size_t count) {
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    cuda::read_back(results, host, count, "reduction results");
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  for (std::size_t q = 0; q < count; ++q) host[q] = results[q];
}

// Runs f() once on the device, for scalar updates that must stay on the device.
template <class F>
void single(Device d, F f) {
  for_each(d, Box{{0, 0, 0}, {0, 0, 0}}, [=] GRIDSOLVE_HD(int, int, int) { f(); });
}

}  // namespace gridsolve
