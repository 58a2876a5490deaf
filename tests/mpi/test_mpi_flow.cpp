// Incompressible flow on ranks: every rank's part of u, v and p equals the one-process
// solver's after the same SIMPLE iterations and PISO steps, on 1-4 CPU ranks: the
// lid-driven cavity in 2D and 3D (walls, a moving lid; SIMPLEC, and PISO with BDF2 and the
// TVD scheme, whose stencil reaches two faces into the next part) and DFG 2D-1 (an inflow, an
// outflow rescaled to it, a cylinder on the immersed boundary, its forces summed over the ranks).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve::flow {
namespace {

// The largest difference of a part from the whole field over the part's values, relative
// to the whole field's largest value, over every rank.
double part_difference(const Field<double>& part, const Field<double>& whole) {
  const Box b = part.interior();
  const FieldView<const double> p = part.cview(), w = whole.cview();
  double worst = 0, largest = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        worst = std::max(worst, std::abs(p(i, j, k) - w(i, j, k)));
        largest = std::max(largest, std::abs(w(i, j, k)));
      }
  const Communicator& comm = Communicator::world();
  return comm.max(worst) / std::max(comm.max(largest), 1e-300);
}

// The same PISO steps of fixed size on two solvers.
void piso_steps(FlowSolver<double>& a, FlowSolver<double>& b, int steps, double dt) {
  for (int s = 0; s < steps; ++s) {
    a.piso_step(dt, false);
    b.piso_step(dt, false);
  }
}

// The same projection (RK3) steps of fixed size on two solvers.
void rk3_steps(FlowSolver<double>& a, FlowSolver<double>& b, int steps, double dt) {
  for (int s = 0; s < steps; ++s) {
    a.runge_kutta_step(dt, false);
    b.runge_kutta_step(dt, false);
  }
}

// Taylor-Green vortices on [0, 2 pi]^2 carried by a uniform flow (1, 0.5), so that the
// sines cross the cuts and the periodic sides.
void carried_vortices(FlowSolver<double>& s) {
  s.set_velocity(0, [](double x, double y, double) { return 1 + std::sin(x) * std::cos(y); });
  s.set_velocity(1, [](double x, double y, double) { return 0.5 - std::cos(x) * std::sin(y); });
}

// A GPU run's parts gathered whole against one CPU process: u and v (and p) within `tol`.
void expect_gpu_parts_equal(const FlowSolver<double>& cpu, const FlowSolver<double>& gpu,
                            double tol, const char* what, bool pressure) {
  const FlowSolver<double>::WholeState a = cpu.whole_state(), b = gpu.whole_state();
  for (int q = 0; q < 2; ++q)
    EXPECT_LE(part_difference(b.u[std::size_t(q)], a.u[std::size_t(q)]), tol) << what << "uv"[q];
  if (pressure) {
    EXPECT_LE(part_difference(b.p, a.p), tol) << what << "p";
  }
}

void expect_same_state(const FlowSolver<double>& split, const FlowSolver<double>& whole,
                       const char* what) {
  const int ranks = Communicator::world().size();
  for (int q = 0; q < whole.grid().dims(); ++q)
    EXPECT_LE(part_difference(split.velocity(q), whole.velocity(q)), 1e-10)
        << what << ": velocity "
        << "uvw"[q] << " on " << ranks << " ranks";
  EXPECT_LE(part_difference(split.pressure(), whole.pressure()), 1e-10)
      << what << ": pressure on " << ranks << " ranks";
}

