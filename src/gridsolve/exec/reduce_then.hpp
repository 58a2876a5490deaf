// reduce_then: a sum over one box that a loop over another box reads where it was made.
// On the GPU the total never leaves the device (the next kernel reads the reduction's
// result slot), so a step that rescales or shifts by a sum does not wait on the host.
#pragma once
#include <cstddef>
#include <span>
#include <type_traits>

#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

// Sums f(i, j, k) (a T: double, or a struct of doubles with +) over the box `over`; when
// `over_ranks`, over every rank too, in place (sum_over_ranks: the device link for GPU
// memory; every rank calls it, an empty box giving zero); then calls g(i, j, k, total) at
// every index of the box `at`.
template <class T, class F, class G>
void reduce_then(Device d, const Box& over, F f, bool over_ranks, const Box& at, G g) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(double) == 0,
                "reduce_then sums doubles");
  constexpr std::size_t doubles = sizeof(T) / sizeof(double);
  if (d == Device::cuda) {
#if defined(__CUDACC__)
    // Slot 0 of the reduction scratch, as reduce_box uses it: a later reduction on this
    // stream overwrites it only after the loop below has read it.
    T* total = static_cast<T*>(cuda::reduce_scratch(sizeof(T) * (cuda::reduce_blocks_most + 9)));
    if (over.empty())
      cuda::launch_box(Box{{0, 0, 0}, {0, 0, 0}},
                       [=] GRIDSOLVE_HD(int, int, int) { *total = T{}; });
    else
      cuda::reduce_box_async<T>(over, f, SumOp{}, T{}, total);
    if (over_ranks) sum_over_ranks(d, std::span<double>(reinterpret_cast<double*>(total), doubles));
    if (!at.empty())
      cuda::launch_box(at, [=] GRIDSOLVE_HD(int i, int j, int k) { g(i, j, k, *total); });
    return;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  T total = reduce<T>(d, over, f, SumOp{}, T{});
  if (over_ranks) sum_over_ranks(d, std::span<double>(reinterpret_cast<double*>(&total), doubles));
  for_each(d, at, [=] GRIDSOLVE_HD(int i, int j, int k) { g(i, j, k, total); });
}

}  // namespace gridsolve
