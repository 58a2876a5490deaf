// gridsolve sort: reads keys (text: whitespace-separated, '#' comments; binary: raw
// little-endian keys of the given type), sorts them on the chosen device, checks the
// order, and writes them in the input's format, atomically. gridsolve bench sort: prints
// the sorting benchmark with its ratios.
#include "gridsolve/cli/option_checks.hpp"
#include "gridsolve/cli/sort_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "gridsolve/bench/sort_bench.hpp"
#include "gridsolve/cli/bench_command.hpp"
#include "gridsolve/io/input_file.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/sort/ordered_key.hpp"
#include "gridsolve/sort/sort.hpp"

namespace gridsolve::cli {

// The largest key file: as many keys as a sort takes (sort::max_length, 2^31), raw, or
// as text at 32 bytes a key on average (a float or int32 written in full takes 11 to 15
// bytes with its separator, a double 25; the rest leaves room for comments).
constexpr std::uintmax_t text_bytes_per_key = 32;

CLI::App* add_sort_command(CLI::App& app, SortSettings& s) {
  CLI::App* c = app.add_subcommand(
      "sort", "sort a file of keys with the butterfly or bitonic network (docs/sort.md)");
  c->add_option("input", s.input,
                "the keys: text (whitespace-separated, '#' comments) or binary (raw keys)")
      ->required();
  c->add_option("-o,--out", s.output, "file for the sorted keys (default: standard output)");
  c->add_option("--type", s.type, "float | double | int32 | uint32")->capture_default_str();
  c->add_option("--format", s.format, "text | binary (the output has the same format)")
      ->capture_default_str();
  c->add_option("--network", s.network, "butterfly | bitonic")->capture_default_str();
  c->add_option("--order", s.order, "ascending | descending (NaN sorts last ascending)")
      ->capture_default_str();
  c->add_option("--device", s.device, "auto | cpu | cuda")->capture_default_str();
  // Checked as text first: CLI11 would read "-1" as 2^64 - 1.
  c->add_option("--batch", s.batch,
                "sort consecutive arrays of this many keys each (0: the whole file as one)")
      ->check(not_negative())
      ->capture_default_str();
  c->add_flag("-q,--quiet", s.quiet, "print nothing but errors");
  return c;
}

namespace {

// The file's bytes, after the checks every data file gets (a regular file, bounded by
// what can be sorted) and one for memory: the bytes, the keys and the sorted output are
// held at once, about three times the file (exactly so for binary keys).
template <class K>
std::string read_keys_file(const std::string& path, bool binary) {
  const std::string reason =
      binary ? fmt::format("2^31 keys of {} bytes, the most gridsolve sort takes", sizeof(K))
             : fmt::format("2^31 keys, the most gridsolve sort takes, at {} bytes a key",
                           text_bytes_per_key);
  InputFile file(path, sort::max_length * (binary ? sizeof(K) : text_bytes_per_key), "key file",
                 reason);
  const std::size_t need = std::size_t(file.size()) * 3;
  const std::size_t have = host_memory_available();
  require(need <= have,
          fmt::format("key file '{}' has {} bytes: sorting it holds the file, its keys and the "
                      "sorted output, about {}, and {} of memory is available",
                      path, file.size(), format_bytes(need), format_bytes(have)));
  return file.read_all();
}

template <class K>
const char* type_name() {
  if constexpr (std::is_same_v<K, float>) return "float";
  if constexpr (std::is_same_v<K, double>) return "double";
  if constexpr (std::is_same_v<K, std::int32_t>) return "int32";
  return "uint32";
}

// Whether float key `f`, read from the number text [first, last), holds the number to the
// digits the text gives: `f` written with as many significant digits as the text has (17
// at most, double's) must read back, in double, as the text does. "0.1", "0.100000001"
// (0.1f to nine digits) and "16777216" pass; "-999.9952785957291" (float holds
// -999.9953) and "16777217" (float holds 16777216) do not: sorting them would silently
// hand back other numbers than it was given.
bool keeps_its_value(const char* first, const char* last, float f) {
  if (!std::isfinite(f) || f == 0) return true;  // no digits to lose
  double text = 0;
  std::from_chars(first, last, text);
  if (double(f) == text) return true;
  int digits = 0;  // significant digits: from the first nonzero one to the exponent
  for (const char* p = first; p < last && *p != 'e' && *p != 'E'; ++p)
    if (*p >= '0' && *p <= '9' && (digits > 0 || *p != '0')) ++digits;
  char written[40];
  const char* end =
      fmt::format_to_n(written, sizeof written, "{:.{}e}", f, std::clamp(digits, 1, 17) - 1).out;
  double back = 0;
  std::from_chars(written, end, back);
  return back == text;
}

template <class K>
std::vector<K> parse_text(const std::string& path, const std::string& text) {
  std::vector<K> keys;
  std::size_t line = 1;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const char c = *p;
    if (c == '\n') {
      ++line, ++p;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == ',') {
      ++p;
    } else if (c == '#') {
      while (p < end && *p != '\n') ++p;
    } else {
      const char* tok = p;
      while (p < end && !std::strchr(" \t\r\n,#", *p)) ++p;
      const char* first = tok + (*tok == '+' && p - tok > 1 ? 1 : 0);
      K value{};
      const auto r = std::from_chars(first, p, value);
      const std::string word(tok, std::size_t(p - tok));
      require(r.ec != std::errc::result_out_of_range,
              fmt::format("'{}' line {}: '{}' is out of range for {} keys", path, line, word,
                          type_name<K>()));
      require(r.ec == std::errc() && r.ptr == p,
              fmt::format("'{}' line {}: '{}' is not a {} key (expected numbers separated by "
                          "spaces, commas or lines; '#' starts a comment)",
                          path, line, word, type_name<K>()));
      if constexpr (std::is_same_v<K, float>)
        if (!keeps_its_value(first, p, value))
          throw Error(
              fmt::format("'{}' line {}: '{}' does not fit a float key: it would come "
                          "back as {}; use --type double",
                          path, line, word, value));
      require(keys.size() < sort::max_length,
              fmt::format("'{}' has more than {} keys", path, sort::max_length));
      keys.push_back(value);
    }
  }
  return keys;
}

template <class K>
std::vector<K> parse_binary(const std::string& path, const std::string& bytes) {
  require(bytes.size() % sizeof(K) == 0,
          fmt::format("'{}' has {} bytes, not a multiple of {} (the size of a {} key)", path,
                      bytes.size(), sizeof(K), type_name<K>()));
  require(bytes.size() / sizeof(K) <= sort::max_length,
          fmt::format("'{}' has more than {} keys", path, sort::max_length));
  std::vector<K> keys(bytes.size() / sizeof(K));
  if (!keys.empty()) std::memcpy(keys.data(), bytes.data(), bytes.size());
  return keys;
}

template <class K>
int sort_as(const SortSettings& s, const sort::Options& options, Device device) {
  const bool binary = s.format == "binary";
  const std::string bytes = read_keys_file<K>(s.input, binary);
  std::vector<K> keys = binary ? parse_binary<K>(s.input, bytes) : parse_text<K>(s.input, bytes);
  const std::size_t n = keys.size();
  require(n > 0, fmt::format("'{}' holds no keys", s.input));
  const std::size_t length = s.batch > 0 ? s.batch : n;
  require(n % length == 0, fmt::format("--batch {}: the file's {} keys are not whole arrays of {}",
                                       s.batch, n, s.batch));
  const std::size_t count = n / length;

  const auto t0 = std::chrono::steady_clock::now();
  if (device == Device::cuda) {
    Buffer<K> d(Device::cuda, n);
    copy_bytes(d.data(), Device::cuda, keys.data(), Device::cpu, n * sizeof(K));
    sort::sort_batched_keys(device, d.data(), d.data(), count, length, options);
    copy_bytes(keys.data(), Device::cpu, d.data(), Device::cuda, n * sizeof(K));
  } else {
    sort::sort_batched_keys(device, keys.data(), keys.data(), count, length, options);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Never hand back an unsorted result.
  const bool desc = options.order == sort::Order::descending;
  for (std::size_t a = 0; a < count; ++a)
    for (std::size_t i = a * length + 1; i < (a + 1) * length; ++i)
      if (sort::key_before(keys[i], keys[i - 1], desc))
        throw Error(fmt::format("internal error: keys {} and {} came out of order", i - 1, i),
                    Error::Kind::runtime);

  std::string out;
  if (binary) {
    out.assign(reinterpret_cast<const char*>(keys.data()), n * sizeof(K));
  } else {
    out.reserve(n * 12);
    for (const K k : keys) fmt::format_to(std::back_inserter(out), "{}\n", k);
  }
  if (s.output.empty() || s.output == "-")
    std::fwrite(out.data(), 1, out.size(), stdout);
  else
    write_file_atomically(s.output, out);
  if (!s.quiet)
    std::fprintf(stderr,
                 "gridsolve sort: %zu %s key(s)%s, %s network, %s, on %s in %.3f ms (transfers "
                 "included); order checked\n",
                 n, type_name<K>(),
                 count > 1 ? fmt::format(" in {} arrays of {}", count, length).c_str() : "",
                 sort::to_string(options.network).c_str(), sort::to_string(options.order).c_str(),
                 to_string(device).c_str(), ms);
  return 0;
}

}  // namespace

int sort_command(const SortSettings& s) {
  require(s.format == "text" || s.format == "binary",
          fmt::format("--format must be text or binary, got '{}'", s.format));
  const sort::Options options{sort::parse_network(s.network), sort::parse_order(s.order)};
  const Device device = select_device(s.device);
  if (s.type == "float") return sort_as<float>(s, options, device);
  if (s.type == "double") return sort_as<double>(s, options, device);
  if (s.type == "int32") return sort_as<std::int32_t>(s, options, device);
  if (s.type == "uint32") return sort_as<std::uint32_t>(s, options, device);
  throw Error(fmt::format("--type must be float, double, int32 or uint32, got '{}'", s.type));
}

namespace {

struct Cell {
  double ms = 0;
  bool checked = false;
};

std::string ratio(double peer_ms, double ours_ms) {
  return peer_ms > 0 && ours_ms > 0 ? fmt::format("{:.2f}x", peer_ms / ours_ms) : "-";
}

}  // namespace

int sort_bench_command(const BenchSettings& s) {
  require(s.repeats >= 1, fmt::format("--repeats must be at least 1, got {}", s.repeats));
  const Device device = select_device(s.device);
  std::string device_name = to_string(device);
  if (device == Device::cuda && !cuda_devices().empty()) device_name = cuda_devices().front().name;
  // --n (when given) is the largest size as a power of two.
  const bool defaults = s.n == BenchSettings{}.n;
  const int max_log2 = defaults ? (device == Device::cuda ? 25 : 20) : s.n;
  require(max_log2 >= 10 && max_log2 <= 30,
          fmt::format("bench sort: --n is the largest size's log2, 10 to 30, got {}", max_log2));
  const int batch_log2 = device == Device::cuda ? 25 : 20;
  fmt::print(
      "gridsolve bench sort: float keys uniform in [-1, 1), 2^10 .. 2^{} keys, batches of 2^{} "
      "keys, on {}, median of {} runs\n",
      max_log2, batch_log2, device_name, s.repeats);
  const std::vector<SortTiming> rows = run_sort_bench(device, s.repeats, max_log2, batch_log2);

  // Full sorts: one line per size, methods as columns, ratios against the peers.
  std::vector<std::string> methods;
  std::map<std::size_t, std::map<std::string, Cell>> table;
  for (const SortTiming& r : rows)
    if (r.group == "sort" || r.group == "copy") {
      const std::string m = r.group == "copy" ? "copy" : r.method;
      if (r.group == "sort" && std::find(methods.begin(), methods.end(), m) == methods.end())
        methods.push_back(m);
      table[r.length][m] = {r.ms, r.checked};
    }
  const std::string peer = device == Device::cuda ? "CUB DeviceRadixSort" : "std::sort";
  const std::string peer2 = device == Device::cuda ? "thrust::sort" : "";
  fmt::print(
      "\none array (ms; G keys/s of the butterfly; speed-up of the butterfly over the "
      "peers, > 1 is faster)\n");
  fmt::print("{:>10}", "keys");
  for (const std::string& m : methods) fmt::print(" {:>20}", m);
  fmt::print(" {:>10} {:>9} {:>12} {:>12} {:>13}\n", "copy", "Gkeys/s",
             device == Device::cuda ? "vs CUB" : "vs std::sort", peer2.empty() ? "" : "vs thrust",
             "sort/copy");
  for (const auto& [n, cells] : table) {
    int lg = 0;
    while ((std::size_t(1) << lg) < n) ++lg;
    fmt::print("{:>10}", fmt::format("2^{}", lg));
    for (const std::string& m : methods) {
      auto it = cells.find(m);
      fmt::print(" {:>20}", it == cells.end() ? "-" : fmt::format("{:.4f}", it->second.ms));
    }
    auto get = [&](const std::string& m) {
      auto it = cells.find(m);
      return it == cells.end() ? 0.0 : it->second.ms;
    };
    const double ours = get("butterfly");
    fmt::print(" {:>10.4f} {:>9.2f} {:>12} {:>12} {:>13.1f}\n", get("copy"),
               ours > 0 ? double(n) / (ours * 1e6) : 0.0, ratio(get(peer), ours),
               peer2.empty() ? "" : ratio(get(peer2), ours),
               get("copy") > 0 ? ours / get("copy") : 0.0);
  }

  fmt::print("\n{:<10} {:<44} {:>10} {:>10} {:>11}  {}\n", "job", "method", "shape", "ms",
             "G keys/s", "checked");
  for (const SortTiming& r : rows) {
    if (r.group == "sort" || r.group == "copy") continue;
    const std::string shape =
        r.count > 1 ? fmt::format("{} x {}", r.count, r.length) : fmt::format("{}", r.length);
    fmt::print("{:<10} {:<44} {:>10} {:>10.4f} {:>11.2f}  {}\n", r.group, r.method, shape, r.ms,
               double(r.count * r.length) / (r.ms * 1e6), r.checked ? "yes" : "-");
  }
  // Ratios within the groups: ours against the first peer named in the group.
  auto find = [&](const std::string& group, const std::string& method, std::size_t length) {
    for (const SortTiming& r : rows)
      if (r.group == group && r.method == method && r.length == length) return r.ms;
    return 0.0;
  };
  fmt::print("\n");
  for (const SortTiming& r : rows)
    if (device != Device::cuda) {
      continue;  // the CPU table above holds std::sort beside ours
    } else if (r.group == "batched" && r.method.rfind("ours", 0) == 0) {
      const double seg = find("batched", "CUB DeviceSegmentedSort", r.length);
      const double rad = find("batched", "CUB DeviceSegmentedRadixSort", r.length);
      fmt::print(
          "  batched {} x {}, {}: {} vs CUB DeviceSegmentedSort, {} vs "
          "DeviceSegmentedRadixSort\n",
          r.count, r.length, r.method, ratio(seg, r.ms), ratio(rad, r.ms));
    } else if (r.group == "pairs" && r.method.rfind("ours", 0) == 0) {
      fmt::print("  pairs {}: {} vs CUB DeviceRadixSort::SortPairs\n", r.method,
                 ratio(find("pairs", "CUB DeviceRadixSort::SortPairs", r.length), r.ms));
    } else if (r.group == "phases") {
      const double copy = find("copy", "cudaMemcpy", r.length);
      const auto open = r.method.rfind('(');
      const int launches = open == std::string::npos ? 1 : std::atoi(r.method.c_str() + open + 1);
      if (copy > 0 && launches > 0)
        fmt::print("  {}: {:.4f} ms a launch, {:.2f} copies of the keys\n", r.method,
                   r.ms / launches, r.ms / launches / copy);
    } else if (r.group == "min-max" && r.method.rfind("ours", 0) == 0) {
      fmt::print("  min-max {}: {} vs CUB DeviceReduce (min-max pair)\n", r.method,
                 ratio(find("min-max", "CUB DeviceReduce, (min, max) pairs", r.length), r.ms));
    }

  if (!s.out.empty()) {
    std::filesystem::create_directories(s.out);
    nlohmann::json out = nlohmann::json::array();
    for (const SortTiming& r : rows)
      out.push_back({{"group", r.group},
                     {"method", r.method},
                     {"count", r.count},
                     {"length", r.length},
                     {"ms", r.ms},
                     {"checked", r.checked}});
    write_json_file(
        s.out + "/bench.json",
        {{"bench", "sort"}, {"device", device_name}, {"repeats", s.repeats}, {"rows", out}});
  }
  return 0;
}

}  // namespace gridsolve::cli
