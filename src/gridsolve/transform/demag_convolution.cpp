// DemagConvolution: the tensor's transform (computed once in double), the fused product
// with it, and the check against the direct sum. Compiled as CUDA in a CUDA build.
#include "gridsolve/transform/demag_convolution.hpp"

#include <fftw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/transform/demag_product.hpp"
#include "gridsolve/transform/demag_tensor.hpp"

namespace gridsolve::demag {

int Layout::padded_length(int n) {
  if (n <= 1) return 1;
  // Even lengths only: cuFFT disagreed with FFTW and the direct sum on meshes whose padded
  // lengths were odd (15, 9), which even lengths avoid at little cost.
  for (int m = 2 * n; m % 2 == 0; m += 2) {
    int r = m;
    for (int f : {2, 3, 5})
      while (r % f == 0) r /= f;
    if (r == 1) return m;
  }
  return 2 * n;  // not reached: the loop ends at a power of two at the latest
}

Layout Layout::make(std::array<int, 3> n, FftMode mode, std::array<bool, 3> periodic) {
  for (int a = 0; a < 3; ++a)
    require(n[a] >= 1 && n[a] <= (1 << 20),
            fmt::format("demag: cells along axis {} must be 1 .. 2^20, got {}", a, n[a]));
  Layout l;
  l.n = n;
  l.periodic = periodic;
  // A periodic axis is not padded: the circular convolution is the periodic one.
  for (int a = 0; a < 3; ++a) l.p[a] = periodic[a] ? n[a] : padded_length(n[a]);
  // x keeps at least 2 values per row (one cell and one zero): every back end transforms
  // rows, and a real-to-complex transform of length 1 is not one every library takes.
  l.p[0] = std::max(l.p[0], 2);
  l.hx = l.p[0] / 2 + 1;
  l.rx = l.p[0] + (l.p[0] & 1);
  l.sx = l.pruned() && l.hx > 32 ? (l.hx + 31) / 32 * 32 : l.hx;
  l.mode = mode;
  return l;
}

Tensor image_sum(std::array<int, 3> offset, std::array<int, 3> n, std::array<double, 3> cell,
                 const Periodicity& pbc) {
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    const bool rep = pbc.axis[a] && pbc.images > 0;
    lo[a] = rep ? -pbc.images : 0;
    hi[a] = rep ? pbc.images : 0;
  }
  Tensor sum{};
  for (int c = lo[2]; c <= hi[2]; ++c)
    for (int b = lo[1]; b <= hi[1]; ++b)
      for (int a = lo[0]; a <= hi[0]; ++a) {
        const Tensor t = tensor({double(offset[0] + std::int64_t(a) * n[0]) * cell[0],
                                 double(offset[1] + std::int64_t(b) * n[1]) * cell[1],
                                 double(offset[2] + std::int64_t(c) * n[2]) * cell[2]},
                                cell);
        for (int q = 0; q < 6; ++q) sum[q] += t[q];
      }
  return sum;
}

template <class T>
DemagConvolution<T>::DemagConvolution(Device d, std::array<int, 3> n, std::array<double, 3> cell,
                                      FftMode mode, Periodicity pbc)
    : device_(d), layout_(Layout::make(n, mode, pbc.axis)), pbc_(pbc) {
  for (int a = 0; a < 3; ++a)
    require(cell[a] > 0 && std::isfinite(cell[a]),
            fmt::format("demag: cell size along axis {} must be positive, got {}", a, cell[a]));
  require(pbc.images >= 0 && pbc.images <= max_images,
          fmt::format("demag: periodic images must be 0 .. {}, got {}", max_images, pbc.images));
  if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
    fft_ = make_cufft_demag_fft<T>(layout_);
#else
    throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
  } else {
    fft_ = make_fftw_demag_fft<T>(layout_);
  }
  const std::vector<double> k = tensor_spectrum(layout_, cell, pbc);
  std::vector<T> kt(k.begin(), k.end());
  kernel_ = Buffer<T>(d, kt.size());
  copy_bytes(kernel_.data(), d, kt.data(), Device::cpu, kt.size() * sizeof(T));
}

