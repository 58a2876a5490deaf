// gridsolve sort: sorts a file of keys (text or binary); gridsolve bench sort: the sorting
// networks against CUB and thrust (docs/sort.md).
#pragma once
#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace gridsolve::cli {

struct BenchSettings;

struct SortSettings {
  std::string input;
  std::string output;           // empty or "-": standard output
  std::string type = "float";   // float | double | int32 | uint32
  std::string format = "text";  // text | binary (the output uses the same)
  std::string network = "butterfly";
  std::string order = "ascending";
  std::string device = "auto";
  std::size_t batch = 0;  // > 0: sort consecutive arrays of this many keys
  bool quiet = false;
};

CLI::App* add_sort_command(CLI::App& app, SortSettings& s);
int sort_command(const SortSettings& s);

// `gridsolve bench sort`: full sorts of 2^10 .. 2^25 float keys, batched small sorts and
// the min-max butterfly, with CUB, thrust and the copy bandwidth from the same run.
int sort_bench_command(const BenchSettings& s);

}  // namespace gridsolve::cli
