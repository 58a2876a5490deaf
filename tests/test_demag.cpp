// Demagnetizing tensor and convolution: Newell against numerical integration, the
// direct sum, demagnetizing factors of cubes, films, rods and prisms (Aharoni).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gridsolve/transform/demag_tensor.hpp"
#include "gridsolve/transform/stockham_fft.hpp"
#include "demag_reference.hpp"

using namespace gridsolve;
using namespace gridsolve::demag;

namespace {

// Average demagnetizing factors (-<H_a> / M along a) of a box of n cells magnetized
// uniformly along each axis in turn, by the convolution on the CPU in double.
std::array<double, 3> box_factors(std::array<int, 3> n, std::array<double, 3> cell,
                                  Periodicity pbc = {}) {
  DemagConvolution<double> conv(Device::cpu, n, cell, FftMode::skip_zeros, pbc);
  const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
  std::array<double, 3> out{};
  for (int a = 0; a < 3; ++a) {
    std::vector<double> m[3], h[3];
    for (int c = 0; c < 3; ++c) {
      m[c].assign(cells, c == a ? 1.0 : 0.0);
      h[c].assign(cells, 0.0);
    }
    const double* mp[3] = {m[0].data(), m[1].data(), m[2].data()};
    double* hp[3] = {h[0].data(), h[1].data(), h[2].data()};
    conv.apply(mp, hp);
    double sum = 0;
    for (double v : h[a]) sum += v;
    out[a] = -sum / double(cells);
  }
  return out;
}

}  // namespace

TEST(DemagTensor, CubeSelfTermIsOneThirdEach) {
  const Tensor t = tensor_newell({0, 0, 0}, {2e-9, 2e-9, 2e-9});
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(t[c], 1.0 / 3.0, 1e-14);
  for (int c = 3; c < 6; ++c) EXPECT_NEAR(t[c], 0.0, 1e-14);
}

TEST(DemagTensor, SelfTermTraceIsOneAndMatchesAharoni) {
  for (auto h :
       std::vector<std::array<double, 3>>{{1, 1, 0.2}, {3.9, 3.9, 3}, {1, 2, 5}, {1, 1, 40}}) {
    const Tensor t = tensor_newell({0, 0, 0}, h);
    EXPECT_NEAR(t[xx] + t[yy] + t[zz], 1.0, 1e-12);
    EXPECT_NEAR(t[zz], aharoni_nzz(h[0] / 2, h[1] / 2, h[2] / 2), 1e-10);
    EXPECT_NEAR(t[xx], aharoni_nzz(h[1] / 2, h[2] / 2, h[0] / 2), 1e-10);
  }
}

TEST(DemagTensor, NewellMatchesNumericalIntegration) {
  const std::array<double, 3> h{1.0, 1.3, 0.7};
  for (auto r : std::vector<std::array<double, 3>>{
           {3, 0, 0}, {2, 3, 1}, {-4, 2, -3}, {5, -5, 0}, {0, 0, 6}, {9, 4, -2}}) {
    for (int a = 0; a < 3; ++a) r[a] *= h[a];
    const Tensor n = tensor_newell(r, h);
    const Tensor q = tensor_quadrature(r, h, 12);
    double scale = 0;
    for (double v : q) scale = std::max(scale, std::abs(v));
    for (int c = 0; c < 6; ++c) EXPECT_NEAR(n[c], q[c], 1e-8 * scale) << "component " << c;
  }
}

TEST(DemagTensor, FormsAgreeWhereTheySwitch) {
  // Just beyond each switch, the far form against the near one (or a finer quadrature).
  const std::array<double, 3> h{2.0, 2.0, 1.5};
  for (double d : {newell_range, quadrature_range}) {
    for (auto dir :
         std::vector<std::array<double, 3>>{{1, 0, 0}, {0.6, 0.8, 0}, {0.48, 0.6, 0.64}}) {
      const double r = d * 2.0 * 1.001;  // the largest side is 2
      const std::array<double, 3> at{dir[0] * r, dir[1] * r, dir[2] * r};
      const Tensor far = tensor(at, h);
      const Tensor near = d == newell_range ? tensor_newell(at, h) : tensor_quadrature(at, h, 6);
      double scale = 0;
      for (double v : near) scale = std::max(scale, std::abs(v));
      // Newell's cancellation at 12 cells and the dipole's (h / r)^2 error at 160 cells.
      const double tol = d == newell_range ? 1e-7 : 1e-4;
      for (int c = 0; c < 6; ++c) EXPECT_NEAR(far[c], near[c], tol * scale) << d << " " << c;
    }
  }
}

