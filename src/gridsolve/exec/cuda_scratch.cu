// Device scratch for reductions, one per stream the exec layer launches on (one per host
// thread), grown on demand and kept for the thread's lifetime.
#include <cuda_runtime.h>

#include <algorithm>

#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve::cuda {

namespace {
// Freed with its thread; a reduction still queued on the thread's stream finishes
// first, because freeing device memory waits for the device.
struct Scratch {
  void* p = nullptr;
  std::size_t have = 0;
  ~Scratch() {
    if (p) free_bytes(Device::cuda, p);
  }
};
}  // namespace

void* reduce_scratch(std::size_t bytes) {
  thread_local Scratch s;
  if (bytes > s.have) {
    if (s.p) {
      // Reductions already queued may still read the old block.
      check(cudaStreamSynchronize(exec_stream()), "reduction scratch");
      free_bytes(Device::cuda, s.p);
      s.p = nullptr;
      s.have = 0;
    }
    s.p = allocate_bytes(Device::cuda, bytes);
    s.have = bytes;
  }
  return s.p;
}

int reduce_sms() {
  static const int sms = [] {
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    return n > 0 ? std::min(n, 1024) : 128;
  }();
  return sms;
}

}  // namespace gridsolve::cuda
