// Device: where loops run and fields live; chosen at run time (auto, cpu, cuda).
#pragma once
#include <string>
#include <vector>

namespace gridsolve {

enum class Device { cpu, cuda };

std::string to_string(Device d);

// "auto" takes the GPU when one is usable, else the CPU; "cuda" without a usable GPU
// is an error that says why.
Device select_device(const std::string& name);

// True when this build has the CUDA path and a GPU is present and usable.
bool cuda_available();

// Why the CUDA path is unusable ("built without CUDA", "no CUDA device found", ...),
// empty when it is usable.
std::string cuda_unavailable_reason();

struct DeviceInfo {
  std::string name;
  int multiprocessors = 0;
  double memory_gib = 0;
  double peak_bandwidth_gbs = 0;  // from the memory clock and bus width
  int compute_major = 0, compute_minor = 0;
};
std::vector<DeviceInfo> cuda_devices();

int cpu_threads();

// Makes GPU (local_rank modulo the GPUs present) the current one of this process, so
// that the ranks of one machine spread over its GPUs; nothing without a usable GPU.
void use_gpu_of_local_rank(int local_rank);

// The GPU this process uses (its number on the machine), -1 without one.
int current_gpu();

}  // namespace gridsolve
