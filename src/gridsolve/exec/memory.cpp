#include "gridsolve/exec/memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <new>

#include "gridsolve/core/error.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gridsolve {

namespace {
// Sizes of live device allocations, for the in-use and peak figures.
std::mutex allocations_mutex;
std::unordered_map<void*, std::size_t> allocations;
std::size_t bytes_in_use = 0, bytes_peak = 0;

std::string gib(std::size_t bytes) {
  return fmt::format("{:.3f} GiB", bytes / 1073741824.0);
}

#if GRIDSOLVE_HAVE_CUDA
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw Error(fmt::format("CUDA {} failed: {}", what, cudaGetErrorString(err)),
                Error::Kind::runtime);
  }
}
cudaMemcpyKind kind_of(Device dst, Device src) {
  if (dst == Device::cuda && src == Device::cuda) return cudaMemcpyDeviceToDevice;
  if (dst == Device::cuda) return cudaMemcpyHostToDevice;
  if (src == Device::cuda) return cudaMemcpyDeviceToHost;
  return cudaMemcpyHostToHost;
}
#endif
}  // namespace

void* allocate_bytes(Device d, std::size_t bytes) {
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      cudaGetLastError();
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw Error(fmt::format("out of GPU memory: asked for {}, {} free of {} ({})", gib(bytes),
                              gib(free_b), gib(total_b), cudaGetErrorString(err)),
                  Error::Kind::runtime);
    }
    {
      std::lock_guard<std::mutex> lock(allocations_mutex);
      allocations[p] = bytes;
      bytes_in_use += bytes;
      bytes_peak = std::max(bytes_peak, bytes_in_use);
    }
    return p;
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  // 256-byte alignment keeps padded rows aligned for vector loads.
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    throw Error(fmt::format("out of host memory: asked for {}", gib(bytes)), Error::Kind::runtime);
  return p;
}

void free_bytes(Device d, void* p) noexcept {
  if (!p) return;
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    cudaFree(p);
    std::lock_guard<std::mutex> lock(allocations_mutex);
    const auto it = allocations.find(p);
    if (it != allocations.end()) {
      bytes_in_use -= it->second;
      allocations.erase(it);
    }
#endif
    return;
  }
  std::free(p);
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_device == Device::cpu && src_device == Device::cpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if GRIDSOLVE_HAVE_CUDA
  check(cudaMemcpy(dst, src, bytes, kind_of(dst_device, src_device)), "memcpy");
#else
  throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
}

void zero_bytes(Device d, void* p, std::size_t bytes) {
  if (bytes == 0) return;
  if (d == Device::cpu) {
    std::memset(p, 0, bytes);
    return;
  }
#if GRIDSOLVE_HAVE_CUDA
  check(cudaMemset(p, 0, bytes), "memset");
#endif
}

std::size_t device_bytes_in_use() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  return bytes_in_use;
}

std::size_t device_bytes_peak() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  return bytes_peak;
}

void reset_device_bytes_peak() {
  std::lock_guard<std::mutex> lock(allocations_mutex);
  bytes_peak = bytes_in_use;
}

void synchronize(Device d) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda) check(cudaDeviceSynchronize(), "kernel execution");
#else
  (void)d;
#endif
}

}  // namespace gridsolve