template <class T>
DemagConvolution<T>::~DemagConvolution() = default;

template <class T>
PaddedVector<T> DemagConvolution<T>::input() const {
  return {
      {fft_->input(0), fft_->input(1), fft_->input(2)}, layout_.real_row(), layout_.real_slab()};
}

template <class T>
PaddedVector<T> DemagConvolution<T>::output() const {
  return {
      {fft_->output(0), fft_->output(1), fft_->output(2)}, layout_.real_row(), layout_.real_slab()};
}

template <class T>
void DemagConvolution<T>::convolve() {
  if (layout_.mode == FftMode::fused && fft_->convolve_fused(kernel_.data())) return;
  fft_->forward();
  // H(k) = K(k) M(k) with K real and symmetric; K is stored for ky <= py/2, kz <= pz/2,
  // the other half follows from each component's parity (odd ones change sign).
  const int py = layout_.p[1], pz = layout_.p[2], hx = layout_.hx, sx_pitch = layout_.sx;
  const int ry = py / 2 + 1, rz = pz / 2 + 1;
  const std::int64_t comp = std::int64_t(rz) * ry * hx;
  const bool thin = layout_.thin();
  T* sx = fft_->spectrum(0);
  T* sy = fft_->spectrum(1);
  T* sz = fft_->spectrum(2);
  const T* K = kernel_.data();
  for_each(device_, Box{{0, 0, 0}, {hx - 1, py - 1, pz - 1}},
           [=] GRIDSOLVE_HD(int kx, int ky, int kz) {
             const bool fy = 2 * ky > py, fz = 2 * kz > pz;
             const int qy = fy ? py - ky : ky, qz = fz ? pz - kz : kz;
             const std::int64_t r = (std::int64_t(qz) * ry + qy) * hx + kx;
             const std::int64_t s = 2 * ((std::int64_t(kz) * py + ky) * sx_pitch + kx);
             multiply_by_tensor(K, comp, r, fy, fz, thin, sx, sy, sz, s);
           });
  fft_->inverse();
}

template <class T>
void DemagConvolution<T>::apply(const T* const m[3], T* const h[3]) {
  const PaddedVector<T> in = input(), out = output();
  const int nx = layout_.n[0], ny = layout_.n[1];
  const Box cells{{0, 0, 0}, {layout_.n[0] - 1, layout_.n[1] - 1, layout_.n[2] - 1}};
  const T* m0 = m[0];
  const T* m1 = m[1];
  const T* m2 = m[2];
  for_each(device_, cells, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t d = (std::int64_t(k) * ny + j) * nx + i, p = in.at(i, j, k);
    in.c[0][p] = m0[d];
    in.c[1][p] = m1[d];
    in.c[2][p] = m2[d];
  });
  convolve();
  T* h0 = h[0];
  T* h1 = h[1];
  T* h2 = h[2];
  for_each(device_, cells, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t d = (std::int64_t(k) * ny + j) * nx + i, p = out.at(i, j, k);
    h0[d] = out.c[0][p];
    h1[d] = out.c[1][p];
    h2[d] = out.c[2][p];
  });
}

