// Wall-clock timing of host work, shared by the CPU benchmarks: one warm-up run, then the
// median of `repeats` timed runs. `reset` runs before each run, untimed (to restore the
// unsorted keys a sort consumed, say).
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

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

}  // namespace gridsolve::bench
