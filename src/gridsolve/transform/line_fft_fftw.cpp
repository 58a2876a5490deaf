// LineFft on the CPU: FFTW's guru interface (any stride and distance), planned on the
// first run for its arrays' placement (in place or not) and reused for any arrays after.
#include <fftw3.h>
#include <fmt/format.h>

#include <array>
#include <mutex>

#include "gridsolve/core/error.hpp"
#include "gridsolve/transform/line_fft.hpp"

namespace gridsolve {

namespace {

// FFTW's planner is not thread-safe; plans are made under one lock.
std::mutex& planner_lock() {
  static std::mutex m;
  return m;
}

template <class T>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan make(const LineShape& s, double* in, double* out, int sign) {
    fftw_iodim64 dim{s.length, s.stride, s.out_stride};
    fftw_iodim64 many{s.count, s.distance, s.out_distance};
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    auto* ci = reinterpret_cast<complex*>(in);
    auto* co = reinterpret_cast<complex*>(out);
    if (s.kind == LineKind::r2c) return fftw_plan_guru64_dft_r2c(1, &dim, 1, &many, in, co, flags);
    if (s.kind == LineKind::c2r) return fftw_plan_guru64_dft_c2r(1, &dim, 1, &many, ci, out, flags);
    return fftw_plan_guru64_dft(1, &dim, 1, &many, ci, co, sign, flags);
  }
  static void run(plan p, const LineShape& s, double* in, double* out) {
    auto* ci = reinterpret_cast<complex*>(in);
    auto* co = reinterpret_cast<complex*>(out);
    if (s.kind == LineKind::r2c) return fftw_execute_dft_r2c(p, in, co);
    if (s.kind == LineKind::c2r) return fftw_execute_dft_c2r(p, ci, out);
    fftw_execute_dft(p, ci, co);
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan make(const LineShape& s, float* in, float* out, int sign) {
    fftwf_iodim64 dim{s.length, s.stride, s.out_stride};
    fftwf_iodim64 many{s.count, s.distance, s.out_distance};
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    auto* ci = reinterpret_cast<complex*>(in);
    auto* co = reinterpret_cast<complex*>(out);
    if (s.kind == LineKind::r2c) return fftwf_plan_guru64_dft_r2c(1, &dim, 1, &many, in, co, flags);
    if (s.kind == LineKind::c2r) return fftwf_plan_guru64_dft_c2r(1, &dim, 1, &many, ci, out, flags);
    return fftwf_plan_guru64_dft(1, &dim, 1, &many, ci, co, sign, flags);
  }
  static void run(plan p, const LineShape& s, float* in, float* out) {
    auto* ci = reinterpret_cast<complex*>(in);
    auto* co = reinterpret_cast<complex*>(out);
    if (s.kind == LineKind::r2c) return fftwf_execute_dft_r2c(p, in, co);
    if (s.kind == LineKind::c2r) return fftwf_execute_dft_c2r(p, ci, out);
    fftwf_execute_dft(p, ci, co);
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

template <class T>
class FftwLines final : public LineFft<T> {
  using F = Fftw<T>;

 public:
  explicit FftwLines(const LineShape& s) : s_(s) {}
  ~FftwLines() override {
    for (auto& row : plans_)
      for (auto p : row)
        if (p) F::destroy(p);
  }
  void run(T* in, T* out, int sign) override {
    if (s_.count == 0) return;
    // Plans by placement (0 out of place, 1 in place) and sign (c2c only).
    auto& p = plans_[in == out ? 1 : 0][sign > 0 ? 1 : 0];
    if (!p) {
      std::lock_guard<std::mutex> hold(planner_lock());
      p = F::make(s_, in, out, sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD);
      if (!p)
        throw Error(fmt::format("FFTW could not plan {} line transforms of length {}", s_.count,
                                s_.length),
                    Error::Kind::runtime);
    }
    F::run(p, s_, in, out);
  }

 private:
  LineShape s_;
  std::array<std::array<typename F::plan, 2>, 2> plans_{};
};

}  // namespace

template <class T>
std::unique_ptr<LineFft<T>> make_line_fft(Device d, const LineShape& shape) {
  if (d == Device::cpu) return std::make_unique<FftwLines<T>>(shape);
#if GRIDSOLVE_HAVE_CUDA
  return make_line_fft_cuda<T>(shape);
#else
  throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
}

template std::unique_ptr<LineFft<float>> make_line_fft<float>(Device, const LineShape&);
template std::unique_ptr<LineFft<double>> make_line_fft<double>(Device, const LineShape&);

}  // namespace gridsolve
