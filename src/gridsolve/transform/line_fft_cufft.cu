// LineFft on the GPU: one cuFFT plan per shape (the advanced layout takes any stride and
// distance), batches above cuFFT's int count split into several calls.
#include <cufft.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/transform/line_fft.hpp"

namespace gridsolve {

namespace {

void check_fft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(fmt::format("cuFFT {} failed (error {})", what, int(r)), Error::Kind::runtime);
}

template <class T>
struct Cufft;
template <>
struct Cufft<float> {
  using complex = cufftComplex;
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static cufftResult run(cufftHandle p, LineKind k, float* in, float* out, int sign) {
    if (k == LineKind::r2c) return cufftExecR2C(p, in, reinterpret_cast<complex*>(out));
    if (k == LineKind::c2r) return cufftExecC2R(p, reinterpret_cast<complex*>(in), out);
    return cufftExecC2C(p, reinterpret_cast<complex*>(in), reinterpret_cast<complex*>(out),
                        sign > 0 ? CUFFT_INVERSE : CUFFT_FORWARD);
  }
};
template <>
struct Cufft<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
  static cufftResult run(cufftHandle p, LineKind k, double* in, double* out, int sign) {
    if (k == LineKind::r2c) return cufftExecD2Z(p, in, reinterpret_cast<complex*>(out));
    if (k == LineKind::c2r) return cufftExecZ2D(p, reinterpret_cast<complex*>(in), out);
    return cufftExecZ2Z(p, reinterpret_cast<complex*>(in), reinterpret_cast<complex*>(out),
                        sign > 0 ? CUFFT_INVERSE : CUFFT_FORWARD);
  }
};

template <class T>
class CufftLines final : public LineFft<T> {
  using F = Cufft<T>;

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
    // Elements per batch on each side, in T (complex values are two).
    const std::int64_t in_scale = s_.kind == LineKind::r2c ? 1 : 2;
    const std::int64_t out_scale = s_.kind == LineKind::c2r ? 1 : 2;
    for (std::int64_t b = 0; b < s_.count; b += batch_) {
      if (s_.count - b < batch_) {  // the last, shorter batch: a plan of its own
        CufftLines<T> rest(LineShape{s_.kind, s_.length, s_.count - b, s_.stride, s_.distance,
                                     s_.out_stride, s_.out_distance});
        rest.run(in + b * s_.distance * in_scale, out + b * s_.out_distance * out_scale, sign);
        return;
      }
      check_fft(F::run(plan_, s_.kind, in + b * s_.distance * in_scale,
                       out + b * s_.out_distance * out_scale, sign),
                "line transform");
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
