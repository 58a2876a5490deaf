// Direct-solver benchmarks on the GPU: device events, warm-up, medians; cuSPARSE
// gtsv2StridedBatch / gtsv2_nopivot and a cuFFT R2C + C2R pair as the peers.
#include <cufft.h>
#include <cusparse.h>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "gridsolve/bench/device_timing.cuh"
#include "gridsolve/bench/direct_bench.hpp"
#include "gridsolve/bench/direct_bench_data.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/buneman/buneman.hpp"
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::detail {

namespace {

void check_sparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw Error(fmt::format("cuSPARSE {} failed: {}", what, cusparseGetErrorString(s)),
                Error::Kind::runtime);
}

using bench::time_ms;

BenchRow row(const std::string& name, const char* prec, double ms, double cells, double bytes,
             double copy_gbs, const std::string& traffic) {
  return bench_row(name, prec, ms, cells, bytes, copy_gbs, traffic);
}

double copy_row(std::vector<BenchRow>& out, int repeats) {
  const std::size_t bytes = std::size_t(1) << 30;
  Buffer<char> a(Device::cuda, bytes), b(Device::cuda, bytes);
  cudaMemset(a.data(), 1, bytes);
  const double ms =
      time_ms(repeats, [&] { cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice); });
  const double gbs = 2.0 * bytes / (ms * 1e6);
  out.push_back(row("copy (cudaMemcpy, 1 GiB)", "-", ms, 0, 2.0 * bytes, gbs, "read + write"));
  return gbs;
}

template <class T>
Buffer<T> upload(const std::vector<T>& v) {
  Buffer<T> b(Device::cuda, v.size());
  copy_bytes(b.data(), Device::cuda, v.data(), Device::cpu, v.size() * sizeof(T));
  return b;
}

}  // namespace

