// The GPU back end of the demag convolution: cuFFT plans per pass; the zero-skipping
// passes run one batched call per component and slab, the plain mode one batched
// 2D / 3D call for all three components.
#include <cuda_runtime.h>
#include <cufft.h>
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_column_pass.hpp"
#include "gridsolve/transform/cufft_calls.cuh"
#include "gridsolve/transform/demag_fft.hpp"
#include "gridsolve/transform/stockham_fft.hpp"

namespace gridsolve::demag {

namespace {

template <class T>
class CufftDemagFft final : public DemagFft<T> {
  using F = Cufft<T>;
  using C = typename F::complex;

 public:
  explicit CufftDemagFft(const Layout& l) : l_(l) {
    const std::int64_t real = l.real_size(), spec = l.spectrum_size();
    in_ = Buffer<T>(Device::cuda, 3 * real);
    out_ = Buffer<T>(Device::cuda, 3 * real);
    zero_bytes(Device::cuda, in_.data(), 3 * real * sizeof(T));
    if (l.pruned()) {
      rows_ = Buffer<T>(Device::cuda, 3 * 2 * std::int64_t(l.sx) * l.p[1] * l.n[2]);
      zero_bytes(Device::cuda, rows_.data(), rows_.size() * sizeof(T));
      if (l.p[2] > 1) {
        slabs_ = Buffer<T>(Device::cuda, 3 * 2 * spec);
        zero_bytes(Device::cuda, slabs_.data(), slabs_.size() * sizeof(T));
      }
      plan_skip();
      fused_ = l.mode == FftMode::fused && column_pass_fits<T>(l);
      if (fused_) {
        // Columns padded to whole memory sectors, the three components' columns of one x
        // frequency side by side; the tensor by column as well.
        col_pitch_ = (std::int64_t(l.n[1]) + 31) / 32 * 32;
        cols_ = Buffer<T>(Device::cuda, 3 * 2 * col_pitch_ * l.hx);
        kernel_cols_ = Buffer<T>(Device::cuda, 4 * kernel_column() * l.hx);
        const int py = l.p[1];
        std::vector<T> tw(2 * std::size_t(register_fft_twiddle_count(py)));
        fill_register_fft_twiddles(py, reinterpret_cast<Cx<T>*>(tw.data()));
        twiddle_ = Buffer<T>(Device::cuda, tw.size());
        copy_bytes(twiddle_.data(), Device::cuda, tw.data(), Device::cpu, tw.size() * sizeof(T));
        int px = l.p[0], rx = l.rx, sx = l.sx;
        // One call each way for all three components: their rows follow each other.
        fwd_x_all_ = plan_many(1, &px, &rx, 1, rx, &sx, 1, sx, F::r2c, 3 * l.n[1]);
        if (inverse_from_columns()) {
          // The columns read in place, x frequency by x frequency: one call where the
          // components' columns follow each other unpadded, else one call per component.
          const int stride = int(3 * col_pitch_);
          const bool whole = col_pitch_ == l.n[1];
          inv_x_all_ = plan_many(1, &px, &px, stride, 1, &rx, 1, rx, F::c2r,
                                 (whole ? 3 : 1) * l.n[1]);
        } else {
          inv_x_all_ = plan_many(1, &px, &sx, 1, sx, &rx, 1, rx, F::c2r, 3 * l.n[1]);
        }
      }
    } else {
      plan_plain();
    }
    // The fused convolution never forms the padded spectrum (about a third of the
    // memory at these sizes): it is allocated only if forward() is used after all.
    if (!fused_) spec_ = Buffer<T>(Device::cuda, 3 * 2 * spec);
  }
  ~CufftDemagFft() override {
    for (cufftHandle p : plans_) cufftDestroy(p);
  }

  T* input(int c) const override { return in_.data() + c * l_.real_size(); }
  T* output(int c) const override { return out_.data() + c * l_.real_size(); }
  T* spectrum(int c) const override {
    if (spec_.size() == 0) spec_ = Buffer<T>(Device::cuda, 3 * 2 * l_.spectrum_size());
    return spec_.data() + c * 2 * l_.spectrum_size();
  }

