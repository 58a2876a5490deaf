// Turns CUDA return codes into gridsolve::Error with the failing call named.
#pragma once
#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve::cuda {
inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(fmt::format("CUDA {} failed: {}", what, cudaGetErrorString(err)),
                Error::Kind::runtime);
  }
}
inline void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
}
}  // namespace gridsolve::cuda
#endif