void cavity_like_one_process(std::int64_t whole_nodes) {
  FlowCase c = cavity_case(400, 24);
  c.cells = {24, 21, 1};  // uneven parts
  c.coupling = Coupling::simplec;
  c.pressure_whole_nodes = whole_nodes;
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
  EXPECT_EQ(split.cell_parts() != nullptr, Communicator::world().size() > 1);
  StepReport a, b;
  for (int it = 0; it < 15; ++it) {
    a = whole.simple_iteration(true);
    b = split.simple_iteration(true);
  }
  EXPECT_NEAR(b.change, a.change, 1e-12 * (1 + a.change));
  EXPECT_NEAR(b.continuity, a.continuity, 1e-9 * (1 + a.continuity));
  EXPECT_EQ(b.pressure_iterations, a.pressure_iterations);
  expect_same_state(split, whole, "cavity, SIMPLEC");

  c.coupling = Coupling::piso;
  c.pressure_tolerance = 1e-8;
  FlowSolver<double> whole_t(c, Device::cpu, true), split_t(c, Device::cpu);
  for (int s = 0; s < 6; ++s) {
    const double cfl = whole_t.cfl_time_step(0.5);
    EXPECT_NEAR(split_t.cfl_time_step(0.5), cfl, 1e-12 * cfl);
    // The first step from rest at a fixed dt, the CFL step after it capped at the same: from
    // a flow barely started the CFL step is about 1, which the impulsive start does not
    // survive (the velocities grew a hundred thousand fold and the steps fell to 3e-7).
    const double dt = s == 0 ? 0.01 : std::min(cfl, 0.01);
    whole_t.piso_step(dt, false);
    split_t.piso_step(dt, false);
  }
  expect_same_state(split_t, whole_t, "cavity, PISO");
  // The divergence left is the pressure solve's residual: it moves with the solves'
  // rounding (1e-12 here, between two one-process solvers as well).
  const double div = whole_t.max_divergence();
  EXPECT_LT(div, 1e-6);
  EXPECT_NEAR(split_t.max_divergence(), div, 1e-10);
}

TEST(MpiFlow, CavityLikeOneProcess) {
  // The pressure solved whole on every rank (the default for a problem this small), and
  // split over the ranks as a large one is.
  for (const std::int64_t whole_nodes : {std::int64_t(-1), std::int64_t(0)}) {
    SCOPED_TRACE(whole_nodes < 0 ? "pressure whole on every rank" : "pressure split");
    cavity_like_one_process(whole_nodes);
  }
}

TEST(MpiFlow, Cavity3dLikeOneProcess) {
  FlowCase c = cavity_case(100, 10);
  c.dims = 3;
  c.cells = {10, 9, 8};
  c.coupling = Coupling::piso;
  c.pressure_tolerance = 1e-8;
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
  piso_steps(whole, split, 3, 0.02);
  expect_same_state(split, whole, "3D cavity, PISO");
}

// A DFG channel case whole and split, `steps` PISO steps: the same state and forces.
void expect_channel_like_one_process(const char* which, int steps, const char* what) {
  FlowCase c = dfg_case(which, 4);
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
  piso_steps(whole, split, steps, 0.02);
  expect_same_state(split, whole, what);
  const Forces fw = whole.forces(), fs = split.forces();
  EXPECT_GT(std::abs(fw.fx), 1e-4) << what;  // a force worth comparing
  EXPECT_NEAR(fs.fx, fw.fx, 1e-10 * (1 + std::abs(fw.fx))) << what;
  EXPECT_NEAR(fs.fy, fw.fy, 1e-10 * (1 + std::abs(fw.fy))) << what;
}

TEST(MpiFlow, ChannelWithCylinderLikeOneProcess) {
  expect_channel_like_one_process("dfg-2d-1", 4, "DFG 2D-1");
}

// DFG 3D-1Z: the cylinder spans the channel in z, cut by the parts along every axis the
// decomposition splits (its solid cells, open fractions and forces on every part).
TEST(MpiFlow, Channel3dWithCylinderLikeOneProcess) {
  expect_channel_like_one_process("dfg-3d-1z", 3, "DFG 3D-1Z");
}

// The projection scheme on ranks: the cavity (uneven parts, the lean rows inside each part,
// the general row on its frame) and DFG 2D-1 (inflow, outflow, the immersed cylinder).
TEST(MpiFlow, ProjectionLikeOneProcess) {
  FlowCase cavity = cavity_case(400, 24);
  cavity.cells = {24, 21, 1};
  for (FlowCase c : {cavity, dfg_case("dfg-2d-1", 4)}) {
    c.coupling = Coupling::projection;
    c.time_scheme = TimeScheme::rk3;
    c.pressure_tolerance = 1e-10;
    c.validate();
    FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
    for (int s = 0; s < 5; ++s) {
      const double dt = std::min(whole.cfl_time_step(0.5), 0.01);
      whole.runge_kutta_step(dt, false);
      split.runge_kutta_step(dt, false);
    }
    expect_same_state(split, whole, c.name.c_str());
    EXPECT_NEAR(split.max_divergence(), whole.max_divergence(), 1e-10);
  }
}

