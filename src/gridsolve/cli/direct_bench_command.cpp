// gridsolve bench tridiag | poisson: runs the direct-solver benchmarks, prints the table
// (with ratios to the peers) and writes bench.json when asked.
#include "gridsolve/cli/direct_bench_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <limits>

#include "gridsolve/bench/direct_bench.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::cli {

int direct_bench_command(const BenchSettings& s) {
  const bool tridiag = s.what == "tridiag";
  const bool defaults = s.n == BenchSettings{}.n;
  const int n = defaults ? (tridiag ? 4096 : 4095) : s.n;
  require(n >= 3, fmt::format("--n must be at least 3, got {}", n));
  require(s.repeats >= 1, fmt::format("--repeats must be at least 1, got {}", s.repeats));
  // The long system has 4096 n rows, counted in int.
  require(n <= std::numeric_limits<int>::max() / 4096,
          fmt::format("--n must be at most {}, got {}", std::numeric_limits<int>::max() / 4096, n));
  const Device device = select_device(s.device);
  // n x n values, several arrays of them: refused now rather than by the kernel later.
  require_memory(device, std::size_t(n) * std::size_t(n) * 8 * 6,
                 fmt::format("bench {} at --n {}", s.what, n));
  // Checked before the benchmark runs, not after.
  const std::string json_path = s.out.empty() ? "" : prepare_output_file(s.out, "bench.json");
  const int long_rows = defaults ? (1 << 24) : 4096 * n;
  std::string device_name = to_string(device);
  if (device == Device::cuda && !cuda_devices().empty()) device_name = cuda_devices().front().name;
  if (tridiag)
    fmt::print(
        "gridsolve bench tridiag: {} systems x {} rows and one system of {} on {}, median of {} "
        "runs\n",
        n, n, long_rows, device_name, s.repeats);
  else
    fmt::print(
        "gridsolve bench poisson: {} x {} unknowns, Dirichlet sides, on {}, median of {} runs\n", n,
        n, device_name, s.repeats);
  const std::vector<BenchRow> rows = tridiag ? run_tridiag_bench(device, n, n, long_rows, s.repeats)
                                             : run_poisson_bench(device, n, s.repeats);
  fmt::print("{:<58} {:>5} {:>10} {:>9} {:>9} {:>8}  {}\n", "kernel", "prec", "ms", "G/s", "GB/s",
             "of copy", "traffic counted");
  nlohmann::json out = nlohmann::json::array();
  for (const BenchRow& r : rows) {
    fmt::print("{:<58} {:>5} {:>10.4f} {:>9.2f} {:>9.1f} {:>7.1f}%  {}\n", r.name, r.precision,
               r.ms, r.gcells_per_s, r.gbytes_per_s, 100 * r.fraction_of_copy, r.traffic);
    out.push_back({{"kernel", r.name},
                   {"precision", r.precision},
                   {"ms", r.ms},
                   {"g_per_s", r.gcells_per_s},
                   {"gbytes_per_s", r.gbytes_per_s},
                   {"fraction_of_copy", r.fraction_of_copy},
                   {"traffic", r.traffic}});
  }
  // Ratios against the peer of the same job (names say which).
  auto find = [&](const std::string& part) -> const BenchRow* {
    for (const BenchRow& r : rows)
      if (r.name.find(part) != std::string::npos) return &r;
    return nullptr;
  };
  auto ratio = [&](const std::string& ours, const std::string& peer) {
    const BenchRow *a = find(ours), *b = find(peer);
    if (a && b) fmt::print("  {} vs {}: {:.2f}x faster\n", a->name, b->name, b->ms / a->ms);
  };
  if (tridiag) {
    ratio("ours cr-pcr", "gtsv2StridedBatch");
    ratio("ours thomas", "gtsv2StridedBatch");
    ratio("ours partitioned", "gtsv2StridedBatch");  // the first partitioned row is the batch
    ratio("ours partitioned, one system", "gtsv2_nopivot");
    for (const char* m : {"thomas", "partitioned"})
      ratio(fmt::format("ours {}, {} x {} interleaved", m, n, n), "gtsvInterleavedBatch");
  } else {
    ratio("ours fft", "cuFFT");
    ratio("ours buneman", "cuFFT");
  }
  if (!json_path.empty()) {
    nlohmann::json doc = {{"bench", s.what},
                          {"n", n},
                          {"device", device_name},
                          {"repeats", s.repeats},
                          {"rows", out}};
    write_json_file(json_path, doc);
  }
  return 0;
}

}  // namespace gridsolve::cli