std::vector<BenchRow> tridiag_bench_cuda(int rows, int systems, int long_rows, int repeats) {
  std::vector<BenchRow> out;
  const double copy = copy_row(out, repeats);
  const std::size_t size = std::size_t(rows) * systems;
  std::vector<double> a, b, c, d;
  bench_data::tridiagonal(size, a, b, c, d, 1);
  for (int s = 0; s < systems; ++s)
    a[std::size_t(s) * rows] = 0, c[std::size_t(s) * rows + rows - 1] = 0;
  Buffer<double> da = upload(a), db = upload(b), dc = upload(c), dd = upload(d),
                 dx(Device::cuda, size);
  auto reset = [&] { cudaMemcpyAsync(dx.data(), dd.data(), size * 8, cudaMemcpyDeviceToDevice); };
  const double bytes = 40.0 * size;
  const std::string shape = fmt::format("{} x {}", systems, rows);
  using tridiag::Layout;
  using tridiag::Method;
  // Ours on `count` systems of `n` rows taken from the same arrays.
  auto ours = [&](Layout layout, Method m, int count, int n) {
    const tridiag::Batch<double> bt{da.data(), db.data(), dc.data(), dx.data(), n, count, layout};
    const std::size_t unknowns = std::size_t(n) * count;
    tridiag::solve(Device::cuda, bt, {m, true});  // checks the pivots once
    const double ms = time_ms(
        repeats,
        [&] {
          tridiag::solve(Device::cuda, bt, {m, false});
        },
        reset);
    out.push_back(row(fmt::format("ours {}, {} x {} {}", tridiag::to_string(m), count, n,
                                  tridiag::to_string(layout)),
                      "fp64", ms, double(unknowns), 40.0 * unknowns, copy, "5 words/unknown"));
  };
  // The pipelined Thomas in both layouts, and the one-block-per-system CR-PCR where a
  // system fits in shared memory.
  ours(Layout::strided, Method::thomas, systems, rows);
  ours(Layout::interleaved, Method::thomas, systems, rows);
  if (rows <= 4096) ours(Layout::strided, Method::cr_pcr, systems, rows);
  // The strided batch as one block-diagonal system by partitions (what `auto` picks).
  ours(Layout::strided, Method::partitioned, systems, rows);
  // Interleaved systems by partitions (what `auto` picks): on chip in clusters of blocks
  // at this size; and, on the same number of unknowns, short systems (on chip in a
  // block), 1024 rows (clusters) and 16384 rows (two passes).
  ours(Layout::interleaved, Method::partitioned, systems, rows);
  if (rows >= 16 && size % 256 == 0)
    for (Method m : {Method::thomas, Method::partitioned})
      ours(Layout::interleaved, m, int(size / 256), 256);
  for (int long_n : {1024, 16384})
    if (long_n != rows && size % std::size_t(long_n) == 0 && size / long_n >= 32)
      ours(Layout::interleaved, Method::partitioned, int(size / long_n), long_n);

  cusparseHandle_t h;
  check_sparse(cusparseCreate(&h), "create");
  std::size_t buf = 0;
  check_sparse(cusparseDgtsv2StridedBatch_bufferSizeExt(h, rows, da.data(), db.data(), dc.data(),
                                                        dx.data(), systems, rows, &buf),
               "gtsv2StridedBatch buffer size");
  Buffer<char> work(Device::cuda, std::max<std::size_t>(buf, 1));
  const double sp = time_ms(
      repeats,
      [&] {
        check_sparse(cusparseDgtsv2StridedBatch(h, rows, da.data(), db.data(), dc.data(), dx.data(),
                                                systems, rows, work.data()),
                     "gtsv2StridedBatch");
      },
      reset);
  out.push_back(row(fmt::format("cuSPARSE gtsv2StridedBatch, {} strided", shape), "fp64", sp,
                    double(size), bytes, copy, "5 words/unknown"));

  // cuSPARSE's interleaved batch (algorithm 0, Thomas), on its own copies of the
  // coefficients with its out-of-range entries zeroed (restored before every call, in
  // case it overwrites them), against ours in the same layout.
  {
    std::vector<double> ia = a, ic = c;
    for (std::size_t s = 0; s < std::size_t(systems); ++s)
      ia[s] = 0, ic[std::size_t(rows - 1) * systems + s] = 0;
    Buffer<double> oa = upload(ia), oc = upload(ic), wa(Device::cuda, size), wb(Device::cuda, size),
                   wc(Device::cuda, size);
    auto reset_all = [&] {
      reset();
      cudaMemcpyAsync(wa.data(), oa.data(), size * 8, cudaMemcpyDeviceToDevice);
      cudaMemcpyAsync(wb.data(), db.data(), size * 8, cudaMemcpyDeviceToDevice);
      cudaMemcpyAsync(wc.data(), oc.data(), size * 8, cudaMemcpyDeviceToDevice);
    };
    std::size_t ibuf = 0;
    check_sparse(cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, rows, wa.data(), wb.data(),
                                                             wc.data(), dx.data(), systems, &ibuf),
                 "gtsvInterleavedBatch buffer size");
    Buffer<char> iwork(Device::cuda, std::max<std::size_t>(ibuf, 1));
    const double ip = time_ms(
        repeats,
        [&] {
          check_sparse(cusparseDgtsvInterleavedBatch(h, 0, rows, wa.data(), wb.data(), wc.data(),
                                                     dx.data(), systems, iwork.data()),
                       "gtsvInterleavedBatch");
        },
        reset_all);
    out.push_back(row(fmt::format("cuSPARSE gtsvInterleavedBatch (Thomas), {} interleaved", shape),
                      "fp64", ip, double(size), bytes, copy, "5 words/unknown"));
  }

  // One long system.
  std::vector<double> la, lb, lc, ld;
  bench_data::tridiagonal(std::size_t(long_rows), la, lb, lc, ld, 2);
  la[0] = 0, lc[std::size_t(long_rows) - 1] = 0;
  Buffer<double> ea = upload(la), eb = upload(lb), ec = upload(lc), ed = upload(ld),
                 ex(Device::cuda, ld.size());
  auto reset_long = [&] {
    cudaMemcpyAsync(ex.data(), ed.data(), ld.size() * 8, cudaMemcpyDeviceToDevice);
  };
  const double lbytes = 40.0 * long_rows;
  {
    const tridiag::Batch<double> bt{ea.data(), eb.data(), ec.data(),      ex.data(),
                                    long_rows, 1,         Layout::strided};
    tridiag::solve(Device::cuda, bt, {Method::partitioned, true});
    const double ms = time_ms(
        repeats,
        [&] {
          tridiag::solve(Device::cuda, bt, {Method::partitioned, false});
        },
        reset_long);
    out.push_back(row(fmt::format("ours partitioned, one system of {}", long_rows), "fp64", ms,
                      double(long_rows), lbytes, copy, "5 words/unknown"));
  }
  check_sparse(cusparseDgtsv2_nopivot_bufferSizeExt(h, long_rows, 1, ea.data(), eb.data(),
                                                    ec.data(), ex.data(), long_rows, &buf),
               "gtsv2_nopivot buffer size");
  Buffer<char> lwork(Device::cuda, std::max<std::size_t>(buf, 1));
  const double lsp = time_ms(
      repeats,
      [&] {
        check_sparse(cusparseDgtsv2_nopivot(h, long_rows, 1, ea.data(), eb.data(), ec.data(),
                                            ex.data(), long_rows, lwork.data()),
                     "gtsv2_nopivot");
      },
      reset_long);
  out.push_back(row(fmt::format("cuSPARSE gtsv2_nopivot, one system of {}", long_rows), "fp64", lsp,
                    double(long_rows), lbytes, copy, "5 words/unknown"));
  cusparseDestroy(h);
  return out;
}

