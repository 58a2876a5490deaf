// Device scratch for reductions, grown on demand and kept for the process lifetime.
#include <cuda_runtime.h>

#include <mutex>

#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve::cuda {

void* reduce_scratch(std::size_t bytes) {
  static std::mutex m;
  static void* p = nullptr;
  static std::size_t have = 0;
  std::lock_guard<std::mutex> lock(m);
  if (bytes > have) {
    if (p) cudaFree(p);
    p = allocate_bytes(Device::cuda, bytes);
    have = bytes;
  }
  return p;
}

int reduce_blocks() {
  static const int blocks = [] {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return sms > 0 ? 4 * sms : 512;
  }();
  return blocks;
}

}  // namespace gridsolve::cuda