TEST(DemagConvolution, MatchesDirectSum) {
  for (FftMode mode : {FftMode::skip_zeros, FftMode::plain, FftMode::fused}) {
    for (auto n : std::vector<std::array<int, 3>>{
             {7, 5, 3}, {9, 6, 1}, {4, 1, 6}, {5, 4, 2}, {1, 6, 5}, {8, 1, 3}}) {
      const std::array<double, 3> cell{3e-9, 2.5e-9, 2e-9};
      EXPECT_LT(DemagConvolution<double>::check_against_direct_sum(Device::cpu, n, cell, mode),
                1e-12);
      EXPECT_LT(DemagConvolution<float>::check_against_direct_sum(Device::cpu, n, cell, mode),
                3e-6);
    }
  }
}

TEST(DemagFactors, CubeOfCellsIsOneThirdEach) {
  const auto f = box_factors({6, 6, 6}, {1e-9, 1e-9, 1e-9});
  for (double v : f) EXPECT_NEAR(v, 1.0 / 3.0, 1e-12);
}

TEST(DemagFactors, PrismMatchesAharoni) {
  // 40 x 20 x 10 nm in 8 x 8 x 4 cells: the cell-averaged factors of the whole prism.
  const auto f = box_factors({8, 8, 4}, {5e-9, 2.5e-9, 2.5e-9});
  EXPECT_NEAR(f[2], aharoni_nzz(20, 10, 5), 1e-10);
  EXPECT_NEAR(f[0], aharoni_nzz(10, 5, 20), 1e-10);
  EXPECT_NEAR(f[1], aharoni_nzz(5, 20, 10), 1e-10);
}

TEST(DemagFactors, ThinFilmTendsToOneAndRodToOneHalf) {
  double last_film = 0, last_rod = 0;
  for (int n : {4, 16, 64}) {
    const auto film = box_factors({n, n, 1}, {1, 1, 1});  // aspect n : 1
    const auto rod = box_factors({1, 1, n}, {1, 1, 1});
    EXPECT_NEAR(film[2], aharoni_nzz(n / 2.0, n / 2.0, 0.5), 1e-10);
    EXPECT_NEAR(rod[0], rod[1], 1e-12);
    EXPECT_GT(film[2], last_film);
    EXPECT_GT(rod[0], last_rod);
    last_film = film[2];
    last_rod = rod[0];
  }
  EXPECT_GT(last_film, 0.95);  // 1 - N_zz falls like (t / a) log(a / t)
  EXPECT_NEAR(last_rod, 0.5, 0.01);
}

TEST(DemagConvolution, PeriodicMatchesDirectSum) {
  // Periodic along x, y, both, and z, even and odd counts, with and without images.
  struct Case {
    std::array<int, 3> n;
    std::array<bool, 3> axis;
    int images;
  };
  for (FftMode mode : {FftMode::skip_zeros, FftMode::plain, FftMode::fused}) {
    for (const Case& c : std::vector<Case>{{{8, 5, 1}, {true, false, false}, 3},
                                           {{7, 4, 1}, {true, false, false}, 0},
                                           {{5, 6, 2}, {false, true, false}, 2},
                                           {{6, 5, 1}, {true, true, false}, 2},
                                           {{4, 3, 5}, {false, false, true}, 1},
                                           {{5, 4, 3}, {true, true, false}, 1}}) {
      const std::array<double, 3> cell{3e-9, 2.5e-9, 2e-9};
      const Periodicity pbc{c.axis, c.images};
      EXPECT_LT(
          DemagConvolution<double>::check_against_direct_sum(Device::cpu, c.n, cell, mode, pbc),
          1e-12)
          << c.n[0] << "x" << c.n[1] << "x" << c.n[2];
      EXPECT_LT(
          DemagConvolution<float>::check_against_direct_sum(Device::cpu, c.n, cell, mode, pbc),
          3e-6);
    }
  }
}

