// Wall-clock timing shared by the benchmarks: one warm-up run, then the median of `repeats`
// timed runs. `reset` runs before each run, untimed (to restore the unsorted keys a sort
// consumed, say). On ranks, every rank timing together.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve::bench {

template <class F, class R>
double median_ms(int repeats, F&& f, R&& reset) {
  reset(), f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    reset();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
double median_ms(int repeats, F&& f) {
  return median_ms(repeats, f, [] {});
}

// median_ms of f (one warm-up run, then `repeats` timed ones), each run ending with device
// d's work done and starting after `reset`; with `all` every rank of the run times f, the
// runs starting together (a barrier), and the slowest rank's median counts.
template <class F, class R>
double ranks_median_ms(int repeats, Device d, bool all, F&& f, R&& reset) {
  const Communicator& comm = Communicator::world();
  const double mine = median_ms(
      repeats,
      [&] {
        f();
        synchronize(d);
      },
      [&] {
        reset();
        if (all) comm.barrier();
      });
  return all ? comm.max(mine) : mine;
}
template <class F>
double ranks_median_ms(int repeats, Device d, bool all, F&& f) {
  return ranks_median_ms(repeats, d, all, f, [] {});
}

}  // namespace gridsolve::bench