  void forward() override {
    if (l_.mode == FftMode::plain) {
      check_fft(F::exec_r2c(fwd_x_, in_.data(), cx(spectrum(0))), "forward transform");
      return;
    }
    const std::int64_t py = l_.p[1], hx = l_.sx, ny = l_.n[1], px = l_.rx;
    for (int c = 0; c < 3; ++c) {
      C* rows = cx(rows_.data()) + c * hx * py * l_.n[2];
      C* y_out = l_.p[2] > 1 ? cx(slabs_.data()) + c * l_.spectrum_size() : cx(spectrum(c));
      for (int k = 0; k < l_.n[2]; ++k) {
        check_fft(F::exec_r2c(fwd_x_, input(c) + k * ny * px, rows + k * py * hx), "x transform");
        if (py > 1)
          check_fft(F::exec_c2c(fwd_y_, rows + k * py * hx, y_out + k * py * hx, CUFFT_FORWARD),
                    "y transform");
        else  // a transform of length 1 is the identity
          cuda::check(cudaMemcpyAsync(y_out + k * hx, rows + k * hx, sizeof(C) * hx,
                                      cudaMemcpyDeviceToDevice),
                      "spectrum copy");
      }
      if (l_.p[2] > 1)
        check_fft(F::exec_c2c(fwd_z_, y_out, cx(spectrum(c)), CUFFT_FORWARD), "z transform");
    }
  }

  // A single layer: the x transforms by cuFFT into rows, a transpose into columns, the
  // fused column pass, then the inverse x transforms, in float from rows after a transpose
  // back and in double straight from the columns (inverse_from_columns).
  bool convolve_fused(const T* kernel) override {
    if (!fused_) return false;
    const std::int64_t hx = l_.hx, ny = l_.n[1], kc = kernel_column();
    if (kernel != kernel_source_) {
      // The tensor's components xx, yy, zz, xy, from rows of ky to columns of kx.
      transpose<T>(kernel, hx, kc * hx, kernel_cols_.data(), kc, kc * hx, int(kc), int(hx), 4);
      kernel_source_ = kernel;
    }
    const std::int64_t rows = std::int64_t(l_.sx) * ny;  // one component, complex
    check_fft(F::exec_r2c(fwd_x_all_, input(0), cx(rows_.data())), "x transform");
    using V = Cx<T>;
    transpose<V>(reinterpret_cast<const V*>(rows_.data()), l_.sx, rows,
                 reinterpret_cast<V*>(cols_.data()), 3 * col_pitch_, col_pitch_, int(ny),
                 int(hx), 3);
    ColumnPassArgs<T> a;
    a.pieces = 1;
    a.piece[0] = ColumnPiece<T>{cols_.data(), col_pitch_, 3 * col_pitch_, 0};
    a.kernel = kernel_cols_.data();
    a.kernel_comp = kc * hx;
    a.twiddle = twiddle_.data();
    a.columns = l_.hx;
    a.ny = l_.n[1];
    a.py = l_.p[1];
    run_column_pass(a);
    if (!inverse_from_columns()) {
      transpose<V>(reinterpret_cast<const V*>(cols_.data()), 3 * col_pitch_, col_pitch_,
                   reinterpret_cast<V*>(rows_.data()), l_.sx, rows, int(hx), int(ny), 3);
      check_fft(F::exec_c2r(inv_x_all_, cx(rows_.data()), output(0)), "inverse x transform");
    } else if (col_pitch_ == ny) {
      check_fft(F::exec_c2r(inv_x_all_, cx(cols_.data()), output(0)), "inverse x transform");
    } else {
      for (int c = 0; c < 3; ++c)
        check_fft(F::exec_c2r(inv_x_all_, cx(cols_.data()) + c * col_pitch_, output(c)),
                  "inverse x transform");
    }
    return true;
  }

  void inverse() override {
    if (l_.mode == FftMode::plain) {
      check_fft(F::exec_c2r(inv_x_, cx(spectrum(0)), out_.data()), "inverse transform");
      return;
    }
    const std::int64_t py = l_.p[1], hx = l_.sx, ny = l_.n[1], px = l_.rx;
    for (int c = 0; c < 3; ++c) {
      C* s = cx(spectrum(c));
      if (l_.p[2] > 1) check_fft(F::exec_c2c(fwd_z_, s, s, CUFFT_INVERSE), "inverse z transform");
      for (int k = 0; k < l_.n[2]; ++k) {
        if (py > 1)
          check_fft(F::exec_c2c(fwd_y_, s + k * py * hx, s + k * py * hx, CUFFT_INVERSE),
                    "inverse y transform");
        check_fft(F::exec_c2r(inv_x_, s + k * py * hx, output(c) + k * ny * px),
                  "inverse x transform");
      }
    }
  }

 private:
  static C* cx(T* p) { return reinterpret_cast<C*>(p); }

