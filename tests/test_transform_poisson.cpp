// Transform fast Poisson on the CPU: every side pair per axis in 2D and 3D, any size.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"

namespace gridsolve {
namespace {

using fast_poisson::AxisKind;
using fast_poisson::Side;
using fast_poisson::TransformPoisson;
using fast_poisson::TransformProblem;

// A u with A the finite-volume operator the solver inverts, written out directly.
std::vector<double> apply_operator(const TransformProblem& p, const std::vector<double>& u) {
  const int m0 = p.m[0], m1 = p.m[1], m2 = p.dims == 3 ? p.m[2] : 1;
  const int m[3] = {m0, m1, m2};
  AxisKind kind[3];
  double c[3];
  for (int a = 0; a < 3; ++a) {
    kind[a] = a < p.dims ? fast_poisson::axis_kind(p.sides[a][0], p.sides[a][1]) : AxisKind::dd;
    c[a] = p.k / p.h[a];
    for (int b = 0; b < p.dims; ++b)
      if (b != a) c[a] *= p.h[b];
  }
  auto id = [&](int i, int j, int k) {
    return std::size_t(i) + std::size_t(m0) * (j + std::size_t(m1) * k);
  };
  std::vector<double> out(u.size(), 0.0);
  for (int k = 0; k < m2; ++k)
    for (int j = 0; j < m1; ++j)
      for (int i = 0; i < m0; ++i) {
        const int idx[3] = {i, j, k};
        double s = 0;
        for (int a = 0; a < p.dims; ++a) {
          double w = 1;
          for (int b = 0; b < p.dims; ++b)
            if (b != a) w *= fast_poisson::cell_weight(kind[b], m[b], idx[b]);
          double du = fast_poisson::stiffness_diagonal(kind[a], m[a], idx[a]) * u[id(i, j, k)];
          if (kind[a] == AxisKind::pp) du = 2 * u[id(i, j, k)];
          for (int sgn : {-1, 1}) {
            int n[3] = {i, j, k};
            n[a] += sgn;
            if (n[a] < 0 || n[a] >= m[a]) {
              if (kind[a] != AxisKind::pp) continue;
              n[a] = (n[a] + m[a]) % m[a];
            }
            du -= u[id(n[0], n[1], n[2])];
          }
          s += c[a] * w * du;
        }
        out[id(i, j, k)] = s;
      }
  return out;
}

double weighted_mean(const TransformProblem& p, const std::vector<double>& u) {
  const int m0 = p.m[0], m1 = p.m[1], m2 = p.dims == 3 ? p.m[2] : 1;
  const int m[3] = {m0, m1, m2};
  double sw = 0, swu = 0;
  std::size_t n = 0;
  for (int k = 0; k < m2; ++k)
    for (int j = 0; j < m1; ++j)
      for (int i = 0; i < m0; ++i, ++n) {
        const int idx[3] = {i, j, k};
        double w = 1;
        for (int a = 0; a < p.dims; ++a)
          w *= fast_poisson::cell_weight(fast_poisson::axis_kind(p.sides[a][0], p.sides[a][1]),
                                         m[a], idx[a]);
        sw += w, swu += w * u[n];
      }
  return swu / sw;
}

template <class T>
double solve_error(const TransformProblem& p, std::uint64_t seed) {
  const std::size_t size = std::size_t(p.m[0]) * p.m[1] * (p.dims == 3 ? p.m[2] : 1);
  std::vector<double> exact(size);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : exact) v = u(rng);
  const std::vector<double> b = apply_operator(p, exact);
  std::vector<T> x(b.begin(), b.end());
  TransformPoisson<T> solver(Device::cpu, p);
  solver.solve(x.data());
  std::vector<double> xd(x.begin(), x.end());
  double shift = 0;
  if (solver.singular()) shift = weighted_mean(p, exact) - weighted_mean(p, xd);
  double num = 0, den = 0;
  for (std::size_t n = 0; n < size; ++n) {
    num = std::max(num, std::abs(xd[n] + shift - exact[n]));
    den = std::max(den, std::abs(exact[n]));
  }
  return num / den;
}

const Side D = Side::dirichlet, N = Side::neumann, P = Side::periodic;
const std::array<Side, 2> pairs[] = {{D, D}, {N, D}, {D, N}, {N, N}, {P, P}};

TEST(TransformPoisson, EverySidePairIn2D) {
  for (const auto& sx : pairs)
    for (const auto& sy : pairs)
      for (const auto& m : {std::array<int, 3>{7, 5, 1}, std::array<int, 3>{16, 31, 1},
                            std::array<int, 3>{33, 12, 1}}) {
        TransformProblem p;
        p.dims = 2;
        p.m = m;
        p.h = {0.1, 0.13, 1};
        p.k = 2.5;
        p.sides = {sx, sy, std::array<Side, 2>{D, D}};
        EXPECT_LT(solve_error<double>(p, 11), 1e-11)
            << int(sx[0]) << int(sx[1]) << " " << int(sy[0]) << int(sy[1]) << " m " << m[0] << "x"
            << m[1];
      }
}

TEST(TransformPoisson, EverySidePairIn3D) {
  for (const auto& sx : pairs)
    for (const auto& sy : pairs)
      for (const auto& sz : pairs) {
        TransformProblem p;
        p.dims = 3;
        p.m = {9, 6, 7};
        p.h = {0.1, 0.2, 0.15};
        p.sides = {sx, sy, sz};
        EXPECT_LT(solve_error<double>(p, 5), 1e-11)
            << int(sx[0]) << int(sx[1]) << " " << int(sy[0]) << int(sy[1]) << " " << int(sz[0])
            << int(sz[1]);
      }
}

TEST(TransformPoisson, FloatIsAccurateToSinglePrecision) {
  TransformProblem p;
  p.dims = 2;
  p.m = {127, 100, 1};
  p.sides = {std::array<Side, 2>{D, D}, std::array<Side, 2>{N, D}, std::array<Side, 2>{D, D}};
  EXPECT_LT(solve_error<float>(p, 3), 1e-4);
}

TEST(TransformPoisson, OnePeriodicSideIsRefused) {
  TransformProblem p;
  p.m = {8, 8, 1};
  p.sides = {std::array<Side, 2>{P, D}, std::array<Side, 2>{D, D}, std::array<Side, 2>{D, D}};
  EXPECT_THROW(TransformPoisson<double>(Device::cpu, p), Error);
}

}  // namespace
}  // namespace gridsolve