// Taylor-Green vortices in a periodic box (every side periodic: the parts meet across the
// sides too), carried by a uniform flow so that the limited scheme's far faces cross them.
TEST(MpiFlow, TaylorGreenLikeOneProcess) {
  FlowCase c;
  c.cells = {20, 18, 1};
  c.hi = {2 * std::numbers::pi, 2 * std::numbers::pi, 1};
  for (int s = 0; s < 4; ++s) c.sides[std::size_t(s)].type = SideType::periodic;
  c.nu = 0.05;
  c.coupling = Coupling::piso;
  c.momentum_tolerance = 1e-10;
  c.pressure_tolerance = 1e-11;
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
  for (FlowSolver<double>* s : {&whole, &split}) {
    carried_vortices(*s);
    s->set_pressure(
        [](double x, double y, double) { return 0.25 * (std::cos(2 * x) + std::cos(2 * y)); });
  }
  piso_steps(whole, split, 5, 0.05);
  expect_same_state(split, whole, "Taylor-Green");
}

// The transform pressure (`fft`) on ranks, every side periodic: the parts are slabs along
// the slowest axis, whose whole lines the transpose makes and transforms too; the
// pressure solved whole on every rank (the default for a problem this small) and split.
TEST(MpiFlow, TransformPressureLikeOneProcess) {
  const int ranks = Communicator::world().size();
  for (const int dims : {2, 3}) {
    FlowCase c;
    c.dims = dims;
    c.cells = dims == 2 ? std::array<int, 3>{20, 18, 1} : std::array<int, 3>{10, 9, 13};
    const double period = 2 * std::numbers::pi;
    c.hi = {period, period, dims == 3 ? period : 1};
    for (int s = 0; s < 2 * dims; ++s) c.sides[std::size_t(s)].type = SideType::periodic;
    c.nu = 0.05;
    c.coupling = Coupling::projection;
    c.time_scheme = TimeScheme::rk3;
    c.pressure_solver = "fft";
    for (const std::int64_t whole_nodes : {std::int64_t(-1), std::int64_t(0)}) {
      SCOPED_TRACE(fmt::format("{}D, pressure {}", dims, whole_nodes < 0 ? "whole" : "split"));
      c.pressure_whole_nodes = whole_nodes;
      c.validate();
      FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
      if (ranks > 1) {
        const std::array<int, 3> grid = split.cell_parts()->process_grid();
        EXPECT_EQ(grid[std::size_t(dims - 1)], ranks) << "slabs along the slowest axis";
      }
      // Vortices carried by a uniform flow (the sines cross the cuts and the sides).
      for (FlowSolver<double>* s : {&whole, &split}) {
        s->set_velocity(0, [](double x, double y, double z) {
          return 1 + std::sin(x) * std::cos(y) * std::cos(z);
        });
        s->set_velocity(1, [](double x, double y, double z) {
          return 0.5 - std::cos(x) * std::sin(y) * std::cos(z);
        });
        if (dims == 3) s->set_velocity(2, [](double, double, double) { return 0.25; });
      }
      for (int step = 0; step < 5; ++step) {
        const double dt = std::min(whole.cfl_time_step(0.5), 0.05);
        whole.runge_kutta_step(dt, false);
        split.runge_kutta_step(dt, false);
      }
      expect_same_state(split, whole, "Taylor-Green, fft pressure");
      const double div = whole.max_divergence();
      EXPECT_LT(div, 1e-10);
      EXPECT_NEAR(split.max_divergence(), div, 1e-10);
    }
  }
}