std::vector<BenchRow> poisson_bench_cuda(int n, int repeats) {
  std::vector<BenchRow> out;
  const double copy = copy_row(out, repeats);
  const std::size_t size = std::size_t(n) * n;
  Buffer<double> rhs = upload(bench_data::uniform<double>(size, 3)), x(Device::cuda, size);
  auto reset = [&] { cudaMemcpyAsync(x.data(), rhs.data(), size * 8, cudaMemcpyDeviceToDevice); };
  const double bytes = 16.0 * size;
  fast_poisson::TransformProblem p;
  p.m = {n, n, 1};
  p.h = {1.0 / (n + 1), 1.0 / (n + 1), 1};
  {
    fast_poisson::TransformPoisson<double> fft(Device::cuda, p);
    const double ms = time_ms(
        repeats, [&] { fft.solve(x.data()); }, reset);
    out.push_back(row(fmt::format("ours fft (sine transform + lines), {}^2", n), "fp64", ms,
                      double(size), bytes, copy, "2 words/unknown"));
  }
  if (buneman::BlockCyclicReduction<double>::rows_allowed(n)) {
    buneman::BlockCyclicReduction<double> bcr(Device::cuda, n, n, 4, 1, 1);
    const double ms = time_ms(
        repeats, [&] { bcr.solve(x.data()); }, reset);
    out.push_back(row(fmt::format("ours buneman, {}^2", n), "fp64", ms, double(size), bytes, copy,
                      "2 words/unknown"));
  }
  // Peer: periodic 2D real FFT forward and back on (n+1)^2 (4096^2 for n = 4095).
  const int np = n + 1;
  Buffer<double> real(Device::cuda, std::size_t(np) * np);
  Buffer<cufftDoubleComplex> spec(Device::cuda, std::size_t(np) * (np / 2 + 1));
  cudaMemset(real.data(), 0, std::size_t(np) * np * 8);
  copy_bytes(real.data(), Device::cuda, rhs.data(), Device::cuda, size * 8);
  cufftHandle f, b;
  if (cufftPlan2d(&f, np, np, CUFFT_D2Z) != CUFFT_SUCCESS ||
      cufftPlan2d(&b, np, np, CUFFT_Z2D) != CUFFT_SUCCESS)
    throw Error("cuFFT plan failed", Error::Kind::runtime);
  const double ms = time_ms(repeats, [&] {
    cufftExecD2Z(f, real.data(), spec.data());
    cufftExecZ2D(b, spec.data(), real.data());
  });
  out.push_back(row(fmt::format("cuFFT D2Z + Z2D periodic, {}^2", np), "fp64", ms, double(np) * np,
                    16.0 * np * np, copy, "2 words/unknown"));
  cufftDestroy(f);
  cufftDestroy(b);
  return out;
}

}  // namespace gridsolve::detail
