// PeriodicSpectral by cuFFT: a 2D or 3D real-to-complex plan made once, the eigenvalues of
// each axis tabulated once (normalization folded in), one division kernel between the two
// transforms.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/cuda_launch.cuh"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/fast_poisson/periodic_spectral.hpp"
#include "gridsolve/solve/fast_poisson/transform_kinds.hpp"
#include "gridsolve/transform/cufft_calls.cuh"

namespace gridsolve::fast_poisson {

namespace {

// Mode (kx0 + i, ky, kz) of the half spectrum, stored at i + hx (ky + ny kz), divided by
// sum_a c_a lambda_a(k_a) (tables: axis a's eigenvalues times c_a, the transforms' 1 / size
// folded in); the constant mode (zero eigenvalue) set to 0, which drops b's mean and fixes
// the solution's. kx0 is 0 on one GPU, the rank's first kx on slabs.
template <class C>
__global__ void divide_modes(C* f, int hx, int ny, int nz, int kx0, const double* ex,
                             const double* ey, const double* ez, double scale) {
  const std::int64_t total = std::int64_t(hx) * ny * nz;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const int kx = int(t % hx);
    const std::int64_t r = t / hx;
    const int ky = int(r % ny), kz = int(r / ny);
    const double s = ex[kx0 + kx] + ey[ky] + ez[kz];
    const double w = s > 0 ? scale / s : 0.0;
    f[t].x *= w;
    f[t].y *= w;
  }
}

// The eigenvalue tables, one after another: `half` for x, then ny, then nz entries. On the
// stream the transforms run on (the legacy default stream unless told).
template <class C>
void divide_spectrum(C* f, int hx, int ny, int nz, int kx0, const Buffer<double>& eig, int half,
                     double scale, cudaStream_t stream = nullptr) {
  const std::int64_t total = std::int64_t(hx) * ny * nz;
  const int threads = 256;
  const int blocks = int(std::min<std::int64_t>((total + threads - 1) / threads, 65535));
  const double* e = eig.data();
  divide_modes<<<blocks, threads, 0, stream>>>(f, hx, ny, nz, kx0, e, e + half, e + half + ny,
                                               scale);
  cuda::check_launch("periodic spectral division");
}

// Appends axis `a`'s eigenvalues times c_a for modes 0 .. count - 1 (zeros where a < 0:
// an axis the problem lacks).
void append_eigenvalues(std::vector<double>& table, int a, int count, const std::array<int, 3>& m,
                        const std::array<double, 3>& c) {
  for (int k = 0; k < count; ++k)
    table.push_back(a >= 0 ? c[std::size_t(a)] * mode_eigenvalue(AxisKind::pp, m[std::size_t(a)], k)
                           : 0.0);
}

Buffer<double> on_device(const std::vector<double>& table) {
  Buffer<double> b(Device::cuda, table.size());
  copy_bytes(b.data(), Device::cuda, table.data(), Device::cpu, table.size() * sizeof(double));
  return b;
}

template <class T>
class CufftPeriodicSpectral final : public PeriodicSpectral<T> {
  using C = typename Cufft<T>::complex;

 public:
  CufftPeriodicSpectral(int dims, std::array<int, 3> m, std::array<double, 3> c) : m_(m) {
    half_ = m[0] / 2 + 1;
    // cuFFT takes the slowest axis first.
    int n[3] = {0, 0, 0};
    for (int a = 0; a < dims; ++a) n[a] = m[std::size_t(dims - 1 - a)];
    check_fft(cufftPlanMany(&r2c_, dims, n, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::r2c, 1),
              "plan (periodic, forward)");
    check_fft(cufftPlanMany(&c2r_, dims, n, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::c2r, 1),
              "plan (periodic, backward)");
    spectrum_ = Buffer<C>(Device::cuda, std::size_t(half_) * m[1] * m[2]);
    // Eigenvalues per axis: c_a 4 sin^2(pi k / m_a) (0 on an axis the problem lacks).
    std::vector<double> table;
    for (int a = 0; a < 3; ++a)
      append_eigenvalues(table, a < dims ? a : -1, a == 0 ? half_ : m[std::size_t(a)], m, c);
    eig_ = on_device(table);
    scale_ = 1.0 / (double(m[0]) * m[1] * m[2]);
  }
  ~CufftPeriodicSpectral() override {
    cufftDestroy(r2c_);
    cufftDestroy(c2r_);
  }
  CufftPeriodicSpectral(const CufftPeriodicSpectral&) = delete;
  CufftPeriodicSpectral& operator=(const CufftPeriodicSpectral&) = delete;

