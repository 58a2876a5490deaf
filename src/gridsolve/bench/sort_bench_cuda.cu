// Sorting benchmarks on the GPU: device events, warm-up, medians; CUB DeviceRadixSort,
// DeviceSegmentedSort, DeviceSegmentedRadixSort, DeviceReduce and thrust::sort as peers,
// each of our results checked bit for bit against CUB's.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "gridsolve/bench/device_timing.cuh"
#include "gridsolve/bench/sort_bench.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/sort/sort.hpp"
#include "gridsolve/sort/sort_backend.hpp"

namespace gridsolve::detail {

namespace {

using bench::time_ms;

template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  copy_bytes(h.data(), Device::cpu, d, Device::cuda, n * sizeof(T));
  return h;
}

void check_same(const float* a, const float* b, std::size_t n, const std::string& what) {
  const std::vector<float> x = download(a, n), y = download(b, n);
  if (std::memcmp(x.data(), y.data(), n * sizeof(float)) != 0)
    throw Error(fmt::format("bench sort: {} differs from CUB's result", what),
                Error::Kind::runtime);
}

// CUB's two-phase calls: the first sizes the scratch, the second runs.
struct Scratch {
  Buffer<char> buf;
  void* get(std::size_t bytes) {
    if (bytes > buf.size()) buf = Buffer<char>(Device::cuda, bytes);
    return buf.data();
  }
};

struct ToPair {
  __host__ __device__ float2 operator()(float x) const { return make_float2(x, x); }
};
struct MinMaxPair {
  __host__ __device__ float2 operator()(float2 a, float2 b) const {
    return make_float2(fminf(a.x, b.x), fmaxf(a.y, b.y));
  }
};

}  // namespace

