// gridsolve tridiag: reads "n count" and then a b c d per row, solves every system on the
// chosen device, writes x (one value per line) and reports the residual.
#include "gridsolve/cli/tridiag_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::cli {

CLI::App* add_tridiag_command(CLI::App& app, TridiagSettings& s) {
  CLI::App* t = app.add_subcommand(
      "tridiag", "solve tridiagonal systems from a file (diagonally dominant or SPD; no pivoting)");
  t->add_option("input", s.input,
                "the systems: 'n count', then 'a b c d' per row (docs/tridiag.md)")
      ->required();
  t->add_option("-o,--out", s.output, "file for the solutions (default: standard output)");
  t->add_option("--method", s.method, "auto | thomas | cr | pcr | cr-pcr (GPU) | partitioned")
      ->capture_default_str();
  t->add_option("--device", s.device, "cpu | cuda | auto")->capture_default_str();
  t->add_option("--precision", s.precision, "double | float")->capture_default_str();
  t->add_flag("-q,--quiet", s.quiet, "print nothing but errors");
  return t;
}

namespace {

struct Systems {
  int n = 0, count = 0;
  std::vector<double> a, b, c, d;
};

Systems read_systems(const std::string& path) {
  std::ifstream in(path);
  require(bool(in), fmt::format("cannot open '{}'", path));
  std::stringstream text;
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    text << (hash == std::string::npos ? line : line.substr(0, hash)) << '\n';
  }
  Systems s;
  require(bool(text >> s.n >> s.count),
          fmt::format("'{}' must start with two integers: rows per system and number of systems",
                      path));
  require(
      s.n >= 1 && s.count >= 1,
      fmt::format("'{}': rows and systems must be positive, got {} and {}", path, s.n, s.count));
  const std::size_t size = std::size_t(s.n) * s.count;
  s.a.resize(size), s.b.resize(size), s.c.resize(size), s.d.resize(size);
  for (std::size_t k = 0; k < size; ++k)
    require(bool(text >> s.a[k] >> s.b[k] >> s.c[k] >> s.d[k]),
            fmt::format(
                "'{}': expected {} rows of 'a b c d', the file ends or is malformed at row {} of "
                "system {}",
                path, size, k % s.n, k / s.n));
  double extra;
  require(!(text >> extra), fmt::format("'{}' has values after the last row", path));
  return s;
}

template <class T>
std::vector<double> solve_as(const Systems& s, Device device, tridiag::Method method) {
  const std::size_t size = s.d.size();
  std::vector<T> h[4];
  const std::vector<double>* src[4] = {&s.a, &s.b, &s.c, &s.d};
  Buffer<T> dev[4];
  for (int q = 0; q < 4; ++q) {
    h[q].assign(src[q]->begin(), src[q]->end());
    dev[q] = Buffer<T>(device, size);
    copy_bytes(dev[q].data(), device, h[q].data(), Device::cpu, size * sizeof(T));
  }
  tridiag::solve(device,
                 tridiag::Batch<T>{dev[0].data(), dev[1].data(), dev[2].data(), dev[3].data(), s.n,
                                   s.count, tridiag::Layout::strided},
                 {method});
  copy_bytes(h[3].data(), Device::cpu, dev[3].data(), device, size * sizeof(T));
  return std::vector<double>(h[3].begin(), h[3].end());
}

}  // namespace

int tridiag_command(const TridiagSettings& st) {
  const tridiag::Method method = tridiag::parse_method(st.method);
  const Device device = select_device(st.device);
  const Systems s = read_systems(st.input);
  std::vector<double> x;
  if (st.precision == "double" || st.precision == "fp64")
    x = solve_as<double>(s, device, method);
  else if (st.precision == "float" || st.precision == "fp32")
    x = solve_as<float>(s, device, method);
  else
    throw Error(fmt::format("precision must be double or float, got '{}'", st.precision));

  // Relative residual max |d - A x| / max |d| over all systems, in double.
  double rmax = 0, dmax = 0;
  for (int q = 0; q < s.count; ++q)
    for (int i = 0; i < s.n; ++i) {
      const std::size_t k = std::size_t(q) * s.n + i;
      double r = s.d[k] - s.b[k] * x[k];
      if (i > 0) r -= s.a[k] * x[k - 1];
      if (i + 1 < s.n) r -= s.c[k] * x[k + 1];
      rmax = std::max(rmax, std::abs(r));
      dmax = std::max(dmax, std::abs(s.d[k]));
    }
  std::string text;
  text.reserve(x.size() * 24);
  for (double v : x) text += fmt::format("{:.17g}\n", v);
  if (st.output.empty())
    std::fputs(text.c_str(), stdout);
  else
    write_file_atomically(st.output, text);
  if (!st.quiet)
    std::fprintf(stderr,
                 "gridsolve tridiag: %d system(s) of %d rows, %s on %s, relative residual %.3e\n",
                 s.count, s.n, st.precision.c_str(), to_string(device).c_str(),
                 dmax > 0 ? rmax / dmax : rmax);
  return 0;
}

}  // namespace gridsolve::cli