// A channel periodic along x between walls, the upper one moving; with a cylinder in it;
// a body within three cells of the periodic sides is refused on ranks (its faces at the
// image would be its own).
TEST(MpiFlow, PeriodicChannelLikeOneProcess) {
  FlowCase c;
  c.cells = {24, 12, 1};
  c.hi = {2, 1, 1};
  c.sides[0].type = c.sides[1].type = SideType::periodic;
  c.sides[3].velocity = {1, 0, 0};
  c.nu = 0.02;
  c.coupling = Coupling::piso;
  c.pressure_tolerance = 1e-10;
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cpu);
  piso_steps(whole, split, 6, 0.05);
  expect_same_state(split, whole, "periodic channel");
  Obstacle o;
  o.centre = {1, 0.5};
  o.radius = 0.2;
  c.obstacles.push_back(o);
  FlowSolver<double> whole_body(c, Device::cpu, true), split_body(c, Device::cpu);
  piso_steps(whole_body, split_body, 6, 0.05);
  expect_same_state(split_body, whole_body, "periodic channel with a cylinder");
  // The body moved the flow: a comparison worth making.
  EXPECT_GT(part_difference(split_body.velocity(0), whole.velocity(0)), 1e-3);
  if (Communicator::world().size() == 1) return;
  c.obstacles[0].centre = {1.8, 0.5};  // reaches past x = 2 - 3 cells (1.75)
  c.obstacles[0].radius = 0.1;
  EXPECT_THROW(FlowSolver<double>(c, Device::cpu), Error);
}

// Each rank's GPU: the cavity (PISO, TVD) and DFG 2D-1 split over the ranks' GPUs against
// one process on the CPU (the loops are the same; the GPU's sums round differently).
TEST(MpiFlow, OnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: " << cuda_unavailable_reason();
  FlowCase c = cavity_case(400, 24);
  c.cells = {24, 21, 1};
  c.coupling = Coupling::piso;
  c.pressure_tolerance = 1e-10;
  FlowSolver<double> whole(c, Device::cpu, true), split(c, Device::cuda);
  piso_steps(whole, split, 5, 0.01);
  expect_gpu_parts_equal(whole, split, 1e-9, "cavity ", true);
  FlowCase d = dfg_case("dfg-2d-1", 4);
  FlowSolver<double> dw(d, Device::cpu, true), ds(d, Device::cuda);
  piso_steps(dw, ds, 3, 0.02);
  const Forces fw = dw.forces(), fs = ds.forces();
  EXPECT_NEAR(fs.fx, fw.fx, 1e-8 * (1 + std::abs(fw.fx)));
  EXPECT_NEAR(fs.fy, fw.fy, 1e-8 * (1 + std::abs(fw.fy)));
  // The projection scheme on the GPUs' parts (lean rows inside each part).
  c.coupling = Coupling::projection;
  c.time_scheme = TimeScheme::rk3;
  FlowSolver<double> pw(c, Device::cpu, true), ps(c, Device::cuda);
  rk3_steps(pw, ps, 5, 0.005);
  expect_gpu_parts_equal(pw, ps, 1e-9, "projection ", false);
  // The transform pressure on the GPUs' slabs (complex spectra by cuFFT, the lines' transform
  // after the all-to-all), split even though this problem is small.
  FlowCase tg;
  tg.cells = {24, 20, 1};
  tg.hi = {2 * std::numbers::pi, 2 * std::numbers::pi, 1};
  for (int side = 0; side < 4; ++side) tg.sides[std::size_t(side)].type = SideType::periodic;
  tg.nu = 0.05;
  tg.coupling = Coupling::projection;
  tg.time_scheme = TimeScheme::rk3;
  tg.pressure_solver = "fft";
  tg.pressure_whole_nodes = 0;
  tg.validate();
  FlowSolver<double> tw(tg, Device::cpu, true), ts(tg, Device::cuda);
  carried_vortices(tw);
  carried_vortices(ts);
  rk3_steps(tw, ts, 5, 0.05);
  expect_gpu_parts_equal(tw, ts, 1e-9, "fft pressure ", true);
  EXPECT_LT(ts.max_divergence(), 1e-10);
}

}  // namespace
}  // namespace gridsolve::flow
