// Jacobi iteration (optionally weighted), convergence tested on the device every k sweeps.
#include "gridsolve/solve/jacobi.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <type_traits>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_steps.hpp"
#include "gridsolve/solve/jacobi_rows_x86.hpp"
#if GRIDSOLVE_HAVE_CUDA
#include "gridsolve/solve/cuda/tuned_kernels.hpp"
#endif

namespace gridsolve {

namespace {

#if defined(__SSE2__)
// One vector of a row: loads unaligned (neighbours are off by one), store streaming
// (a sweep writes every node once and reads none back soon, so the line need not be
// fetched first: that read would add half the traffic).
struct RowKernel2 {
  __m128d keep, c0, cx, cy;
  RowKernel2(double k, double b, double x, double y)
      : keep(_mm_set1_pd(k)), c0(_mm_set1_pd(b)), cx(_mm_set1_pd(x)), cy(_mm_set1_pd(y)) {}
  static constexpr int lanes = 2;
  void operator()(double* o, const double* c, const double* s, const double* n) const {
    const __m128d side = _mm_add_pd(_mm_loadu_pd(c - 1), _mm_loadu_pd(c + 1));
    const __m128d vert = _mm_add_pd(_mm_loadu_pd(s), _mm_loadu_pd(n));
    const __m128d r = _mm_add_pd(_mm_add_pd(_mm_mul_pd(keep, _mm_loadu_pd(c)), c0),
                                 _mm_add_pd(_mm_mul_pd(cx, side), _mm_mul_pd(cy, vert)));
    _mm_stream_pd(o, r);
  }
};
struct RowKernel4 {
  __m128 keep, c0, cx, cy;
  RowKernel4(float k, float b, float x, float y)
      : keep(_mm_set1_ps(k)), c0(_mm_set1_ps(b)), cx(_mm_set1_ps(x)), cy(_mm_set1_ps(y)) {}
  static constexpr int lanes = 4;
  void operator()(float* o, const float* c, const float* s, const float* n) const {
    const __m128 side = _mm_add_ps(_mm_loadu_ps(c - 1), _mm_loadu_ps(c + 1));
    const __m128 vert = _mm_add_ps(_mm_loadu_ps(s), _mm_loadu_ps(n));
    const __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(keep, _mm_loadu_ps(c)), c0),
                                _mm_add_ps(_mm_mul_ps(cx, side), _mm_mul_ps(cy, vert)));
    _mm_stream_ps(o, r);
  }
};
template <class T>
using RowKernel = std::conditional_t<sizeof(T) == 8, RowKernel2, RowKernel4>;
#endif

// The CPU path of the common case (2D, uniform coefficients, no mask, constant b):
// rows in parallel, each written with streaming stores: AVX2 where the processor has
// it, SSE2 otherwise (every x86-64), scalar for the ends.
template <class T>
void jacobi_sweep_streaming_cpu(const StencilView<T>& a, const FieldView<const T>& u,
                                const FieldView<T>& v, T weight) {
  const T cx = a.cw * weight / a.cp, cy = a.cs * weight / a.cp, c0 = a.b_const * weight / a.cp;
  const T keep = T(1) - weight;
  const Box b = a.active;
  const bool parallel = b.cells() >= cpu_parallel_threshold;
  const bool avx2 = cpu_has_avx2();
#pragma omp parallel for schedule(static) if (parallel)
  for (int j = b.lo[1]; j <= b.hi[1]; ++j) {
    const T* c = &u(0, j, 0);
    const T* s = &u(0, j - 1, 0);
    const T* n = &u(0, j + 1, 0);
    T* o = &v(0, j, 0);
    auto at = [&](int i) {
      return keep * c[i] + c0 + cx * (c[i - 1] + c[i + 1]) + cy * (s[i] + n[i]);
    };
    int i = b.lo[0];
    if (avx2) i = jacobi_row_avx2(o, c, s, n, i, b.hi[0], keep, c0, cx, cy);
#if defined(__SSE2__)
    const RowKernel<T> vec(keep, c0, cx, cy);
    constexpr int lanes = RowKernel<T>::lanes;
    for (; i <= b.hi[0] && (reinterpret_cast<std::uintptr_t>(o + i) % 16) != 0; ++i) o[i] = at(i);
    for (; i + lanes - 1 <= b.hi[0]; i += lanes) vec(o + i, c + i, s + i, n + i);
#endif
    for (; i <= b.hi[0]; ++i) o[i] = at(i);
  }
#if defined(__SSE2__)
  _mm_sfence();  // streaming stores are weakly ordered: publish them before returning
#endif
}

}  // namespace

