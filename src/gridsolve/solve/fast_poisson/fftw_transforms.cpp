// AxisTransforms on the CPU through FFTW's real-to-real guru plans, in place.
#include <fftw3.h>
#include <fmt/format.h>

#include <mutex>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/fast_poisson/axis_transforms.hpp"
#include "gridsolve/transform/fftw_calls.hpp"

namespace gridsolve::fast_poisson {

namespace {

fftw_r2r_kind forward_kind(AxisKind k) {
  switch (k) {
    case AxisKind::dd:
      return FFTW_RODFT00;
    case AxisKind::nn:
      return FFTW_REDFT00;
    case AxisKind::nd:
      return FFTW_REDFT01;
    case AxisKind::dn:
      return FFTW_RODFT01;
    case AxisKind::pp:
      return FFTW_R2HC;
  }
  return FFTW_R2HC;
}
fftw_r2r_kind backward_kind(AxisKind k) {
  switch (k) {
    case AxisKind::dd:
      return FFTW_RODFT00;
    case AxisKind::nn:
      return FFTW_REDFT00;
    case AxisKind::nd:
      return FFTW_REDFT10;
    case AxisKind::dn:
      return FFTW_RODFT10;
    case AxisKind::pp:
      return FFTW_HC2R;
  }
  return FFTW_HC2R;
}

template <class T>
class FftwTransforms final : public AxisTransforms<T> {
 public:
  explicit FftwTransforms(const TransformShape& s) {
    const int stride[3] = {1, s.m[0], s.m[0] * s.m[1]};
    std::vector<T> probe(std::size_t(s.m[0]) * s.m[1] * s.m[2]);
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (int a = 0; a < 3; ++a) {
      if (!s.transformed[a]) continue;
      fftw_iodim dim{s.m[a], stride[a], stride[a]};
      fftw_iodim loops[2];
      int nl = 0;
      for (int b = 0; b < 3; ++b)
        if (b != a && s.m[b] > 1) loops[nl++] = fftw_iodim{s.m[b], stride[b], stride[b]};
      const fftw_r2r_kind fk = forward_kind(s.kind[a]), bk = backward_kind(s.kind[a]);
      auto f = Fftw<T>::r2r(1, &dim, nl, loops, probe.data(), &fk);
      auto b = Fftw<T>::r2r(1, &dim, nl, loops, probe.data(), &bk);
      if (!f || !b)
        throw Error(fmt::format("FFTW could not plan a {} transform of length {}",
                                to_string(s.kind[a]), s.m[a]),
                    Error::Kind::runtime);
      forward_.push_back(f);
      backward_.push_back(b);
    }
  }
  ~FftwTransforms() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (auto p : forward_) Fftw<T>::destroy(p);
    for (auto p : backward_) Fftw<T>::destroy(p);
  }
  void forward(T* data) override {
    for (auto p : forward_) Fftw<T>::exec_r2r(p, data);
  }
  void backward(T* data) override {
    for (auto p : backward_) Fftw<T>::exec_r2r(p, data);
  }
  const char* backend() const override { return "fftw"; }

 private:
  std::vector<typename Fftw<T>::plan> forward_, backward_;
};

}  // namespace

template <class T>
std::unique_ptr<AxisTransforms<T>> make_fftw_transforms(const TransformShape& shape) {
  return std::make_unique<FftwTransforms<T>>(shape);
}

template std::unique_ptr<AxisTransforms<float>> make_fftw_transforms<float>(const TransformShape&);
template std::unique_ptr<AxisTransforms<double>> make_fftw_transforms<double>(
    const TransformShape&);

}  // namespace gridsolve::fast_poisson
