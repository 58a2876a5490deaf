// LineFft on the GPU: one cuFFT plan per shape (the advanced layout takes any stride and
// distance), batches above 2^24 transforms split into several calls.
#include <cufft.h>

#include <algorithm>
#include <climits>

#include "gridsolve/core/error.hpp"
#include "gridsolve/transform/cufft_calls.cuh"
#include "gridsolve/transform/line_fft.hpp"

namespace gridsolve {

namespace {

template <class T>
class CufftLines final : public LineFft<T> {
  using F = Cufft<T>;
  using C = typename F::complex;

 public:
  explicit CufftLines(const LineShape& s) : s_(s) {
    // cuFFT counts batches, strides and distances in int.
    require(s.stride <= INT_MAX && s.distance <= INT_MAX && s.out_stride <= INT_MAX &&
                s.out_distance <= INT_MAX,
            "line transforms: strides beyond cuFFT's int");
    batch_ = int(std::min<std::int64_t>(s.count, std::int64_t(1) << 24));
    if (s.count == 0) return;
    int n = s.length, in_embed = s.length, out_embed = s.length;
    const cufftType type = s.kind == LineKind::r2c   ? F::r2c
                           : s.kind == LineKind::c2r ? F::c2r
                                                     : F::c2c;
    check_fft(cufftPlanMany(&plan_, 1, &n, &in_embed, int(s.stride), int(s.distance), &out_embed,
                            int(s.out_stride), int(s.out_distance), type, batch_),
              "line plan");
    planned_ = true;
  }
  ~CufftLines() override {
    if (planned_) cufftDestroy(plan_);
  }
  void run(T* in, T* out, int sign) override {
    // Elements of T per batch step on each side (complex values are two).
    const std::int64_t in_scale = s_.kind == LineKind::r2c ? 1 : 2;
    const std::int64_t out_scale = s_.kind == LineKind::c2r ? 1 : 2;
    for (std::int64_t b = 0; b < s_.count; b += batch_) {
      T* i = in + b * s_.distance * in_scale;
      T* o = out + b * s_.out_distance * out_scale;
      if (s_.count - b < batch_) {  // the last, shorter batch: a plan of its own
        CufftLines<T> rest(LineShape{s_.kind, s_.length, s_.count - b, s_.stride, s_.distance,
                                     s_.out_stride, s_.out_distance});
        rest.run(i, o, sign);
        return;
      }
      cufftResult r = CUFFT_SUCCESS;
      if (s_.kind == LineKind::r2c)
        r = F::exec_r2c(plan_, i, reinterpret_cast<C*>(o));
      else if (s_.kind == LineKind::c2r)
        r = F::exec_c2r(plan_, reinterpret_cast<C*>(i), o);
      else
        r = F::exec_c2c(plan_, reinterpret_cast<C*>(i), reinterpret_cast<C*>(o),
                        sign > 0 ? CUFFT_INVERSE : CUFFT_FORWARD);
      check_fft(r, "line transform");
    }
  }

 private:
  LineShape s_;
  int batch_ = 0;
  cufftHandle plan_{};
  bool planned_ = false;
};

}  // namespace

template <class T>
std::unique_ptr<LineFft<T>> make_line_fft_cuda(const LineShape& shape) {
  return std::make_unique<CufftLines<T>>(shape);
}

template std::unique_ptr<LineFft<float>> make_line_fft_cuda<float>(const LineShape&);
template std::unique_ptr<LineFft<double>> make_line_fft_cuda<double>(const LineShape&);

}  // namespace gridsolve