std::vector<SortTiming> sort_bench_cuda(int repeats, int max_log2, int batch_log2) {
  std::vector<SortTiming> out;
  const std::size_t largest = std::size_t(1) << std::max(max_log2, batch_log2);
  std::vector<float> host(largest);
  std::mt19937_64 rng(2013);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& k : host) k = u(rng);
  Buffer<float> keys(Device::cuda, largest), a(Device::cuda, largest), ref(Device::cuda, largest);
  copy_bytes(keys.data(), Device::cuda, host.data(), Device::cpu, largest * sizeof(float));
  Scratch scratch;
  std::size_t bytes = 0;

  for (int lg = 10; lg <= max_log2; ++lg) {
    const int n = 1 << lg;
    double ms = time_ms(repeats, [&] {
      cudaMemcpyAsync(a.data(), keys.data(), std::size_t(n) * 4, cudaMemcpyDeviceToDevice);
    });
    out.push_back({"copy", "cudaMemcpy", 1, std::size_t(n), ms, false});
    cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.data(), ref.data(), n);
    void* tmp = scratch.get(bytes);
    ms = time_ms(repeats,
                 [&] { cub::DeviceRadixSort::SortKeys(tmp, bytes, keys.data(), ref.data(), n); });
    out.push_back({"sort", "CUB DeviceRadixSort", 1, std::size_t(n), ms, false});
    for (sort::Network net : {sort::Network::butterfly, sort::Network::bitonic}) {
      ms =
          time_ms(repeats, [&] { sort::sort_keys(Device::cuda, keys.data(), a.data(), n, {net}); });
      check_same(a.data(), ref.data(), n, sort::to_string(net));
      out.push_back({"sort", sort::to_string(net), 1, std::size_t(n), ms, true});
    }
    ms = time_ms(
        repeats, [&] { thrust::sort(thrust::device, a.data(), a.data() + n); },
        [&] {
          cudaMemcpyAsync(a.data(), keys.data(), std::size_t(n) * 4, cudaMemcpyDeviceToDevice);
        });
    out.push_back({"sort", "thrust::sort", 1, std::size_t(n), ms, false});
  }

  const int n = 1 << max_log2;
  // Where the butterfly's time goes at the largest size: each kind of kernel alone.
  for (const auto& [phase, what] : {std::pair{1u, "tile sort"}, std::pair{2u, "gathered passes"},
                                    std::pair{4u, "contiguous passes"}}) {
    int launches = 0;
    const double ms = time_ms(
        repeats, [&] { launches = sort::detail::butterfly_phases_cuda(a.data(), n, phase); },
        [&] {
          cudaMemcpyAsync(a.data(), keys.data(), std::size_t(n) * 4, cudaMemcpyDeviceToDevice);
        });
    out.push_back({"phases", fmt::format("butterfly: {} ({} launches)", what, launches), 1,
                   std::size_t(n), ms, false});
  }
  {
    // Key-value pairs: uint32 payloads (the keys' original places).
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    Buffer<std::uint32_t> v(Device::cuda, n), vo(Device::cuda, n);
    copy_bytes(v.data(), Device::cuda, idx.data(), Device::cpu, std::size_t(n) * 4);
    cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), ref.data(), v.data(), vo.data(),
                                    n);
    void* tmp = scratch.get(bytes);
    double ms = time_ms(repeats, [&] {
      cub::DeviceRadixSort::SortPairs(tmp, bytes, keys.data(), ref.data(), v.data(), vo.data(), n);
    });
    out.push_back({"pairs", "CUB DeviceRadixSort::SortPairs", 1, std::size_t(n), ms, false});
    ms = time_ms(repeats, [&] {
      sort::sort_pairs(Device::cuda, keys.data(), a.data(), v.data(), vo.data(), n);
    });
    check_same(a.data(), ref.data(), n, "butterfly pairs");
    // Every payload is an original place, each once, holding the key beside it.
    const std::vector<float> ko = download(a.data(), n);
    const std::vector<std::uint32_t> p = download(vo.data(), n);
    std::vector<char> seen(n, 0);
    for (int i = 0; i < n; ++i) {
      if (p[i] >= std::uint32_t(n) || seen[p[i]] ||
          std::memcmp(&host[p[i]], &ko[i], sizeof(float)) != 0)
        throw Error("bench sort: the butterfly's pairs are not the input pairs",
                    Error::Kind::runtime);
      seen[p[i]] = 1;
    }
    out.push_back({"pairs", "ours butterfly (uint32 payload)", 1, std::size_t(n), ms, true});
  }

  // Batched: 2^batch_log2 keys in arrays of 64 .. 4096.
  const int total = 1 << batch_log2;
  for (int len : {64, 256, 1024, 4096}) {
    const int count = total / len;
    std::vector<int> offsets(count + 1);
    for (int s = 0; s <= count; ++s) offsets[s] = s * len;
    Buffer<int> off(Device::cuda, count + 1);
    copy_bytes(off.data(), Device::cuda, offsets.data(), Device::cpu, offsets.size() * 4);
    cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, keys.data(), ref.data(), total, count,
                                       off.data(), off.data() + 1);
    void* tmp = scratch.get(bytes);
    double ms = time_ms(repeats, [&] {
      cub::DeviceSegmentedSort::SortKeys(tmp, bytes, keys.data(), ref.data(), total, count,
                                         off.data(), off.data() + 1);
    });
    out.push_back(
        {"batched", "CUB DeviceSegmentedSort", std::size_t(count), std::size_t(len), ms, false});
    std::size_t rbytes = 0;
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, rbytes, keys.data(), a.data(), total, count,
                                            off.data(), off.data() + 1);
    tmp = scratch.get(rbytes);
    ms = time_ms(repeats, [&] {
      cub::DeviceSegmentedRadixSort::SortKeys(tmp, rbytes, keys.data(), a.data(), total, count,
                                              off.data(), off.data() + 1);
    });
    out.push_back({"batched", "CUB DeviceSegmentedRadixSort", std::size_t(count), std::size_t(len),
                   ms, false});
    for (sort::Network net : {sort::Network::butterfly, sort::Network::bitonic}) {
      ms = time_ms(repeats, [&] {
        sort::sort_batched_keys(Device::cuda, keys.data(), a.data(), count, len, {net});
      });
      check_same(a.data(), ref.data(), total, "batched " + sort::to_string(net));
      out.push_back({"batched", "ours " + sort::to_string(net), std::size_t(count),
                     std::size_t(len), ms, true});
    }
  }

  // Min and max of the largest array.
  {
    Buffer<float2> pair(Device::cuda, 1);
    Buffer<float> m2(Device::cuda, 2);
    const auto first = thrust::make_transform_iterator(keys.data(), ToPair());
    const float inf = std::numeric_limits<float>::infinity();
    cub::DeviceReduce::Reduce(nullptr, bytes, first, pair.data(), n, MinMaxPair(),
                              make_float2(inf, -inf));
    void* tmp = scratch.get(bytes);
    double ms = time_ms(repeats, [&] {
      cub::DeviceReduce::Reduce(tmp, bytes, first, pair.data(), n, MinMaxPair(),
                                make_float2(inf, -inf));
    });
    out.push_back({"min-max", "CUB DeviceReduce, (min, max) pairs", 1, std::size_t(n), ms, false});
    const float2 peer = download(pair.data(), 1)[0];
    cub::DeviceReduce::Min(nullptr, bytes, keys.data(), m2.data(), n);
    tmp = scratch.get(bytes);
    ms = time_ms(repeats, [&] {
      cub::DeviceReduce::Min(tmp, bytes, keys.data(), m2.data(), n);
      cub::DeviceReduce::Max(tmp, bytes, keys.data(), m2.data() + 1, n);
    });
    out.push_back({"min-max", "CUB DeviceReduce::Min then ::Max", 1, std::size_t(n), ms, false});
    ms = time_ms(repeats, [&] { cub::DeviceReduce::Min(tmp, bytes, keys.data(), m2.data(), n); });
    out.push_back(
        {"min-max", "CUB DeviceReduce::Min alone (half the answer)", 1, std::size_t(n), ms, false});
    for (auto m : {sort::MinMaxMethod::butterfly, sort::MinMaxMethod::reduction}) {
      sort::MinMax<float> r{};
      ms = time_ms(repeats, [&] { r = sort::min_max(Device::cuda, keys.data(), n, m); });
      if (r.min != peer.x || r.max != peer.y)
        throw Error("bench sort: min-max differs from CUB's", Error::Kind::runtime);
      out.push_back({"min-max",
                     m == sort::MinMaxMethod::butterfly ? "ours min-max butterfly"
                                                        : "ours reduction (min and max per key)",
                     1, std::size_t(n), ms, true});
    }
  }
  return out;
}

}  // namespace gridsolve::detail