template <class T>
void jacobi_sweep_generic(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out, T weight,
                          const Field<T>* b) {
  op.refresh_images(in);
  const StencilView<T> a = op.view(b);
  const FieldView<const T> u = in.cview();
  const FieldView<T> v = out.view();
  // (The row kernels index rows from x = 0, so a rank's part, whose rows start
  // elsewhere, takes the generic loop below.)
  if (op.device == Device::cpu && a.uniform && !a.mask && !a.rhs && a.dims == 2 && !op.parts) {
    jacobi_sweep_streaming_cpu(a, u, v, weight);
    return;
  }
  if (a.uniform && !a.mask && !a.rhs && a.dims == 2) {
    // The common 2D case with every branch hoisted out of the loop body.
    const T cx = a.cw * weight / a.cp, cy = a.cs * weight / a.cp, c0 = a.b_const * weight / a.cp;
    const T keep = T(1) - weight;
    for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      v(i, j, k) = keep * u(i, j, k) + c0 + cx * (u(i - 1, j, k) + u(i + 1, j, k)) +
                   cy * (u(i, j - 1, k) + u(i, j + 1, k));
    });
    return;
  }
  for_each(op.device, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const T old = u(i, j, k);
    v(i, j, k) =
        a.is_free(i, j, k)
            ? old + weight * ((a.b(i, j, k) + a.neighbours(u, i, j, k)) / a.diag(i, j, k) - old)
            : old;
  });
}

template <class T>
double jacobi_sweep_generic_measuring(const StencilOperator<T>& op, const Field<T>* b,
                                      const Field<T>& in, Field<T>& out, T weight) {
  op.refresh_images(in);
  const StencilView<T> a = op.view(b);
  const FieldView<const T> u = in.cview();
  const FieldView<T> v = out.view();
  const double largest = reduce<double>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const T old = u(i, j, k);
        if (!a.is_free(i, j, k)) {
          v(i, j, k) = old;
          return 0.0;
        }
        const T next =
            old + weight * ((a.b(i, j, k) + a.neighbours(u, i, j, k)) / a.diag(i, j, k) - old);
        v(i, j, k) = next;
        const double d = double(next) - double(old);
        return d < 0 ? -d : d;
      },
      MaxOp{}, 0.0);
  // Every rank stops on the largest update of them all.
  return op.parts ? Communicator::world().max(largest) : largest;
}

#if GRIDSOLVE_HAVE_CUDA
namespace {

// The tuned sweep of a rank's part with its ghost exchange hidden behind it: the faces go
// out on a stream of their own (packing, NCCL, unpacking) while the legacy stream sweeps
// the nodes that read no ghost; the strips next to the faces that receive messages are
// swept once the ghosts are in. Where a sweep is short (a 4097^2 plate on two GPUs: some
// 40 us each for the sweep and for the exchange) the exchange would otherwise double it.
template <class T>
class OverlappedSweep {
 public:
  explicit OverlappedSweep(const StencilOperator<T>& op) {
    Box rest = op.active;
    for (int a = 0; a < op.grid.dims; ++a)
      for (int side = 0; side < 2; ++side) {
        if (op.parts->at_global_side(op.rank, a, side) || rest.empty()) continue;
        Box strip = rest;
        if (side == 0)
          strip.hi[a] = rest.lo[a], rest.lo[a] += 1;
        else
          strip.lo[a] = rest.hi[a], rest.hi[a] -= 1;
        strips_.push_back(strip);
      }
    interior_ = rest;
    cuda::check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "exchange stream");
    cuda::check(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "exchange event");
    cuda::check(cudaEventCreateWithFlags(&arrived_, cudaEventDisableTiming), "exchange event");
  }
  ~OverlappedSweep() {
    cudaStreamSynchronize(side_);
    cudaEventDestroy(ready_);
    cudaEventDestroy(arrived_);
    cudaStreamDestroy(side_);
  }
  OverlappedSweep(const OverlappedSweep&) = delete;
  OverlappedSweep& operator=(const OverlappedSweep&) = delete;

