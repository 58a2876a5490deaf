// The axisymmetric operator on the magnet's L-shaped domain: exact axisymmetric
// harmonics are reproduced with observed order 2, with Dirichlet data and with the
// magnet's own mix of Neumann sides and cut-face fluxes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "test_helpers.hpp"

namespace gridsolve {
namespace {

struct Harmonic {
  const char* name;
  std::function<double(double, double)> u, du_dr, du_dz;
};

const Harmonic harmonics[] = {
    {"z", [](double, double z) { return z; }, [](double, double) { return 0.0; },
     [](double, double) { return 1.0; }},
    {"r2-2z2", [](double r, double z) { return r * r - 2 * z * z; },
     [](double r, double) { return 2 * r; }, [](double, double z) { return -4 * z; }},
    {"z3-1.5zr2", [](double r, double z) { return z * z * z - 1.5 * z * r * r; },
     [](double r, double z) { return -3 * z * r; },
     [](double r, double z) { return 3 * z * z - 1.5 * r * r; }},
    {"8z4-24z2r2+3r4",
     [](double r, double z) {
       return 8 * std::pow(z, 4) - 24 * z * z * r * r + 3 * std::pow(r, 4);
     },
     [](double r, double z) { return -48 * z * z * r + 12 * std::pow(r, 3); },
     [](double r, double z) { return 32 * std::pow(z, 3) - 48 * z * r * r; }},
};

constexpr double r0 = 0.25, z0 = 0.5, r1 = 1.0, z1 = 1.0;

// The L-shaped domain {z >= 0} minus the magnet [0, r0] x [0, z0] on a grid of spacing
// h (dr) and h * aspect (dz). With `dirichlet`: exact values on every side but the axis
// and on the magnet; else the magnet problem's layout: Dirichlet midplane, Neumann
// outer box, and the magnet's surface as a cut-out with the exact flux.
ProblemSpec l_shape(const Harmonic& hm, double h, double aspect, bool dirichlet) {
  ProblemSpec spec;
  const int nr = int(std::lround(r1 / h)) + 1, nz = int(std::lround(z1 / (h * aspect))) + 1;
  spec.grid = Grid::box(2, {nr, nz, 1}, {0, 0, 0}, {r1, z1, 0});
  spec.grid.geometry = Geometry::axisymmetric;
  const Expression exact =
      Expression::from([u = hm.u](double r, double z, double) { return u(r, z); }, hm.name);
  spec.exact = exact;
  spec.boundaries[x_low].kind = BoundaryKind::neumann;  // the axis
  for (int f : {x_high, y_low, y_high}) {
    spec.boundaries[f].kind = BoundaryKind::dirichlet;
    spec.boundaries[f].g = exact;
  }
  MaskRegion magnet;
  magnet.lo = {-1, -1, 0};
  magnet.hi = {r0, z0, 0};
  if (dirichlet) {
    magnet.kind = NodeKind::fixed;
    magnet.value = exact;
  } else {
    magnet.kind = NodeKind::outside;
    spec.boundaries[x_high].kind = BoundaryKind::neumann;
    spec.boundaries[x_high].g =
        Expression::from([f = hm.du_dr](double r, double z, double) { return f(r, z); }, "du/dr");
    spec.boundaries[y_high].kind = BoundaryKind::neumann;
    spec.boundaries[y_high].g =
        Expression::from([f = hm.du_dz](double r, double z, double) { return f(r, z); }, "du/dz");
  }
  spec.regions.push_back(magnet);
  return spec;
}

CutFlux exact_flux(const Harmonic& hm) {
  return [hm](double r, double z, int axis, int sign) {
    return sign * (axis == 0 ? hm.du_dr(r, z) : hm.du_dz(r, z));
  };
}

double solve_error(const Harmonic& hm, double h, double aspect, bool dirichlet) {
  const ProblemSpec spec = l_shape(hm, h, aspect, dirichlet);
  Discretization<double> d = assemble_axisymmetric<double>(spec, Device::cpu, exact_flux(hm));
  SolveOptions o;
  o.tolerance = 1e-11;
  o.max_iterations = 2000000;
  const SolveReport rep = make_solver<double>("sor")->solve(d.op, d.u, o);
  EXPECT_TRUE(rep.converged) << rep.reason;
  return testing::max_error(spec, d);
}

class AxisymmetricHarmonics : public ::testing::TestWithParam<std::tuple<int, bool, double>> {};

TEST_P(AxisymmetricHarmonics, OrderTwoOrExact) {
  const auto [which, dirichlet, aspect] = GetParam();
  const Harmonic& hm = harmonics[which];
  const double e1 = solve_error(hm, 1.0 / 40, aspect, dirichlet);
  const double e2 = solve_error(hm, 1.0 / 80, aspect, dirichlet);
  std::printf("%s %s dz/dr %.1f: max error %.3e -> %.3e\n", hm.name,
              dirichlet ? "dirichlet" : "neumann+cut", aspect, e1, e2);
  if (which < 2 || (which == 2 && dirichlet)) {
    // Up to cubics in z and quadratics in r the r-weighted interior fluxes are exact;
    // only the side and cut-face flux quadrature (Neumann layout) sees the cubic.
    EXPECT_LT(e1, 1e-9) << hm.name;
    EXPECT_LT(e2, 1e-9) << hm.name;
  } else {
    ASSERT_GT(e2, 0.0);
    EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.15) << hm.name << ": errors " << e1 << " -> " << e2;
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<int, bool, double>>& info) {
  const char* names[] = {"z", "quadratic", "cubic", "quartic"};
  return std::string(names[std::get<0>(info.param)]) +
         (std::get<1>(info.param) ? "_dirichlet" : "_neumann_cut") +
         (std::get<2>(info.param) == 1.0 ? "_square" : "_dz_half");
}

INSTANTIATE_TEST_SUITE_P(LShape, AxisymmetricHarmonics,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3), ::testing::Bool(),
                                            ::testing::Values(1.0, 0.5)),
                         case_name);

