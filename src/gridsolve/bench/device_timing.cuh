// Device-event timing for the GPU benchmarks: the median of repeated runs after warm-up.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gridsolve/exec/cuda_check.hpp"

namespace gridsolve::bench {

// Median over `repeats` of the device time of f, after two warm-up calls; `reset` runs
// before each call, outside the timed region.
template <class F, class R>
double time_ms(int repeats, F f, R reset) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 2; ++w) reset(), f();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    reset();
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms);
  }
  cuda::check(cudaGetLastError(), "benchmark");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <class F>
double time_ms(int repeats, F f) {
  return time_ms(repeats, f, [] {});
}

}  // namespace gridsolve::bench
