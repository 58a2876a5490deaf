// Obstacles on the MAC grid: the immersed boundary against the staircase on the DFG
// cylinder (coarse grids, against Schaefer & Turek's reference), its convergence, the
// shapes' geometry, polygons from a case file, and the band spacing of the grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_config.hpp"
#include "gridsolve/apps/flow/flow_obstacles.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"

using namespace gridsolve;
using namespace gridsolve::flow;

namespace {

// DFG 2D-1 reference (Schaefer & Turek 1996, the intervals' midpoints).
constexpr double c_d_ref = 5.58, c_l_ref = 0.0107;

struct Coefficients {
  double c_d = 0, c_l = 0;
  int iterations = -1;
};

// SIMPLEC to a steady state, then the force coefficients (DFG 2D-1 or 3D-1Z).
Coefficients steady_cylinder(int cpd, ObstacleTreatment t, const char* which = "dfg-2d-1",
                             FlowSolver<double>::WholeState* state = nullptr) {
  FlowCase c = dfg_case(which, cpd);
  c.obstacle_treatment = t;
  FlowSolver<double> s(c, Device::cpu);
  Coefficients out;
  for (int it = 1; it <= 5000; ++it) {
    const bool measure = it % 25 == 0;
    const StepReport r = s.simple_iteration(measure);
    if (measure && r.change / c.u_ref < 1e-7) {
      out.iterations = it;
      break;
    }
  }
  const Forces f = s.forces();
  out.c_d = f.fx * c.force_scale();
  out.c_l = f.fy * c.force_scale();
  if (state) *state = s.whole_state();
  return out;
}

}  // namespace

TEST(FlowObstacles, ImmersedCylinderBeatsTheStaircaseOnTheSameCoarseGrid) {
  // 8 cells per diameter around the cylinder: the immersed boundary's drag is within 3%
  // of the reference (1.8% there), the staircase's is not (9% high).
  const Coefficients ib = steady_cylinder(8, ObstacleTreatment::immersed);
  const Coefficients st = steady_cylinder(8, ObstacleTreatment::staircase);
  std::printf(
      "DFG 2D-1, 8 cells per diameter: immersed c_d %.4f c_l %.5f (%d iterations), "
      "staircase c_d %.4f c_l %.5f (%d); reference %.2f, %.4f\n",
      ib.c_d, ib.c_l, ib.iterations, st.c_d, st.c_l, st.iterations, c_d_ref, c_l_ref);
  ASSERT_GT(ib.iterations, 0);
  ASSERT_GT(st.iterations, 0);
  const double tolerance = 0.03;
  EXPECT_LT(std::abs(ib.c_d / c_d_ref - 1), tolerance);
  EXPECT_GT(std::abs(st.c_d / c_d_ref - 1), tolerance);
  EXPECT_LT(std::abs(ib.c_l - c_l_ref), std::abs(st.c_l - c_l_ref));
}

TEST(FlowObstacles, ImmersedDragConvergesFasterThanFirstOrder) {
  // Halving the cells (8 to 16 per diameter) cuts the drag's distance to the reference
  // by more than 3 (first order would give 2).
  const Coefficients a = steady_cylinder(8, ObstacleTreatment::immersed);
  const Coefficients b = steady_cylinder(16, ObstacleTreatment::immersed);
  const double ea = std::abs(a.c_d - c_d_ref), eb = std::abs(b.c_d - c_d_ref);
  std::printf(
      "DFG 2D-1 immersed: c_d %.4f (8 per diameter), %.4f (16): errors %.4f, %.4f, "
      "ratio %.1f\n",
      a.c_d, b.c_d, ea, eb, ea / eb);
  ASSERT_GT(b.iterations, 0);
  EXPECT_GT(ea / eb, 3.0);
  EXPECT_LT(std::abs(b.c_d / c_d_ref - 1), 0.003);
}