TEST(AxisymmetricOperator, IsSymmetric) {
  const ProblemSpec spec = l_shape(harmonics[2], 1.0 / 16, 0.5, false);
  const Discretization<double> d =
      assemble_axisymmetric<double>(spec, Device::cpu, exact_flux(harmonics[2]));
  const StencilView<double> a = d.op.view();
  const Grid& g = spec.grid;
  int checked = 0;
  for (int j = 0; j < g.n[1]; ++j)
    for (int i = 0; i < g.n[0]; ++i) {
      if (!a.is_free(i, j, 0)) continue;
      if (i + 1 < g.n[0] && a.is_free(i + 1, j, 0)) {
        EXPECT_DOUBLE_EQ(a.coefficient(1, i, j, 0), a.coefficient(0, i + 1, j, 0)) << i << "," << j;
        ++checked;
      }
      if (j + 1 < g.n[1] && a.is_free(i, j + 1, 0)) {
        EXPECT_DOUBLE_EQ(a.coefficient(3, i, j, 0), a.coefficient(2, i, j + 1, 0)) << i << "," << j;
        ++checked;
      }
      // The axis carries no flux: no west neighbour at r = 0.
      if (i == 0) {
        EXPECT_EQ(a.coefficient(0, i, j, 0), 0.0);
      }
    }
  EXPECT_GT(checked, 100);
}

TEST(AxisymmetricOperator, AssembleDispatchesOnGeometry) {
  const ProblemSpec spec = l_shape(harmonics[1], 1.0 / 16, 1.0, true);
  const Discretization<double> a = assemble<double>(spec, Device::cpu);
  const Discretization<double> b = assemble_axisymmetric<double>(spec, Device::cpu);
  EXPECT_FALSE(a.op.uniform);
  EXPECT_EQ(a.op.grid.geometry, Geometry::axisymmetric);
  EXPECT_EQ(testing::max_difference(a.op.an, b.op.an), 0.0);
}

}  // namespace
}  // namespace gridsolve
