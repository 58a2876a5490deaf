// Stencil benchmark, GPU half: copy ceiling, tuned kernels, the plain peer kernel and the
// generic loops, timed with device events.
#include <cuda_runtime.h>

#include "gridsolve/bench/stencil_bench_detail.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/red_black_sor.hpp"

namespace gridsolve::bench_detail {

namespace {

class Events {
 public:
  Events() {
    cuda::check(cudaEventCreate(&start_), "event creation");
    cuda::check(cudaEventCreate(&stop_), "event creation");
  }
  ~Events() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;

  // Median over `repeats` single calls, after warm-up calls that load modules and fill
  // the caches' steady state.
  template <class F>
  double median_ms(int repeats, F&& f) {
    for (int w = 0; w < 3; ++w) f();
    cuda::check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
      cuda::check(cudaEventRecord(start_), "event record");
      f();
      cuda::check(cudaEventRecord(stop_), "event record");
      cuda::check(cudaEventSynchronize(stop_), "timed kernel");
      float ms = 0;
      cuda::check(cudaEventElapsedTime(&ms, start_, stop_), "event timing");
      t.push_back(ms);
    }
    return median(t);
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// The peer: what a plain CUDA port looks like, one thread per node, 32 x 8 blocks,
// natural layout, every neighbour a separate load.
template <class T>
__global__ void plain_jacobi_kernel(const T* __restrict__ in, T* __restrict__ out,
                                    std::int64_t pitch, int n, T cw, T ce, T cs, T cn, T b,
                                    T inv_cp) {
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > n - 2 || j > n - 2) return;
  const std::int64_t p = i + pitch * j;
  out[p] = (b + cw * in[p - 1] + ce * in[p + 1] + cs * in[p - pitch] + cn * in[p + pitch]) * inv_cp;
}

template <class T>
void plain_jacobi(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out) {
  const int n = op.grid.n[0];
  const dim3 block(32, 8);
  const dim3 grid(unsigned((n - 2 + 31) / 32), unsigned((n - 2 + 7) / 8));
  plain_jacobi_kernel<T><<<grid, block>>>(in.cview().data, out.view().data, in.layout().pitch, n,
                                          op.cw, op.ce, op.cs, op.cn, op.b_const, T(1) / op.cp);
  cuda::check_launch("plain Jacobi kernel");
}

BenchRow cuda_copy(Events& ev, int repeats) {
  const std::size_t bytes = std::size_t(2) << 30;  // far beyond L2: DRAM both ways
  Buffer<char> src(Device::cuda, bytes), dst(Device::cuda, bytes);
  cuda::check(cudaMemset(src.data(), 0x5a, bytes), "memset");
  cuda::check(cudaMemset(dst.data(), 0x33, bytes), "memset");
  const double ms = ev.median_ms(repeats, [&] {
    cuda::check(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice), "copy");
  });
  BenchRow r = make_row("device-to-device copy (cudaMemcpy)", "-", ms, 0, 0, 0, "read + write");
  r.gbytes_per_s = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  r.fraction_of_copy = 1;
  return r;
}

template <class T>
void cuda_rows(Events& ev, int n, int repeats, double copy_gbs, std::vector<BenchRow>& rows) {
  const char* prec = sizeof(T) == 8 ? "fp64" : "fp32";
  const double cells = double(n - 2) * double(n - 2);
  const double jb = 2.0 * sizeof(T), sb = 3.0 * sizeof(T);
  const StencilOperator<T> op = laplacian<T>(n, Device::cuda);
  Field<T> a = random_field<T>(n, Device::cuda, 11), b = random_field<T>(n, Device::cuda, 12);
  bool flip = false;
  auto ping = [&](auto&& sweep) {
    return [&, sweep] {
      sweep(flip ? b : a, flip ? a : b);
      flip = !flip;
    };
  };
  const double tuned = ev.median_ms(repeats, ping([&](const Field<T>& x, Field<T>& y) {
                                      tuned::jacobi_sweep(op, x, y, T(1), nullptr);
                                    }));
  rows.push_back(make_row("jacobi sweep, tuned", prec, tuned, cells, jb, copy_gbs, jacobi_traffic));
  const double plain =
      ev.median_ms(repeats, ping([&](const Field<T>& x, Field<T>& y) { plain_jacobi(op, x, y); }));
  rows.push_back(make_row("jacobi sweep, plain kernel 32x8 (peer)", prec, plain, cells, jb,
                          copy_gbs, jacobi_traffic));
  const double generic = ev.median_ms(
      repeats, ping([&](const Field<T>& x, Field<T>& y) { jacobi_sweep_generic(op, x, y, T(1)); }));
  rows.push_back(make_row("jacobi sweep, generic for_each", prec, generic, cells, jb, copy_gbs,
                          jacobi_traffic));
  {
    tuned::ColouredSor<T> sor(op, a);
    const double ms = ev.median_ms(repeats, [&] { sor.iterate(T(1.5), 1); });
    rows.push_back(make_row("red-black SOR iteration, tuned coloured", prec, ms, cells, sb,
                            copy_gbs, sor_traffic));
  }
  const double rb = ev.median_ms(repeats, [&] { red_black_iteration_generic(op, a, T(1.5)); });
  rows.push_back(make_row("red-black SOR iteration, generic natural", prec, rb, cells, sb, copy_gbs,
                          sor_traffic));
}

}  // namespace

std::vector<BenchRow> run_cuda(int n, int repeats) {
  Events ev;
  std::vector<BenchRow> rows;
  rows.push_back(cuda_copy(ev, repeats));
  cuda_rows<float>(ev, n, repeats, rows[0].gbytes_per_s, rows);
  cuda_rows<double>(ev, n, repeats, rows[0].gbytes_per_s, rows);
  return rows;
}

}  // namespace gridsolve::bench_detail