DirectSumCheck direct_sum_check(std::array<int, 3> n, std::array<double, 3> cell,
                                const Periodicity& pbc) {
  const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
  require(cells <= 4096, "demag self-check: at most 4096 cells (the direct sum is O(N^2))");
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(-1, 1);
  DirectSumCheck check;
  auto& m = check.m;
  for (auto& c : m) {
    c.resize(cells);
    for (double& v : c) v = u(rng);
  }
  // The tensor between every pair of cells, one entry per difference of indices. Along a
  // periodic axis the difference is taken to the nearest copy of the source and summed over
  // the images; where both copies are equally near (n/2 of an even n) the mean of the two.
  const int wx = 2 * n[0] - 1, wy = 2 * n[1] - 1, wz = 2 * n[2] - 1;
  std::vector<Tensor> pair(std::size_t(wx) * wy * wz);
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t q = 0; q < std::int64_t(pair.size()); ++q) {
    const int diff[3] = {int(q % wx) - (n[0] - 1), int((q / wx) % wy) - (n[1] - 1),
                         int(q / (std::int64_t(wx) * wy)) - (n[2] - 1)};
    std::vector<int> choices[3];
    for (int a = 0; a < 3; ++a) {
      if (!pbc.axis[a]) {
        choices[a] = {diff[a]};
        continue;
      }
      int w = ((diff[a] % n[a]) + n[a]) % n[a];  // 0 .. n-1
      if (2 * w > n[a]) w -= n[a];
      choices[a] = {w};
      if (2 * std::abs(w) == n[a]) choices[a].push_back(-w);
    }
    Tensor t{};
    const double weight = 1.0 / double(choices[0].size() * choices[1].size() * choices[2].size());
    for (int cz : choices[2])
      for (int cy : choices[1])
        for (int cx : choices[0]) {
          const Tensor s = image_sum({cx, cy, cz}, n, cell, pbc);
          for (int c = 0; c < 6; ++c) t[c] += weight * s[c];
        }
    pair[q] = t;
  }
  // Direct sum in double.
  auto& ref = check.h;
  for (auto& c : ref) c.assign(cells, 0.0);
  auto idx = [&](int i, int j, int k) { return (std::int64_t(k) * n[1] + j) * n[0] + i; };
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (int kk = 0; kk < n[2]; ++kk)
          for (int jj = 0; jj < n[1]; ++jj)
            for (int ii = 0; ii < n[0]; ++ii) {
              const Tensor& t =
                  pair[(std::int64_t(k - kk + n[2] - 1) * wy + (j - jj + n[1] - 1)) * wx +
                       (i - ii + n[0] - 1)];
              const std::int64_t s = idx(ii, jj, kk), q = idx(i, j, k);
              const double mx = m[0][s], my = m[1][s], mz = m[2][s];
              ref[0][q] -= t[xx] * mx + t[xy] * my + t[xz] * mz;
              ref[1][q] -= t[xy] * mx + t[yy] * my + t[yz] * mz;
              ref[2][q] -= t[xz] * mx + t[yz] * my + t[zz] * mz;
            }
  return check;
}

template <class T>
double DemagConvolution<T>::check_against_direct_sum(Device d, std::array<int, 3> n,
                                                     std::array<double, 3> cell, FftMode mode,
                                                     Periodicity pbc) {
  const DirectSumCheck ref = direct_sum_check(n, cell, pbc);
  const auto& m = ref.m;
  const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
  DemagConvolution<T> conv(d, n, cell, mode, pbc);
  Buffer<T> mb[3], hb[3];
  T* mp[3];
  T* hp[3];
  for (int c = 0; c < 3; ++c) {
    std::vector<T> mt(m[c].begin(), m[c].end());
    mb[c] = Buffer<T>(d, cells);
    hb[c] = Buffer<T>(d, cells);
    copy_bytes(mb[c].data(), d, mt.data(), Device::cpu, cells * sizeof(T));
    mp[c] = mb[c].data();
    hp[c] = hb[c].data();
  }
  conv.apply(mp, hp);
  double worst = 0, largest = 0;
  for (int c = 0; c < 3; ++c) {
    std::vector<T> h(cells);
    copy_bytes(h.data(), Device::cpu, hp[c], d, cells * sizeof(T));
    for (std::int64_t q = 0; q < cells; ++q) {
      worst = std::max(worst, std::abs(double(h[q]) - ref.h[c][q]));
      largest = std::max(largest, std::abs(ref.h[c][q]));
    }
  }
  return worst / largest;
}

template class DemagConvolution<float>;
template class DemagConvolution<double>;

}  // namespace gridsolve::demag
