#include "gridsolve/exec/device.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "gridsolve/core/error.hpp"

#if GRIDSOLVE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gridsolve {

std::string to_string(Device d) {
  return d == Device::cuda ? "cuda" : "cpu";
}

std::string cuda_unavailable_reason() {
#if GRIDSOLVE_HAVE_CUDA
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fmt::format("no usable CUDA device ({})", cudaGetErrorString(err));
  }
  if (count == 0) return "no CUDA device found";
  return {};
#else
  return "this build of gridsolve has no CUDA support";
#endif
}

bool cuda_available() {
  static const bool available = cuda_unavailable_reason().empty();
  return available;
}

Device select_device(const std::string& name) {
  if (name == "cpu") return Device::cpu;
  if (name == "auto") return cuda_available() ? Device::cuda : Device::cpu;
  if (name == "cuda" || name == "gpu") {
    if (!cuda_available())
      throw Error(fmt::format("--device cuda was asked for, but {}", cuda_unavailable_reason()));
    return Device::cuda;
  }
  throw Error(fmt::format("device must be auto, cpu or cuda, got '{}'", name));
}

std::vector<DeviceInfo> cuda_devices() {
  std::vector<DeviceInfo> out;
#if GRIDSOLVE_HAVE_CUDA
  if (!cuda_available()) return out;
  int count = 0;
  cudaGetDeviceCount(&count);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    DeviceInfo info;
    info.name = p.name;
    info.multiprocessors = p.multiProcessorCount;
    info.memory_gib = double(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d);
    info.peak_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    info.compute_major = p.major;
    info.compute_minor = p.minor;
    out.push_back(info);
  }
#endif
  return out;
}

int cpu_threads() {
  return omp_get_max_threads();
}

void use_gpu_of_local_rank(int local_rank) {
#if GRIDSOLVE_HAVE_CUDA
  if (!cuda_available()) return;
  int count = 0;
  cudaGetDeviceCount(&count);
  if (count > 0) cudaSetDevice(local_rank % count);
  cudaGetLastError();  // a failure here shows again, with its reason, at first use
#else
  (void)local_rank;
#endif
}

int current_gpu() {
#if GRIDSOLVE_HAVE_CUDA
  if (!cuda_available()) return -1;
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return d;
#else
  return -1;
#endif
}

}  // namespace gridsolve
