// Sorting benchmarks: our networks beside CUB, thrust and the copy bandwidth, in one run.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

// One timed call: the median of `repeats` after warm-up (device events on the GPU).
struct SortTiming {
  std::string group;       // "sort" (one array), "pairs", "batched", "min-max", "copy"
  std::string method;      // e.g. "butterfly", "bitonic", "CUB DeviceRadixSort", "thrust::sort"
  std::size_t count = 1;   // arrays
  std::size_t length = 0;  // keys per array
  double ms = 0;
  bool checked = false;  // the output was compared with the reference's, bit for bit
};

// float keys, uniform in [-1, 1): full sorts of 2^10 .. 2^max_log2 keys, key-value pairs
// (uint32 payloads) at the largest size, batched sorts of 2^batch_log2 keys in arrays of
// 64 .. 4096, min and max of the largest array, and a device-to-device copy of each size.
// Every one of our results is checked against the peer's (CUB on the GPU, std::sort on
// the CPU); a mismatch throws.
std::vector<SortTiming> run_sort_bench(Device d, int repeats, int max_log2, int batch_log2);

#if GRIDSOLVE_HAVE_CUDA
namespace detail {
std::vector<SortTiming> sort_bench_cuda(int repeats, int max_log2, int batch_log2);
}
#endif

}  // namespace gridsolve
