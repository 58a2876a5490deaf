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

// Mode (kx, ky, kz) of the half spectrum divided by sum_a c_a lambda_a(k_a) (tables
// `eig`: axis a's eigenvalues times c_a, the transforms' 1 / size folded in); the constant
// mode (zero eigenvalue) set to 0, which drops b's mean and fixes the solution's.
template <class C>
__global__ void divide_modes(C* f, int hx, int ny, int nz, const double* ex, const double* ey,
                             const double* ez, double scale) {
  const std::int64_t total = std::int64_t(hx) * ny * nz;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const int kx = int(t % hx);
    const std::int64_t r = t / hx;
    const int ky = int(r % ny), kz = int(r / ny);
    const double s = ex[kx] + ey[ky] + ez[kz];
    const double w = s > 0 ? scale / s : 0.0;
    f[t].x *= w;
    f[t].y *= w;
  }
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
      for (int k = 0; k < (a == 0 ? half_ : m[std::size_t(a)]); ++k)
        table.push_back(a < dims ? c[std::size_t(a)] *
                                       mode_eigenvalue(AxisKind::pp, m[std::size_t(a)], k)
                                 : 0.0);
    eig_ = Buffer<double>(Device::cuda, table.size());
    copy_bytes(eig_.data(), Device::cuda, table.data(), Device::cpu, table.size() * sizeof(double));
    scale_ = 1.0 / (double(m[0]) * m[1] * m[2]);
  }
  ~CufftPeriodicSpectral() override {
    cufftDestroy(r2c_);
    cufftDestroy(c2r_);
  }
  CufftPeriodicSpectral(const CufftPeriodicSpectral&) = delete;
  CufftPeriodicSpectral& operator=(const CufftPeriodicSpectral&) = delete;

  void solve(T* data) override {
    // cuFFT runs on the legacy default stream, with which the exec layer's stream is
    // ordered; the division goes there too.
    check_fft(Cufft<T>::exec_r2c(r2c_, data, spectrum_.data()), "forward (periodic)");
    const std::int64_t total = std::int64_t(half_) * m_[1] * m_[2];
    const int threads = 256;
    const int blocks = int(std::min<std::int64_t>((total + threads - 1) / threads, 65535));
    const double* ex = eig_.data();
    divide_modes<<<blocks, threads>>>(spectrum_.data(), half_, m_[1], m_[2], ex, ex + half_,
                                      ex + half_ + m_[1], scale_);
    cuda::check_launch("periodic spectral division");
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

}  // namespace

template <class T>
std::unique_ptr<PeriodicSpectral<T>> make_cufft_periodic_spectral(int dims, std::array<int, 3> m,
                                                                  std::array<double, 3> c) {
  return std::make_unique<CufftPeriodicSpectral<T>>(dims, m, c);
}

template std::unique_ptr<PeriodicSpectral<float>> make_cufft_periodic_spectral<float>(
    int, std::array<int, 3>, std::array<double, 3>);
template std::unique_ptr<PeriodicSpectral<double>> make_cufft_periodic_spectral<double>(
    int, std::array<int, 3>, std::array<double, 3>);

}  // namespace gridsolve::fast_poisson
