// Incompressible flow on the MAC grid: exact solutions (Couette, Poiseuille, Taylor-Green,
// Kovasznay) with observed orders, mass conservation, and the cavity against Ghia.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"

using namespace gridsolve;
using namespace gridsolve::flow;

namespace {

// Runs SIMPLE / SIMPLEC until the largest change per iteration falls below tol.
int converge(FlowSolver<double>& s, double tol, int cap) {
  for (int it = 1; it <= cap; ++it) {
    const bool measure = it % 20 == 0;
    const StepReport r = s.simple_iteration(measure);
    if (measure && r.change < tol) return it;
  }
  return -1;
}

// max |u_c - exact| over the faces of component c.
double max_error(const FlowSolver<double>& s, int c,
                 const std::function<double(double, double)>& exact, bool l2 = false) {
  const Field<double> h = s.velocity(c).copy_to(Device::cpu);
  const auto v = h.cview();
  const MacGrid& g = s.grid();
  const auto n = g.cells();
  double m = 0, sum = 0;
  int count = 0;
  for (int j = 0; j < n[1] + (c == 1); ++j)
    for (int i = 0; i < n[0] + (c == 0); ++i) {
      const double x = c == 0 ? g.xf(0, i) : g.xc(0, i);
      const double y = c == 1 ? g.xf(1, j) : g.xc(1, j);
      const double e = std::abs(v(i, j, 0) - exact(x, y));
      m = std::max(m, e);
      sum += e * e;
      ++count;
    }
  return l2 ? std::sqrt(sum / count) : m;
}

}  // namespace

TEST(FlowExact, CouetteIsExact) {
  FlowCase c;
  c.cells = {16, 12, 1};
  c.nu = 0.1;
  c.sides[3].velocity = {1, 0, 0};
  c.sides[0].type = SideType::velocity;
  c.sides[0].profile[0] = Expression::parse("y");
  c.sides[1].type = SideType::outflow;
  c.coupling = Coupling::simplec;
  c.relax_u = 0.9;
  c.relax_p = 1.0;
  c.pressure_tolerance = 1e-10;
  FlowSolver<double> s(c, Device::cpu);
  const int its = converge(s, 1e-12, 4000);
  EXPECT_GT(its, 0);
  const double err = max_error(s, 0, [](double, double y) { return y; });
  const double errv = max_error(s, 1, [](double, double) { return 0.0; });
  std::printf("Couette: %d iterations, max error u %.3g v %.3g\n", its, err, errv);
  EXPECT_LT(err, 1e-9);
  EXPECT_LT(errv, 1e-9);
}

TEST(FlowBenchmark, CavityRe100AgainstGhia) {
  FlowCase c = cavity_case(100, 32);
  FlowSolver<double> s(c, Device::cpu);
  const int its = converge(s, 1e-7, 20000);
  EXPECT_GT(its, 0);
  FlowSnapshot snap(s);
  const auto pts =
      compare_with_ghia(snap, GRIDSOLVE_SOURCE_DIR "/examples/flow/ghia1982_re100_re1000.csv", 100);
  const VortexCentre vc = primary_vortex(snap);
  std::printf("cavity 32: %d its, max dev %.4f mean %.4f psi_min %.5f at (%.4f, %.4f)\n", its,
              max_deviation(pts), mean_deviation(pts), vc.psi, vc.x, vc.y);
  EXPECT_LT(max_deviation(pts), 0.02);
}