  void solve(T* data) override {
    // On the exec layer's stream (this thread's), so that a recorded sequence of launches
    // (LaunchRecording: a whole projection step) holds the transforms too.
    const cudaStream_t stream = cuda::exec_stream();
    check_fft(cufftSetStream(r2c_, stream), "stream (periodic, forward)");
    check_fft(cufftSetStream(c2r_, stream), "stream (periodic, backward)");
    check_fft(Cufft<T>::exec_r2c(r2c_, data, spectrum_.data()), "forward (periodic)");
    divide_spectrum(spectrum_.data(), half_, m_[1], m_[2], 0, eig_, half_, scale_, stream);
    check_fft(Cufft<T>::exec_c2r(c2r_, spectrum_.data(), data), "backward (periodic)");
  }

 private:
  std::array<int, 3> m_;
  int half_ = 1;
  cufftHandle r2c_ = 0, c2r_ = 0;
  Buffer<C> spectrum_;
  Buffer<double> eig_;
  double scale_ = 1;
};

// On slabs along the slowest axis t (y in 2D, z in 3D). The complex slab is [t][y][kx] (y
// only in 3D), kept as pairs of reals so that the slab transposes move it: their x axis is
// 2 (m_x / 2 + 1) reals, split at whole complex values for the lines.
template <class T>
class CufftPeriodicSlabs final : public PeriodicSpectral<T> {
  using C = typename Cufft<T>::complex;

 public:
  CufftPeriodicSlabs(int dims, std::array<int, 3> m, std::array<double, 3> c,
                     const SlabSplit& split) {
    const int t = dims - 1, me = split.rank, ranks = split.ranks;
    half_ = m[0] / 2 + 1;
    ny_ = dims == 3 ? m[1] : 1;
    nt_ = m[std::size_t(t)];
    // The complex spectrum as reals: x (2 half_), y, t, slabs as given, lines by kx.
    sp_.t = 2;  // the complex arrays are 3D whatever dims is: t is their slowest axis
    sp_.s = 0;
    sp_.rank = me;
    sp_.ranks = ranks;
    sp_.t_start = split.t_start;
    for (int r = 0; r <= ranks; ++r)
      sp_.s_start.push_back(2 * int(std::int64_t(half_) * r / ranks));
    shape_ = {2 * half_, ny_, nt_};
    local_t_ = sp_.t_count(me);
    kx0_ = sp_.s_start[std::size_t(me)] / 2;
    hr_ = sp_.s_count(me) / 2;
    // Along x (and y) each local plane: a batch of dims - 1 dimensional real transforms.
    if (local_t_ > 0) {
      int n[2] = {0, 0};
      const int rank = dims - 1;
      if (dims == 3)
        n[0] = m[1], n[1] = m[0];
      else
        n[0] = m[0];
      check_fft(
          cufftPlanMany(&r2c_, rank, n, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::r2c, local_t_),
          "plan (periodic slabs, forward)");
      check_fft(
          cufftPlanMany(&c2r_, rank, n, nullptr, 1, 0, nullptr, 1, 0, Cufft<T>::c2r, local_t_),
          "plan (periodic slabs, backward)");
    }
    // Along t each line of this rank's kx range: stride hr ny, one line after another.
    if (hr_ > 0) {
      int n[1] = {nt_};
      int embed[1] = {nt_};
      const int lines = hr_ * ny_;
      check_fft(
          cufftPlanMany(&lines_, 1, n, embed, lines, 1, embed, lines, 1, Cufft<T>::c2c, lines),
          "plan (periodic slabs, lines)");
    }
    const std::int64_t slab = 2 * std::int64_t(half_) * ny_ * local_t_;
    const std::int64_t line = 2 * std::int64_t(hr_) * ny_ * nt_;
    spectrum_ = Buffer<T>(Device::cuda, std::max<std::int64_t>(slab, 1));
    lines_buffer_ = Buffer<T>(Device::cuda, std::max<std::int64_t>(line, 1));
    send_ = Buffer<T>(Device::cuda, std::max<std::int64_t>(std::max(slab, line), 1));
    receive_ = Buffer<T>(Device::cuda, std::max<std::int64_t>(std::max(slab, line), 1));
    // Tables in the lines' order: x, then y (3D only), then the slab axis t.
    std::vector<double> table;
    append_eigenvalues(table, 0, half_, m, c);
    append_eigenvalues(table, dims == 3 ? 1 : -1, ny_, m, c);
    append_eigenvalues(table, t, nt_, m, c);
    eig_ = on_device(table);
    scale_ = 1.0 / (double(m[0]) * m[1] * m[2]);
  }
  ~CufftPeriodicSlabs() override {
    if (r2c_) cufftDestroy(r2c_);
    if (c2r_) cufftDestroy(c2r_);
    if (lines_) cufftDestroy(lines_);
  }
  CufftPeriodicSlabs(const CufftPeriodicSlabs&) = delete;
  CufftPeriodicSlabs& operator=(const CufftPeriodicSlabs&) = delete;