TEST(FlowObstacles, Cylinder3dApproachesTheDfg3dReference) {
  // DFG 3D-1Z (Re 20, the cylinder across a square channel): c_D 6.18533, c_L 0.009401
  // (Braack & Richter 2006; Schaefer & Turek's intervals [6.05, 6.25], [0.008, 0.010]).
  // At 4 and 8 cells per diameter the drag falls toward the reference, its error more than
  // halving, and the lift lies near its interval. The flow is symmetric about the channel's
  // mid-height z = 0.205 (the inflow and the body are): u mirrors, w changes sign. (The
  // DFG 2D-1 tests above cover the same code path in the plane.)
  constexpr double c_d_3d = 6.18533, c_l_3d = 0.009401;
  FlowSolver<double>::WholeState w;
  const Coefficients a = steady_cylinder(4, ObstacleTreatment::immersed, "dfg-3d-1z", &w);
  const Coefficients b = steady_cylinder(8, ObstacleTreatment::immersed, "dfg-3d-1z");
  const double ea = std::abs(a.c_d - c_d_3d), eb = std::abs(b.c_d - c_d_3d);
  std::printf(
      "DFG 3D-1Z immersed: c_d %.4f (4 per diameter), %.4f (8): errors %.4f, %.4f; "
      "c_l %.5f, %.5f\n",
      a.c_d, b.c_d, ea, eb, a.c_l, b.c_l);
  ASSERT_GT(a.iterations, 0);
  ASSERT_GT(b.iterations, 0);
  EXPECT_GT(ea / eb, 2.0);
  EXPECT_LT(std::abs(b.c_d / c_d_3d - 1), 0.02);
  EXPECT_LT(std::abs(b.c_l - c_l_3d), 0.002);
  const auto& n = dfg_case("dfg-3d-1z", 4).cells;
  double largest = 0, asymmetry = 0;
  for (int comp : {0, 2}) {
    const FieldView<const double> u = w.u[std::size_t(comp)].cview();
    const int nk = comp == 2 ? n[2] + 1 : n[2];
    for (int k = 0; k < nk; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
          const double mirrored = u(i, j, nk - 1 - k) * (comp == 2 ? -1 : 1);
          largest = std::max(largest, std::abs(u(i, j, k)));
          asymmetry = std::max(asymmetry, std::abs(u(i, j, k) - mirrored));
        }
  }
  EXPECT_GT(largest, 0.3);
  // (to the steady tolerance: the red-black sweeps run in one order along z)
  EXPECT_LT(asymmetry, 1e-6 * largest);
}

TEST(FlowObstacles, SurfaceGeometryOfTheShapes) {
  Obstacle circle;
  circle.centre = {1, 1};
  circle.radius = 0.5;
  SurfacePoint s = nearest_surface({circle}, 2, 1);
  EXPECT_NEAR(s.distance, 0.5, 1e-14);
  EXPECT_NEAR(s.x, 1.5, 1e-14);
  EXPECT_NEAR(s.nx, 1, 1e-14);
  s = nearest_surface({circle}, 1, 1.25);
  EXPECT_NEAR(s.distance, -0.25, 1e-14);
  EXPECT_NEAR(s.ny, 1, 1e-14);
  // A triangle given clockwise: the normal still points out.
  Obstacle tri;
  tri.shape = Obstacle::Shape::polygon;
  tri.vertices = {{0, 0}, {0, 1}, {1, 0}};
  EXPECT_TRUE(tri.contains(0.2, 0.2));
  EXPECT_FALSE(tri.contains(0.6, 0.6));
  s = nearest_surface({tri}, 0.5, -0.5);
  EXPECT_NEAR(s.distance, 0.5, 1e-14);
  EXPECT_NEAR(s.ny, -1, 1e-14);
  s = nearest_surface({tri}, 0.1, 0.5);  // inside, nearest the edge x = 0
  EXPECT_NEAR(s.distance, -0.1, 1e-14);
  EXPECT_NEAR(s.nx, -1, 1e-14);
}

