// LineFft on the CPU: FFTW's guru interface (any stride and distance), planned on the
// first run for its arrays' placement (in place or not) and reused for any arrays after
// (unaligned plans: a component's or a plane's offset may change the alignment).
#include <fmt/format.h>

#include <array>
#include <mutex>

#include "gridsolve/core/error.hpp"
#include "gridsolve/transform/fftw_calls.hpp"
#include "gridsolve/transform/line_fft.hpp"

namespace gridsolve {

namespace {

template <class T>
class FftwLines final : public LineFft<T> {
  using F = Fftw<T>;
  using C = typename F::complex;

 public:
  explicit FftwLines(const LineShape& s) : s_(s) {}
  ~FftwLines() override {
    for (auto& row : plans_)
      for (auto p : row)
        if (p) F::destroy(p);
  }
  void run(T* in, T* out, int sign) override {
    if (s_.count == 0) return;
    auto* ci = reinterpret_cast<C*>(in);
    auto* co = reinterpret_cast<C*>(out);
    // Plans by placement (0 out of place, 1 in place) and sign (c2c only).
    auto& p = plans_[in == out ? 1 : 0][sign > 0 ? 1 : 0];
    if (!p) {
      std::lock_guard<std::mutex> hold(fftw_planner_mutex());
      const typename F::dim dim{s_.length, s_.stride, s_.out_stride};
      const typename F::dim many{s_.count, s_.distance, s_.out_distance};
      p = s_.kind == LineKind::r2c   ? F::r2c(1, &dim, 1, &many, in, co, FFTW_UNALIGNED)
          : s_.kind == LineKind::c2r ? F::c2r(1, &dim, 1, &many, ci, out, FFTW_UNALIGNED)
                                     : F::c2c(1, &dim, 1, &many, ci, co,
                                              sign > 0 ? FFTW_BACKWARD : FFTW_FORWARD,
                                              FFTW_UNALIGNED);
      if (!p)
        throw Error(fmt::format("FFTW could not plan {} line transforms of length {}", s_.count,
                                s_.length),
                    Error::Kind::runtime);
    }
    if (s_.kind == LineKind::r2c)
      F::exec_r2c(p, in, co);
    else if (s_.kind == LineKind::c2r)
      F::exec_c2r(p, ci, out);
    else
      F::exec_c2c(p, ci, co);
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
