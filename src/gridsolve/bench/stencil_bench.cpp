// Stencil benchmark, CPU half and shared pieces: threaded memcpy, generic sweeps.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "gridsolve/bench/stencil_bench_detail.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/red_black_sor.hpp"

namespace gridsolve {

namespace bench_detail {

template <class T>
StencilOperator<T> laplacian(int n, Device d) {
  StencilOperator<T> op;
  op.grid = Grid::unit(2, n);
  op.device = d;
  op.active = Box{{1, 1, 0}, {n - 2, n - 2, 0}};
  op.uniform = true;
  op.cw = op.ce = op.cs = op.cn = T(1);
  op.cp = T(4);
  const double h = op.grid.spacing[0];
  op.b_const = T(h * h);
  op.unknowns = std::int64_t(n - 2) * (n - 2);
  return op;
}

template <class T>
Field<T> random_field(int n, Device d, std::uint64_t seed) {
  Field<T> host(std::array<int, 3>{n, n, 1}, 2, Device::cpu);
  T* p = host.storage();
  const std::int64_t size = host.storage_size();
#pragma omp parallel
  {
    // One splitmix64 stream per element index: the same numbers whatever the threads.
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < size; ++i) {
      std::uint64_t z = seed + std::uint64_t(i) * 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      p[i] = T(double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    }
  }
  return d == Device::cpu ? std::move(host) : host.copy_to(d);
}

double median(std::vector<double> v) {
  require(!v.empty(), "no timings to take the median of");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

BenchRow make_row(std::string name, std::string precision, double ms, double cells,
                  double bytes_per_cell, double copy_gbs, std::string traffic) {
  return bench_row(std::move(name), std::move(precision), ms, cells, cells * bytes_per_cell,
                   copy_gbs, std::move(traffic));
}

}  // namespace bench_detail

BenchRow bench_row(std::string name, std::string precision, double ms, double cells, double bytes,
                   double copy_gbs, std::string traffic) {
  BenchRow r;
  r.name = std::move(name);
  r.precision = std::move(precision);
  r.ms = ms;
  r.gcells_per_s = cells / (ms * 1e6);
  r.gbytes_per_s = bytes / (ms * 1e6);
  r.fraction_of_copy = copy_gbs > 0 ? r.gbytes_per_s / copy_gbs : 0;
  r.traffic = std::move(traffic);
  return r;
}

namespace bench_detail {

template StencilOperator<float> laplacian<float>(int, Device);
template StencilOperator<double> laplacian<double>(int, Device);
template Field<float> random_field<float>(int, Device, std::uint64_t);
template Field<double> random_field<double>(int, Device, std::uint64_t);

}  // namespace bench_detail

namespace {

using namespace bench_detail;

template <class F>
double time_host_ms(int repeats, F&& f) {
  f();  // warm-up: first touch of pages, thread start
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median(t);
}

// Each thread copies its own contiguous share, as a threaded stencil sweep streams.
BenchRow cpu_copy(int repeats) {
  const std::size_t bytes = std::size_t(512) << 20;
  Buffer<char> src(Device::cpu, bytes), dst(Device::cpu, bytes);
  std::memset(src.data(), 0x5a, bytes);
  std::memset(dst.data(), 0x33, bytes);
  const double ms = time_host_ms(repeats, [&] {
#pragma omp parallel
    {
      const std::size_t t = std::size_t(omp_get_thread_num()),
                        nt = std::size_t(omp_get_num_threads());
      const std::size_t lo = bytes * t / nt, hi = bytes * (t + 1) / nt;
      std::memcpy(dst.data() + lo, src.data() + lo, hi - lo);
    }
  });
  BenchRow r =
      make_row(fmt::format("memcpy, {} threads", cpu_threads()), "-", ms, 0, 0, 0, "read + write");
  r.gbytes_per_s = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  r.gcells_per_s = 0;
  r.fraction_of_copy = 1;
  return r;
}

template <class T>
void cpu_rows(int n, int repeats, double copy_gbs, std::vector<BenchRow>& rows) {
  const char* prec = sizeof(T) == 8 ? "fp64" : "fp32";
  const double cells = double(n - 2) * double(n - 2);
  const StencilOperator<T> op = laplacian<T>(n, Device::cpu);
  Field<T> a = random_field<T>(n, Device::cpu, 1), b = random_field<T>(n, Device::cpu, 2);
  bool flip = false;
  const double jac = time_host_ms(repeats, [&] {
    jacobi_sweep_generic(op, flip ? b : a, flip ? a : b, T(1));
    flip = !flip;
  });
  rows.push_back(make_row("jacobi sweep, CPU rows, streaming stores", prec, jac, cells,
                          2.0 * sizeof(T), copy_gbs, jacobi_traffic));
  const double rb = time_host_ms(repeats, [&] { red_black_iteration_generic(op, a, T(1.5)); });
  rows.push_back(make_row("red-black SOR iteration, generic natural", prec, rb, cells,
                          3.0 * sizeof(T), copy_gbs, sor_traffic));
}

}  // namespace

std::vector<BenchRow> run_stencil_bench(Device d, int n, int repeats) {
  require(n >= 3, fmt::format("the stencil benchmark needs n >= 3 nodes per side, got {}", n));
  require(repeats >= 1, fmt::format("the stencil benchmark needs repeats >= 1, got {}", repeats));
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    return run_cuda(n, repeats);
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  }
  std::vector<BenchRow> rows;
  rows.push_back(cpu_copy(repeats));
  cpu_rows<float>(n, repeats, rows[0].gbytes_per_s, rows);
  cpu_rows<double>(n, repeats, rows[0].gbytes_per_s, rows);
  return rows;
}

}  // namespace gridsolve