TEST(FlowObstacles, ASquareAsPolygonActsAsTheRectangle) {
  // The same square as a rectangle and as a polygon: the same faces are fixed at the same
  // wall distances, so a few PISO steps give the same forces; mass is conserved.
  FlowCase c = dfg_case("dfg-2d-2", 6);
  c.obstacles[0].shape = Obstacle::Shape::rectangle;
  c.obstacles[0].lo = {0.153, 0.147};
  c.obstacles[0].hi = {0.247, 0.251};
  FlowCase p = c;
  p.obstacles[0].shape = Obstacle::Shape::polygon;
  p.obstacles[0].vertices = {{0.247, 0.251}, {0.153, 0.251}, {0.153, 0.147}, {0.247, 0.147}};
  FlowSolver<double> a(c, Device::cpu), b(p, Device::cpu);
  for (int k = 0; k < 5; ++k) {
    a.piso_step(2e-3, false);
    b.piso_step(2e-3, false);
  }
  const Forces fa = a.forces(), fb = b.forces();
  std::printf("square as rectangle: drag %.12f, as polygon %.12f\n", fa.fx, fb.fx);
  EXPECT_GT(fa.fx, 0);
  EXPECT_NEAR(fa.fx, fb.fx, 1e-12 * std::abs(fa.fx));
  EXPECT_NEAR(fa.fy, fb.fy, 1e-12 * std::abs(fa.fx));
  EXPECT_LT(b.max_divergence() * a.grid().min_width(0), 1e-6);
}

TEST(FlowObstacles, CaseFileGivesPolygonsAndTheTreatment) {
  const std::string head = R"TOML(
[flow]
cells = [40, 20]
hi = [2, 1]
nu = 0.01
spacing = ["band:0.5:1.0:0.02", "uniform"]
[boundary.x_low]
type = "inflow"
u = 1
[boundary.x_high]
type = "outflow"
)TOML";
  const FlowConfig cfg = parse_flow_config(head + R"TOML(
[[obstacle]]
shape = "polygon"
vertices = [[0.5, 0.4], [0.7, 0.5], [0.5, 0.6]]
[method]
obstacle_treatment = "staircase"
)TOML",
                                           "polygon.toml");
  ASSERT_EQ(cfg.flow_case.obstacles.size(), 1u);
  EXPECT_EQ(cfg.flow_case.obstacles[0].vertices.size(), 3u);
  EXPECT_EQ(cfg.flow_case.obstacle_treatment, ObstacleTreatment::staircase);
  EXPECT_THROW(parse_flow_config(head + R"TOML(
[[obstacle]]
shape = "polygon"
vertices = [[0.5, 0.4], [0.7, 0.6], [0.7, 0.4], [0.5, 0.6]]
)TOML",
                                 "crossed.toml"),
               Error);
  EXPECT_THROW(parse_flow_config(head + "[method]\nobstacle_treatment = \"cut\"\n", "t.toml"),
               Error);
}

TEST(FlowGrid, BandSpacingIsUniformInsideAndGrowsAlikeOutside) {
  const AxisSpacing s = AxisSpacing::parse("band:0.1:0.35:0.00625");
  const MacGrid g(2, {120, 52, 1}, {0, 0, 0}, {2.2, 0.41, 1}, {s, AxisSpacing{}, AxisSpacing{}},
                  Device::cpu);
  EXPECT_EQ(g.xf(0, 0), 0.0);
  EXPECT_EQ(g.xf(0, 120), 2.2);
  int in_band = 0;
  double largest_ratio = 0;
  for (int i = 0; i < 120; ++i) {
    ASSERT_GT(g.width(0, i), 0);
    if (g.xc(0, i) > 0.1 && g.xc(0, i) < 0.35) {
      ++in_band;
      EXPECT_NEAR(g.width(0, i), 0.00625, 1e-12);
    }
    if (i > 0) {
      const double r = g.width(0, i) / g.width(0, i - 1);
      largest_ratio = std::max(largest_ratio, std::max(r, 1 / r));
    }
  }
  EXPECT_EQ(in_band, 40);
  EXPECT_LT(largest_ratio, 1.1);
  EXPECT_THROW(AxisSpacing::parse("band:0.3:0.1:0.01"), Error);
  EXPECT_THROW(AxisSpacing::parse("band:0.1:0.3"), Error);
  // Too few cells outside the band: the growth would exceed the limit.
  EXPECT_THROW(MacGrid(2, {44, 52, 1}, {0, 0, 0}, {2.2, 0.41, 1}, {s, AxisSpacing{}, AxisSpacing{}},
                       Device::cpu),
               Error);
}
