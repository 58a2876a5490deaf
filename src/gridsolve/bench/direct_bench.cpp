// Direct-solver benchmarks on the CPU (wall clock, median) and dispatch to the GPU ones.
#include "gridsolve/bench/direct_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "gridsolve/bench/direct_bench_data.hpp"
#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/solve/buneman/buneman.hpp"
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve {

namespace {

using bench::median_ms;

BenchRow row(const std::string& name, double ms, double cells, double bytes, double copy_gbs,
             const std::string& traffic) {
  return bench_row(name, bytes > 0 ? "fp64" : "-", ms, cells, bytes, copy_gbs, traffic);
}

double cpu_copy_gbs(std::size_t bytes, int repeats, double& ms) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  ms = median_ms(repeats, [&] { std::memcpy(b.data(), a.data(), bytes); });
  return 2.0 * bytes / (ms * 1e6);
}

}  // namespace

std::vector<BenchRow> run_tridiag_bench(Device d, int rows, int systems, int long_rows,
                                        int repeats) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda) return detail::tridiag_bench_cuda(rows, systems, long_rows, repeats);
#endif
  (void)d;
  std::vector<BenchRow> out;
  const std::size_t size = std::size_t(rows) * systems;
  double copy_ms = 0;
  const double copy = cpu_copy_gbs(size * 8, repeats, copy_ms);
  out.push_back(row("copy (memcpy)", copy_ms, 0, 2.0 * size * 8, copy, "read + write"));
  std::vector<double> a, b, c, rhs;
  bench_data::tridiagonal(size, a, b, c, rhs, 1);
  for (tridiag::Layout layout : {tridiag::Layout::strided, tridiag::Layout::interleaved}) {
    std::vector<double> x = rhs;
    const tridiag::Batch<double> bt{a.data(), b.data(), c.data(), x.data(), rows, systems, layout};
    const double ms = median_ms(repeats, [&] { tridiag::solve(Device::cpu, bt); });
    out.push_back(row(fmt::format("thomas, {} x {}, {}", systems, rows, tridiag::to_string(layout)),
                      ms, double(size), 40.0 * size, copy, "5 words/unknown"));
  }
  std::vector<double> la, lb, lc, ld;
  bench_data::tridiagonal(std::size_t(long_rows), la, lb, lc, ld, 2);
  for (tridiag::Method m : {tridiag::Method::thomas, tridiag::Method::partitioned}) {
    const tridiag::Batch<double> bt{
        la.data(), lb.data(), lc.data(), ld.data(), long_rows, 1, tridiag::Layout::strided};
    const double ms = median_ms(repeats, [&] { tridiag::solve(Device::cpu, bt, {m}); });
    out.push_back(row(fmt::format("{}, one system of {}", tridiag::to_string(m), long_rows), ms,
                      double(long_rows), 40.0 * long_rows, copy, "5 words/unknown"));
  }
  return out;
}

std::vector<BenchRow> run_poisson_bench(Device d, int n, int repeats) {
#if GRIDSOLVE_HAVE_CUDA
  if (d == Device::cuda) return detail::poisson_bench_cuda(n, repeats);
#endif
  (void)d;
  std::vector<BenchRow> out;
  const std::size_t size = std::size_t(n) * n;
  double copy_ms = 0;
  const double copy = cpu_copy_gbs(size * 8, repeats, copy_ms);
  out.push_back(row("copy (memcpy)", copy_ms, 0, 2.0 * size * 8, copy, "read + write"));
  const std::vector<double> rhs = bench_data::uniform<double>(size, 3);
  std::vector<double> x = rhs;
  fast_poisson::TransformProblem p;
  p.m = {n, n, 1};
  p.h = {1.0 / (n + 1), 1.0 / (n + 1), 1};
  fast_poisson::TransformPoisson<double> fft(Device::cpu, p);
  double ms = median_ms(repeats, [&] {
    x = rhs;
    fft.solve(x.data());
  });
  out.push_back(row(fmt::format("fft solver (fftw), {}^2", n), ms, double(size), 16.0 * size, copy,
                    "2 words/unknown"));
  if (buneman::BlockCyclicReduction<double>::rows_allowed(n)) {
    buneman::BlockCyclicReduction<double> bcr(Device::cpu, n, n, 4, 1, 1);
    ms = median_ms(repeats, [&] {
      x = rhs;
      bcr.solve(x.data());
    });
    out.push_back(row(fmt::format("buneman, {}^2", n), ms, double(size), 16.0 * size, copy,
                      "2 words/unknown"));
  }
  return out;
}

}  // namespace gridsolve