  void solve(T* data) override {
    C* spec = reinterpret_cast<C*>(spectrum_.data());
    C* lines = reinterpret_cast<C*>(lines_buffer_.data());
    if (local_t_ > 0) check_fft(Cufft<T>::exec_r2c(r2c_, data, spec), "forward (periodic slabs)");
    slabs_to_lines(Device::cuda, sp_, shape_, static_cast<const T*>(spectrum_.data()),
                   lines_buffer_.data(), send_.data(), receive_.data());
    if (hr_ > 0) {
      check_fft(Cufft<T>::exec_c2c(lines_, lines, lines, CUFFT_FORWARD), "lines (periodic slabs)");
      divide_spectrum(lines, hr_, ny_, nt_, kx0_, eig_, half_, scale_);
      check_fft(Cufft<T>::exec_c2c(lines_, lines, lines, CUFFT_INVERSE), "lines (periodic slabs)");
    }
    lines_to_slabs(Device::cuda, sp_, shape_, static_cast<const T*>(lines_buffer_.data()),
                   spectrum_.data(), send_.data(), receive_.data());
    if (local_t_ > 0) check_fft(Cufft<T>::exec_c2r(c2r_, spec, data), "backward (periodic slabs)");
  }

 private:
  int half_ = 1, ny_ = 1, nt_ = 1, local_t_ = 0, kx0_ = 0, hr_ = 0;
  SlabSplit sp_;
  std::array<int, 3> shape_{1, 1, 1};
  cufftHandle r2c_ = 0, c2r_ = 0, lines_ = 0;
  Buffer<T> spectrum_, lines_buffer_, send_, receive_;
  Buffer<double> eig_;
  double scale_ = 1;
};

}  // namespace

template <class T>
std::unique_ptr<PeriodicSpectral<T>> make_cufft_periodic_spectral(int dims, std::array<int, 3> m,
                                                                  std::array<double, 3> c) {
  return std::make_unique<CufftPeriodicSpectral<T>>(dims, m, c);
}

template <class T>
std::unique_ptr<PeriodicSpectral<T>> make_cufft_periodic_spectral_on_slabs(int dims,
                                                                           std::array<int, 3> m,
                                                                           std::array<double, 3> c,
                                                                           const SlabSplit& split) {
  return std::make_unique<CufftPeriodicSlabs<T>>(dims, m, c, split);
}

template std::unique_ptr<PeriodicSpectral<float>> make_cufft_periodic_spectral_on_slabs<float>(
    int, std::array<int, 3>, std::array<double, 3>, const SlabSplit&);
template std::unique_ptr<PeriodicSpectral<double>> make_cufft_periodic_spectral_on_slabs<double>(
    int, std::array<int, 3>, std::array<double, 3>, const SlabSplit&);
template std::unique_ptr<PeriodicSpectral<float>> make_cufft_periodic_spectral<float>(
    int, std::array<int, 3>, std::array<double, 3>);
template std::unique_ptr<PeriodicSpectral<double>> make_cufft_periodic_spectral<double>(
    int, std::array<int, 3>, std::array<double, 3>);

}  // namespace gridsolve::fast_poisson
