// Sorting benchmarks on the CPU (wall clock, median; std::sort as the peer) and dispatch
// to the GPU ones.
#include "gridsolve/bench/sort_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/sort/sort.hpp"

namespace gridsolve {

namespace {

using bench::median_ms;

void check(bool same, const std::string& what) {
  if (!same)
    throw Error(fmt::format("bench sort: {} differs from the reference", what),
                Error::Kind::runtime);
}

}  // namespace

std::vector<SortTiming> run_sort_bench(Device d, int repeats, int max_log2, int batch_log2) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda) return detail::sort_bench_cuda(repeats, max_log2, batch_log2);
#endif
  (void)d;
  std::vector<SortTiming> out;
  const std::size_t largest = std::size_t(1) << std::max(max_log2, batch_log2);
  std::vector<float> keys(largest);
  std::mt19937_64 rng(2013);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& k : keys) k = u(rng);
  const auto nothing = [] {};
  for (int lg = 10; lg <= max_log2; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<float> a(n), ref(keys.begin(), keys.begin() + n);
    std::sort(ref.begin(), ref.end());
    double ms = median_ms(
        repeats, [&] { std::memcpy(a.data(), keys.data(), n * 4); }, nothing);
    out.push_back({"copy", "memcpy", 1, n, ms, false});
    for (sort::Network net : {sort::Network::butterfly, sort::Network::bitonic}) {
      ms = median_ms(
          repeats, [&] { sort::sort_keys(Device::cpu, keys.data(), a.data(), n, {net}); }, nothing);
      check(a == ref, sort::to_string(net));
      out.push_back({"sort", sort::to_string(net), 1, n, ms, true});
    }
    ms = median_ms(
        repeats, [&] { std::sort(a.begin(), a.end()); },
        [&] { std::copy(keys.begin(), keys.begin() + n, a.begin()); });
    out.push_back({"sort", "std::sort", 1, n, ms, false});
  }
  const std::size_t total = std::size_t(1) << batch_log2, len = 1024, count = total / len;
  std::vector<float> b(total), ref(keys.begin(), keys.begin() + total);
  for (std::size_t s = 0; s < count; ++s)
    std::sort(ref.begin() + s * len, ref.begin() + (s + 1) * len);
  double ms = median_ms(
      repeats, [&] { sort::sort_batched_keys(Device::cpu, keys.data(), b.data(), count, len); },
      nothing);
  check(b == ref, "batched butterfly");
  out.push_back({"batched", "ours butterfly", count, len, ms, true});
  ms = median_ms(
      repeats,
      [&] {
        for (std::size_t s = 0; s < count; ++s)
          std::sort(b.begin() + s * len, b.begin() + (s + 1) * len);
      },
      [&] { std::copy(keys.begin(), keys.begin() + total, b.begin()); });
  out.push_back({"batched", "std::sort per array", count, len, ms, false});
  const std::size_t n = std::size_t(1) << max_log2;
  const auto [lo, hi] = std::minmax_element(keys.begin(), keys.begin() + n);
  for (auto m : {sort::MinMaxMethod::butterfly, sort::MinMaxMethod::reduction}) {
    sort::MinMax<float> r{};
    ms = median_ms(
        repeats, [&] { r = sort::min_max(Device::cpu, keys.data(), n, m); }, nothing);
    check(r.min == *lo && r.max == *hi, "min-max");
    out.push_back({"min-max",
                   m == sort::MinMaxMethod::butterfly ? "ours min-max butterfly" : "ours reduction",
                   1, n, ms, true});
  }
  volatile float sink = 0;
  ms = median_ms(
      repeats,
      [&] {
        const auto mm = std::minmax_element(keys.begin(), keys.begin() + n);
        sink = *mm.first + *mm.second;
      },
      nothing);
  (void)sink;
  out.push_back({"min-max", "std::minmax_element", 1, n, ms, false});
  return out;
}

}  // namespace gridsolve