  cufftHandle plan_many(int rank, int* n, int* inembed, int istride, long long idist, int* onembed,
                        int ostride, long long odist, cufftType type, long long batch) {
    cufftHandle h{};
    check_fft(cufftCreate(&h), "plan creation");
    plans_.push_back(h);
    std::vector<long long> nn(n, n + rank), ie, oe;
    if (inembed) ie.assign(inembed, inembed + rank);
    if (onembed) oe.assign(onembed, onembed + rank);
    std::size_t work = 0;
    check_fft(
        cufftMakePlanMany64(h, rank, nn.data(), inembed ? ie.data() : nullptr, istride, idist,
                            onembed ? oe.data() : nullptr, ostride, odist, type, batch, &work),
        "plan");
    return h;
  }

  void plan_plain() {
    std::vector<int> n;
    if (l_.p[2] > 1) n.push_back(l_.p[2]);
    if (l_.p[1] > 1 || l_.p[2] > 1) n.push_back(l_.p[1]);
    n.push_back(l_.p[0]);
    const int rank = int(n.size());
    // The real rows hold rx values, one more than p[0] where it is odd (a periodic axis of
    // an odd count): the embedding says so, cuFFT's default would pack them. Where the rows
    // are packed anyway the default layout is kept: with the equivalent embedding the
    // 8192 x 4096 transforms took 1.89 ms on an H100, without it 1.51 ms (separate runs).
    std::vector<int> real_embed = n, spec_embed = n;
    real_embed.back() = l_.rx;
    spec_embed.back() = l_.sx;
    const bool packed = l_.rx == l_.p[0] && l_.sx == l_.hx;
    int* re = packed ? nullptr : real_embed.data();
    int* se = packed ? nullptr : spec_embed.data();
    fwd_x_ = plan_many(rank, n.data(), re, 1, l_.real_size(), se, 1, l_.spectrum_size(), F::r2c, 3);
    inv_x_ = plan_many(rank, n.data(), se, 1, l_.spectrum_size(), re, 1, l_.real_size(), F::c2r, 3);
  }

  void plan_skip() {
    int px = l_.p[0], py = l_.p[1], pz = l_.p[2], hx = l_.hx, rx = l_.rx, sx = l_.sx;
    fwd_x_ = plan_many(1, &px, &rx, 1, rx, &sx, 1, sx, F::r2c, l_.n[1]);
    inv_x_ = plan_many(1, &px, &sx, 1, sx, &rx, 1, rx, F::c2r, l_.n[1]);
    if (py > 1) fwd_y_ = plan_many(1, &py, &py, sx, 1, &py, sx, 1, F::c2c, hx);
    if (pz > 1) {
      const int s = py * sx;
      fwd_z_ = plan_many(1, &pz, &pz, s, 1, &pz, s, 1, F::c2c, s);
    }
  }

  // Where cuFFT's inverse reads the columns with a stride rather than rows after a transpose
  // back. On an H200, 2048^2 film: in float the strided read took 162 us for the three
  // components where the transpose and the contiguous inverse take 135; in double the
  // Heun step took 2.49 ms reading the columns and 2.63 ms with the transpose back.
  static constexpr bool inverse_from_columns() { return sizeof(T) == sizeof(double); }

  // Entries of one column of the tensor's reduced spectrum (ky = 0 .. p[1] / 2).
  std::int64_t kernel_column() const { return l_.p[1] / 2 + 1; }

  Layout l_;
  Buffer<T> in_, out_, rows_, slabs_;
  mutable Buffer<T> spec_;  // allocated on first use where the fused pass runs
  // The fused column pass: spectra and tensor by column, twiddles, and the tensor they were
  // made from (a convolution's tensor never changes, so its address identifies it).
  Buffer<T> cols_, kernel_cols_, twiddle_;
  std::int64_t col_pitch_ = 0;
  const T* kernel_source_ = nullptr;
  bool fused_ = false;
  std::vector<cufftHandle> plans_;
  cufftHandle fwd_x_{}, inv_x_{}, fwd_y_{}, fwd_z_{}, fwd_x_all_{}, inv_x_all_{};
};

}  // namespace

template <class T>
std::unique_ptr<DemagFft<T>> make_cufft_demag_fft(const Layout& layout) {
  return std::make_unique<CufftDemagFft<T>>(layout);
}

template std::unique_ptr<DemagFft<float>> make_cufft_demag_fft<float>(const Layout&);
template std::unique_ptr<DemagFft<double>> make_cufft_demag_fft<double>(const Layout&);

}  // namespace gridsolve::demag