TEST(DemagFactors, PeriodicStripBecomesInfinite) {
  // A 32 x 8 x 1 strip periodic along x: with more images N_xx falls to 0 and N_yy, N_zz
  // tend to the two-dimensional factors of the 8 x 1 cross-section.
  double last_xx = 1;
  for (int images : {0, 10, 100, 400}) {
    const auto f = box_factors({16, 4, 1}, {2, 2, 1}, Periodicity{{true, false, false}, images});
    EXPECT_LT(f[0], last_xx) << images;
    last_xx = f[0];
    EXPECT_NEAR(f[0] + f[1] + f[2], 1.0, 1e-7) << images;
  }
  const auto f = box_factors({16, 4, 1}, {2, 2, 1}, Periodicity{{true, false, false}, 400});
  EXPECT_LT(f[0], 1e-6);
  EXPECT_NEAR(f[1], infinite_prism_factor(1, 8), 1e-6);
  EXPECT_NEAR(f[2], infinite_prism_factor(8, 1), 1e-6);
}

TEST(DemagFactors, PeriodicFilmIsOneAlongTheNormal) {
  // A film periodic along x and y: N_zz -> 1 and the in-plane factors -> 0 like the
  // thickness over the width of the whole array of images.
  double last = 1;
  for (int images : {5, 20, 80}) {
    const auto f = box_factors({8, 8, 2}, {1, 1, 0.5}, Periodicity{{true, true, false}, images});
    const double width = (2 * images + 1) * 8.0;
    EXPECT_NEAR(f[0], f[1], 1e-12);
    EXPECT_LT(f[0], 0.6 / width) << images;
    EXPECT_LT(f[0], 0.5 * last);
    EXPECT_NEAR(f[0] + f[1] + f[2], 1.0, 1e-7);  // each off-self tensor is traceless
    last = f[0];
  }
}

TEST(RegisterFft, MatchesTheDirectDft) {
  // The GPU column pass's per-thread passes, driven thread by thread on the CPU with the
  // exchanges between passes done through a plain array, against the O(n^2) DFT, forward
  // and inverse, for every power of two the pass takes (radix-16 passes alone and with a
  // last pass of radix 2, 4 and 8).
  for (int n : {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}) {
    const RegisterFftShape shape = RegisterFftShape::make(n);
    ASSERT_TRUE(shape.valid()) << n;
    const int threads = shape.threads();
    std::vector<Cx<double>> tw(register_fft_twiddle_count(n)), x(n), exchange(n);
    fill_register_fft_twiddles(n, tw.data());
    std::mt19937 rng(n);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& v : x) v = {u(rng), u(rng)};
    for (int sign : {-1, 1}) {
      std::vector<std::array<Cx<double>, 16>> v(threads);
      for (int j = 0; j < threads; ++j)
        for (int t = 0; t < 16; ++t) v[j][t] = x[j + t * threads];
      int ns = 1;
      for (int s = 0; s < shape.passes16; ++s) {
        for (int j = 0; j < threads; ++j) radix16_pass(v[j].data(), j, n, s, ns, tw.data(), sign);
        if (s == shape.passes16 - 1 && shape.last_radix == 1) break;
        for (int j = 0; j < threads; ++j)
          for (int t = 0; t < 16; ++t) exchange[radix16_destination(j, t, ns)] = v[j][t];
        for (int j = 0; j < threads; ++j)
          for (int t = 0; t < 16; ++t) v[j][t] = exchange[j + t * threads];
        ns *= 16;
      }
      for (int j = 0; j < threads; ++j) {
        if (shape.last_radix == 2) last_pass<2>(v[j].data(), j, n, tw.data(), sign);
        if (shape.last_radix == 4) last_pass<4>(v[j].data(), j, n, tw.data(), sign);
        if (shape.last_radix == 8) last_pass<8>(v[j].data(), j, n, tw.data(), sign);
      }
      double worst = 0;
      for (int k = 0; k < n; ++k) {
        double re = 0, im = 0;
        for (int t = 0; t < n; ++t) {
          const double ang = sign * 2 * std::numbers::pi * double(std::int64_t(k) * t % n) / n;
          re += x[t].re * std::cos(ang) - x[t].im * std::sin(ang);
          im += x[t].re * std::sin(ang) + x[t].im * std::cos(ang);
        }
        const Cx<double> got = v[k % threads][k / threads];
        worst = std::max(worst, std::hypot(got.re - re, got.im - im));
      }
      EXPECT_LT(worst, 1e-12 * n) << n << " sign " << sign;
    }
  }
  for (int n : {0, 8, 24, 48, 100, 4095}) EXPECT_FALSE(RegisterFftShape::make(n).valid()) << n;
}
