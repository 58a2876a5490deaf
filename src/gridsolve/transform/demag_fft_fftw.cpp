// The CPU back end of the demag convolution: FFTW guru plans, one per pass, each running
// all the rows or columns of a pass in one call and skipping the padded zeros.
#include <fftw3.h>
#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/transform/demag_fft.hpp"
#include "gridsolve/transform/fftw_calls.hpp"

namespace gridsolve::demag {

namespace {

// Zero-filled FFTW memory (aligned, so that one plan serves all three components).
template <class T>
class FftwBuffer {
 public:
  FftwBuffer() = default;
  explicit FftwBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    p_ = static_cast<T*>(Fftw<T>::malloc(count * sizeof(T)));
    if (!p_)
      throw Error(fmt::format("FFTW could not allocate {} bytes", count * sizeof(T)),
                  Error::Kind::runtime);
    std::memset(static_cast<void*>(p_), 0, count * sizeof(T));
  }
  ~FftwBuffer() {
    if (p_) Fftw<T>::free(p_);
  }
  FftwBuffer(FftwBuffer&& o) noexcept : p_(o.p_), count_(o.count_) { o.p_ = nullptr; }
  FftwBuffer& operator=(FftwBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
class FftwDemagFft final : public DemagFft<T> {
  using F = Fftw<T>;
  using C = typename F::complex;
  using D = typename F::dim;
  using Plan = typename F::plan;

 public:
  explicit FftwDemagFft(const Layout& l) : l_(l) {
    const std::int64_t spec = l.spectrum_size();
    for (int c = 0; c < 3; ++c) {
      in_[c] = FftwBuffer<T>(l.real_size());
      out_[c] = FftwBuffer<T>(l.real_size());
      spec_[c] = FftwBuffer<T>(2 * spec);
      if (l.pruned()) {
        rows_[c] = FftwBuffer<T>(2 * std::int64_t(l.sx) * l.p[1] * l.n[2]);
        if (l.p[2] > 1) slabs_[c] = FftwBuffer<T>(2 * spec);
      }
    }
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    if (l.mode == FftMode::plain)
      plan_plain();
    else
      plan_skip();
    for (Plan p : plans_)
      if (!p) throw Error("FFTW could not plan a demag transform", Error::Kind::runtime);
  }
  ~FftwDemagFft() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (Plan p : plans_)
      if (p) F::destroy(p);
  }

  T* input(int c) const override { return in_[c].get(); }
  T* output(int c) const override { return out_[c].get(); }
  T* spectrum(int c) const override { return spec_[c].get(); }

  void forward() override {
    for (int c = 0; c < 3; ++c) {
      if (l_.mode == FftMode::plain) {
        F::exec_r2c(fwd_x_, in_[c].get(), cx(spec_[c]));
        continue;
      }
      F::exec_r2c(fwd_x_, in_[c].get(), cx(rows_[c]));
      C* y_out = l_.p[2] > 1 ? cx(slabs_[c]) : cx(spec_[c]);
      F::exec_c2c(fwd_y_, cx(rows_[c]), y_out);
      if (l_.p[2] > 1) F::exec_c2c(fwd_z_, cx(slabs_[c]), cx(spec_[c]));
    }
  }

  void inverse() override {
    for (int c = 0; c < 3; ++c) {
      if (l_.mode == FftMode::plain) {
        F::exec_c2r(inv_x_, cx(spec_[c]), out_[c].get());
        continue;
      }
      if (l_.p[2] > 1) F::exec_c2c(inv_z_, cx(spec_[c]), cx(spec_[c]));
      F::exec_c2c(inv_y_, cx(spec_[c]), cx(spec_[c]));
      F::exec_c2r(inv_x_, cx(spec_[c]), out_[c].get());
    }
  }

 private:
  static C* cx(const FftwBuffer<T>& b) { return reinterpret_cast<C*>(b.get()); }

  Plan keep(Plan p) {
    plans_.push_back(p);
    return p;
  }

  void plan_plain() {
    // Whole padded transforms: dims slowest first.
    std::vector<D> dr, dc;
    const std::int64_t n[3] = {l_.p[2], l_.p[1], l_.p[0]};
    const std::int64_t sr[3] = {std::int64_t(l_.p[1]) * l_.rx, l_.rx, 1};
    const std::int64_t sc[3] = {std::int64_t(l_.p[1]) * l_.sx, l_.sx, 1};
    for (int a = 0; a < 3; ++a) {
      if (n[a] == 1 && a < 2) continue;
      dr.push_back(D{n[a], sr[a], sc[a]});
      dc.push_back(D{n[a], sc[a], sr[a]});
    }
    fwd_x_ = keep(F::r2c(int(dr.size()), dr.data(), 0, nullptr, in_[0].get(), cx(spec_[0])));
    inv_x_ = keep(F::c2r(int(dc.size()), dc.data(), 0, nullptr, cx(spec_[0]), out_[0].get()));
  }

  void plan_skip() {
    const std::int64_t px = l_.p[0], py = l_.p[1], pz = l_.p[2], hx = l_.hx;
    const std::int64_t rx = l_.rx, sx = l_.sx;
    const std::int64_t ny = l_.n[1], nz = l_.n[2];
    // x: the rows that hold cells, into the row buffer (p1 rows per slab, the rest zero).
    {
      D d{px, 1, 1};
      D h[2] = {{nz, ny * rx, py * sx}, {ny, rx, sx}};
      fwd_x_ = keep(F::r2c(1, &d, 2, h, in_[0].get(), cx(rows_[0])));
      D di{px, 1, 1};
      inv_x_ = keep(F::c2r(1, &di, 2, h_swap(h).data(), cx(spec_[0]), out_[0].get()));
    }
    // y: the columns of the slabs that hold cells.
    {
      D d{py, sx, sx};
      D h[2] = {{nz, py * sx, py * sx}, {hx, 1, 1}};
      C* y_out = pz > 1 ? cx(slabs_[0]) : cx(spec_[0]);
      fwd_y_ = keep(F::c2c(1, &d, 2, h, cx(rows_[0]), y_out, FFTW_FORWARD));
      inv_y_ = keep(F::c2c(1, &d, 2, h, cx(spec_[0]), cx(spec_[0]), FFTW_BACKWARD));
    }
    // z: all columns (the slabs without cells are zero in the forward input).
    if (pz > 1) {
      D d{pz, py * sx, py * sx};
      D h{py * sx, 1, 1};
      fwd_z_ = keep(F::c2c(1, &d, 1, &h, cx(slabs_[0]), cx(spec_[0]), FFTW_FORWARD));
      inv_z_ = keep(F::c2c(1, &d, 1, &h, cx(spec_[0]), cx(spec_[0]), FFTW_BACKWARD));
    }
  }

  static std::vector<D> h_swap(const D* h) {
    return {D{h[0].n, h[0].os, h[0].is}, D{h[1].n, h[1].os, h[1].is}};
  }

  Layout l_;
  FftwBuffer<T> in_[3], out_[3], spec_[3], rows_[3], slabs_[3];
  std::vector<Plan> plans_;
  Plan fwd_x_{}, fwd_y_{}, fwd_z_{}, inv_x_{}, inv_y_{}, inv_z_{};
};

}  // namespace

template <class T>
std::unique_ptr<DemagFft<T>> make_fftw_demag_fft(const Layout& layout) {
  return std::make_unique<FftwDemagFft<T>>(layout);
}

template std::unique_ptr<DemagFft<float>> make_fftw_demag_fft<float>(const Layout&);
template std::unique_ptr<DemagFft<double>> make_fftw_demag_fft<double>(const Layout&);

}  // namespace gridsolve::demag