  void sweep(const StencilOperator<T>& op, const Field<T>& in, Field<T>& out, T weight,
             double* max_update) {
    // The faces are packed once the last sweep has written them (the tuned sweeps run on
    // the legacy stream); the interior sweep reads no ghost, so it runs beside the messages.
    cuda::check(cudaEventRecord(ready_, cudaStreamLegacy), "exchange event");
    cuda::check(cudaStreamWaitEvent(side_, ready_, 0), "exchange wait");
    {
      const cuda::ExecStreamScope on_side(side_);
      op.refresh_images(in);
    }
    cuda::check(cudaEventRecord(arrived_, side_), "exchange event");
    tuned::jacobi_sweep(op, in, out, weight, max_update, &interior_, true);
    cuda::check(cudaStreamWaitEvent(cudaStreamLegacy, arrived_, 0), "exchange wait");
    for (const Box& strip : strips_)
      tuned::jacobi_sweep(op, in, out, weight, max_update, &strip, false);
  }

 private:
  Box interior_;
  std::vector<Box> strips_;
  cudaStream_t side_ = nullptr;
  cudaEvent_t ready_ = nullptr, arrived_ = nullptr;
};

}  // namespace
#endif

template <class T>
SolveReport Jacobi<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  const StencilOperator<T>& op = this->stencil();
  SolveReport report;
  report.solver = name();
  ConvergenceMonitor monitor(options, report);
  if (options.check_every == 0) monitor.set_every(options.rule == StopRule::update ? 10 : 20);
  const T w = T(options.weight);
  const double scale = residual_scale(op, b, u, report);

#if GRIDSOLVE_HAVE_CUDA
  // The tuned kernel reads the operator's own right-hand side, and its packed loads need
  // rows aligned from x = 0: a rank's part takes it when its x range starts on a pack
  // (its ghosts then come by message before each sweep), else the generic sweep.
  const bool tuned = options.tuned && b == nullptr && tuned::jacobi_applies(op) &&
                     tuned::jacobi_layout_fits(op, u);
#else
  const bool tuned = false;
#endif
  report.kernel = tuned ? "tuned" : "generic";
#if GRIDSOLVE_HAVE_CUDA
  double* device_max = nullptr;
  Buffer<double> max_buffer;
  if (tuned) {
    max_buffer = Buffer<double>(Device::cuda, 1);
    device_max = max_buffer.data();
  }
  // On ranks linked by NCCL the exchange runs beside the interior sweep (staged through the
  // host it would wait for the device anyway).
  std::unique_ptr<OverlappedSweep<T>> overlapped;
  if (tuned && op.parts && op.parts->ranks() > 1 && DeviceLink::world().uses_nccl())
    overlapped = std::make_unique<OverlappedSweep<T>>(op);
#endif

  Field<T> other = u.copy_to(u.device());  // fixed nodes and ghosts match in both
  Field<T>* cur = &u;
  Field<T>* next = &other;
  for (int it = 1;; ++it) {
    const bool check = monitor.due(it);
    const bool measure_update = check && options.rule == StopRule::update;
    double update = 0;
    if (tuned) {
#if GRIDSOLVE_HAVE_CUDA
      double* max = measure_update ? device_max : nullptr;
      if (overlapped) {
        overlapped->sweep(op, *cur, *next, w, max);
      } else {
        op.refresh_images(*cur);  // on ranks: the faces from the neighbours
        tuned::jacobi_sweep(op, *cur, *next, w, max);
      }
      if (measure_update) {
        copy_bytes(&update, Device::cpu, device_max, Device::cuda, sizeof(double));
        if (op.parts) update = Communicator::world().max(update);  // every rank stops alike
      }
#endif
    } else if (measure_update) {
      update = jacobi_sweep_generic_measuring(op, b, *cur, *next, w);
    } else {
      jacobi_sweep_generic(op, *cur, *next, w, b);
    }
    std::swap(cur, next);
    if (!check) continue;
    report.last_update = update;
    const double watched =
        options.rule == StopRule::update ? update : op.residual_norm(b, *cur) / scale;
    if (monitor.check(it, watched)) break;
  }
  if (cur != &u) u.copy_from(*cur);
  finish_solve(op, b, u, scale, monitor, options, report);
  return report;
}

template class Jacobi<float>;
template class Jacobi<double>;
template void jacobi_sweep_generic<float>(const StencilOperator<float>&, const Field<float>&,
                                          Field<float>&, float, const Field<float>*);
template void jacobi_sweep_generic<double>(const StencilOperator<double>&, const Field<double>&,
                                           Field<double>&, double, const Field<double>*);

}  // namespace gridsolve
