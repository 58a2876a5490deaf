// Incompressible flow on the GPU: the same SIMPLEC iterations and PISO steps as on the
// CPU (the cavity and the staircase cylinder), and the cavity against Ghia at 128^2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "gpu_test_support.hpp"
#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve::flow {
namespace {

// Largest difference between the two solvers' fields, relative to the largest value.
double field_difference(const FlowSolver<double>& a, const FlowSolver<double>& b) {
  double diff = 0, scale = 0;
  for (int c = 0; c < 2; ++c) {
    const std::vector<double> x = a.velocity(c).to_vector(), y = b.velocity(c).to_vector();
    for (std::size_t i = 0; i < x.size(); ++i) {
      diff = std::max(diff, std::abs(x[i] - y[i]));
      scale = std::max(scale, std::abs(x[i]));
    }
  }
  return diff / scale;
}

// The same steady iterations of one case on both devices (the device's last one measured
// when asked): how far apart their fields end.
double steady_difference(const FlowCase& c, int iterations, bool measure_last = false) {
  FlowSolver<double> cpu(c, Device::cpu), gpu(c, Device::cuda);
  for (int it = 0; it < iterations; ++it) {
    cpu.simple_iteration(false);
    gpu.simple_iteration(measure_last && it == iterations - 1);
  }
  return field_difference(cpu, gpu);
}

TEST(FlowGpu, SimplecCavityMatchesCpu) {
  SKIP_WITHOUT_GPU();
  FlowCase c = cavity_case(400, 48);
  c.pressure_tolerance = 1e-10;
  const double d = steady_difference(c, 60);
  std::printf("SIMPLEC cavity 48^2, 60 iterations: max |u_cpu - u_gpu| / max |u| = %.2e\n", d);
  EXPECT_LT(d, 1e-8);
}

TEST(FlowGpu, EveryConvectionSchemeMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const Convection scheme :
       {Convection::upwind, Convection::hybrid, Convection::quick, Convection::central}) {
    FlowCase c = cavity_case(400, 32);
    c.convection = scheme;
    c.pressure_tolerance = 1e-10;
    const double d = steady_difference(c, 40);
    std::printf("SIMPLEC cavity 32^2, %s, 40 iterations: CPU and GPU differ by %.2e\n",
                to_string(scheme).c_str(), d);
    EXPECT_LT(d, 1e-8) << to_string(scheme);
  }
}

TEST(FlowGpu, PisoCylinderMatchesCpu) {
  SKIP_WITHOUT_GPU();
  FlowCase c = dfg_case("dfg-2d-2", 8);
  c.pressure_tolerance = 1e-11;
  FlowSolver<double> cpu(c, Device::cpu), gpu(c, Device::cuda);
  for (int s = 0; s < 30; ++s) {
    cpu.piso_step(2e-3, false);
    gpu.piso_step(2e-3, false);
  }
  const double d = field_difference(cpu, gpu);
  const Forces fc = cpu.forces(), fg = gpu.forces();
  std::printf("PISO cylinder, 30 steps: field difference %.2e; drag %.10f vs %.10f\n", d, fc.fx,
              fg.fx);
  EXPECT_LT(d, 1e-8);
  EXPECT_NEAR(fc.fx, fg.fx, 1e-8 * std::abs(fc.fx));
  EXPECT_LT(gpu.max_divergence(), 1e-6);
  EXPECT_LT(cpu.max_divergence(), 1e-6);
}

TEST(FlowGpu, BiCgStabMomentumMatchesCpu) {
  SKIP_WITHOUT_GPU();
  FlowCase c = cavity_case(400, 40);
  c.momentum_solver = "bicgstab";
  c.momentum_tolerance = 1e-10;
  c.pressure_tolerance = 1e-10;
  const double d = steady_difference(c, 40);
  std::printf("SIMPLEC with BiCGStab momentum, 40 iterations: CPU and GPU differ by %.2e\n", d);
  EXPECT_LT(d, 1e-7);
}

FlowCase periodic_taylor_green(int n) {
  FlowCase c;
  c.name = "taylor-green";
  c.cells = {n, n, 1};
  c.hi = {6.283185307179586, 6.283185307179586, 1};
  for (int s = 0; s < 4; ++s) c.sides[std::size_t(s)].type = SideType::periodic;
  c.nu = 0.01;
  c.has_initial = true;
  c.initial_velocity[0] = Expression::parse("sin(x) * cos(y)");
  c.initial_velocity[1] = Expression::parse("-cos(x) * sin(y)");
  c.coupling = Coupling::piso;
  c.pressure_tolerance = 1e-11;
  c.t_end = 3;
  c.cfl = 0.5;
  return c;
}

TEST(FlowGpu, PeriodicTaylorGreenMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const FlowCase c = periodic_taylor_green(48);
  FlowSolver<double> cpu(c, Device::cpu), gpu(c, Device::cuda);
  for (FlowSolver<double>* s : {&cpu, &gpu}) {
    s->set_velocity(0, c.initial_velocity[0]);
    s->set_velocity(1, c.initial_velocity[1]);
  }
  for (int k = 0; k < 30; ++k) {
    cpu.piso_step(0.05, false);
    gpu.piso_step(0.05, false);
  }
  const double d = field_difference(cpu, gpu);
  std::printf("PISO Taylor-Green, periodic 48^2, 30 steps: CPU and GPU differ by %.2e\n", d);
  EXPECT_LT(d, 1e-8);
  EXPECT_LT(gpu.max_divergence(), 1e-6);
}

// The case stepped by the projection scheme, its pressure by `pressure_solver`.
FlowCase by_projection(FlowCase c, const std::string& pressure_solver) {
  c.coupling = Coupling::projection;
  c.time_scheme = TimeScheme::rk3;
  c.pressure_solver = pressure_solver;
  c.validate();
  return c;
}

TEST(FlowGpu, ProjectionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // The periodic vortex (pressure by cuFFT against FFTW), the cavity and the cylinder
  // (multigrid on both), 20 steps each.
  FlowCase tg = periodic_taylor_green(48), cyl = dfg_case("dfg-2d-2", 8);
  tg.convection = Convection::central;
  for (const FlowCase& c : {by_projection(tg, "fft"), by_projection(cavity_case(400, 40), "mg"),
                            by_projection(cyl, "mg")}) {
    FlowSolver<double> cpu(c, Device::cpu), gpu(c, Device::cuda);
    if (c.has_initial)
      for (FlowSolver<double>* s : {&cpu, &gpu}) {
        s->set_velocity(0, c.initial_velocity[0]);
        s->set_velocity(1, c.initial_velocity[1]);
      }
    const double dt = std::min(cpu.cfl_time_step(0.5), 2e-3);
    for (int k = 0; k < 20; ++k) {
      cpu.runge_kutta_step(dt, false);
      gpu.runge_kutta_step(dt, k == 19);
    }
    const double d = field_difference(cpu, gpu);
    std::printf(
        "projection, %s (%s pressure), 20 steps: CPU and GPU differ by %.2e, GPU max div "
        "%.1e\n",
        c.name.c_str(), c.pressure_solver.c_str(), d, gpu.max_divergence());
    EXPECT_LT(d, 1e-8) << c.name;
    EXPECT_LT(gpu.max_divergence(), c.pressure_solver == "fft" ? 1e-11 : 1e-4) << c.name;
  }
}

TEST(FlowGpu, TunedCentralRowsEqualTheLeanRows) {
  SKIP_WITHOUT_GPU();
  // The shared-memory kernel against the generic lean rows on the same GPU: the periodic
  // vortex (ragged tiles: 50 is no multiple of the tile) and the walled cavity.
  FlowCase tg = periodic_taylor_green(50), cav = cavity_case(400, 41);
  for (FlowCase c : {tg, cav}) {
    c.convection = Convection::central;
    c = by_projection(c, c.obstacles.empty() && c.periodic(0) ? "fft" : "mg");
    std::vector<double> u[2];
    for (int tuned = 0; tuned < 2; ++tuned) {
      FlowSolver<double> s(c, Device::cuda);
      s.set_tuned_rows(tuned == 1);
      if (c.has_initial) {
        s.set_velocity(0, c.initial_velocity[0]);
        s.set_velocity(1, c.initial_velocity[1]);
      }
      for (int k = 0; k < 10; ++k) s.runge_kutta_step(0.01, false);
      const std::vector<double> a = s.velocity(0).to_vector(), b = s.velocity(1).to_vector();
      u[tuned] = a;
      u[tuned].insert(u[tuned].end(), b.begin(), b.end());
    }
    double diff = 0, peak = 0;
    for (std::size_t i = 0; i < u[0].size(); ++i) {
      diff = std::max(diff, std::abs(u[0][i] - u[1][i]));
      peak = std::max(peak, std::abs(u[0][i]));
    }
    std::printf("tuned central rows, %s: differ from the lean rows by %.2e (peak %.3f)\n",
                c.name.c_str(), diff, peak);
    EXPECT_GT(peak, 0.1);
    EXPECT_LT(diff, 1e-12 * peak) << c.name;
  }
}

TEST(FlowGpu, RecordedProjectionStepsEqualLaunchedOnes) {
  SKIP_WITHOUT_GPU();
  // The periodic vortex by the projection scheme with the transform pressure: its
  // unmeasured steps replayed from a recording against every step launched, bit for bit,
  // through a measured step (run directly) and a change of step length (recorded again).
  FlowCase c = periodic_taylor_green(50);
  c.convection = Convection::central;
  c = by_projection(c, "fft");
  std::vector<double> u[2];
  long long replayed[2] = {0, 0}, solves[2] = {0, 0};
  for (int recorded = 0; recorded < 2; ++recorded) {
    FlowSolver<double> s(c, Device::cuda);
    s.set_recorded_steps(recorded == 1);
    s.set_velocity(0, c.initial_velocity[0]);
    s.set_velocity(1, c.initial_velocity[1]);
    for (int k = 0; k < 12; ++k) s.runge_kutta_step(k < 6 ? 0.01 : 0.008, k == 4);
    const std::vector<double> a = s.velocity(0).to_vector(), b = s.velocity(1).to_vector();
    u[recorded] = a;
    u[recorded].insert(u[recorded].end(), b.begin(), b.end());
    const std::vector<double> p = s.pressure().to_vector();
    u[recorded].insert(u[recorded].end(), p.begin(), p.end());
    replayed[recorded] = s.replayed_steps();
    solves[recorded] = s.pressure_solves();
  }
  double diff = 0, peak = 0;
  for (std::size_t i = 0; i < u[0].size(); ++i) {
    diff = std::max(diff, std::abs(u[0][i] - u[1][i]));
    peak = std::max(peak, std::abs(u[0][i]));
  }
  std::printf("recorded projection steps: %lld of 12 replayed, fields differ by %.1e (peak %.3f)\n",
              replayed[1], diff, peak);
  // Step 0 runs directly, 1 and 6 record, 4 is measured: the other 8 replay.
  EXPECT_EQ(replayed[0], 0);
  EXPECT_EQ(replayed[1], 8);
  EXPECT_EQ(solves[0], solves[1]);
  EXPECT_GT(peak, 0.1);
  EXPECT_EQ(diff, 0.0);
}

// Every flow path on grids small enough for compute-sanitizer: SIMPLEC with each
// convection scheme and with BiCGStab momentum, PISO around the immersed cylinder (and
// past the staircase one), PISO on a periodic box, the projection scheme on the periodic box
// (cuFFT) and past the cylinder (multigrid); each against the CPU, so that the
// sanitizers see the paths the larger tests compare. `iterations` SIMPLEC iterations and
// PISO steps, pressure solved to `pressure_tolerance`, PISO's divergence after it below
// `divergence_limit`.
void every_path_on_a_tiny_grid(int iterations, double pressure_tolerance,
                               double divergence_limit) {
  std::vector<FlowCase> steady;
  for (const Convection scheme : {Convection::upwind, Convection::hybrid, Convection::tvd,
                                  Convection::quick, Convection::central}) {
    FlowCase c = cavity_case(400, 12);
    c.convection = scheme;
    steady.push_back(c);
  }
  FlowCase krylov = cavity_case(400, 12);
  krylov.momentum_solver = "bicgstab";
  steady.push_back(krylov);
  for (FlowCase& c : steady) {
    c.pressure_tolerance = pressure_tolerance;
    EXPECT_LT(steady_difference(c, iterations, true), 1e-8)
        << to_string(c.convection) << " " << c.momentum_solver;
  }
  FlowCase staircase = dfg_case("dfg-2d-2", 4);
  staircase.obstacle_treatment = ObstacleTreatment::staircase;
  for (FlowCase c : {dfg_case("dfg-2d-2", 4), staircase, periodic_taylor_green(12),
                     by_projection(periodic_taylor_green(12), "fft"),
                     by_projection(dfg_case("dfg-2d-2", 4), "mg")}) {
    c.pressure_tolerance = pressure_tolerance;
    FlowSolver<double> cpu(c, Device::cpu), gpu(c, Device::cuda);
    if (c.has_initial)
      for (FlowSolver<double>* s : {&cpu, &gpu}) {
        s->set_velocity(0, c.initial_velocity[0]);
        s->set_velocity(1, c.initial_velocity[1]);
      }
    for (int k = 0; k < iterations; ++k) {
      cpu.time_step(2e-3, false);
      gpu.time_step(2e-3, k == iterations - 1);
    }
    EXPECT_LT(field_difference(cpu, gpu), 1e-8) << c.name;
    EXPECT_LT(gpu.max_divergence(), divergence_limit) << c.name;
  }
}

TEST(FlowGpuSmall, EveryPathOnATinyGrid) {
  SKIP_WITHOUT_GPU();
  every_path_on_a_tiny_grid(4, 1e-11, 1e-6);
}

// The same paths once each, with a looser pressure tolerance: about 3000 kernel launches
// instead of 40000, so that racecheck (which costs ~10 ms a launch) finishes over all of
// them.
TEST(FlowGpuSmall, EveryPathOnceForRacecheck) {
  SKIP_WITHOUT_GPU();
  every_path_on_a_tiny_grid(1, 1e-7, 1e-3);
}

// On the device too, a run stopped and restarted equals the uninterrupted one bit for bit.
TEST(FlowGpu, RestartIsBitForBitOnTheDevice) {
  SKIP_WITHOUT_GPU();
  for (const FlowCase& c : {dfg_case("dfg-2d-2", 8), periodic_taylor_green(32)}) {
    FlowCase k = c;
    k.t_end = c.obstacles.empty() ? 3.0 : 0.3;  // about 30 and 110 steps
    const auto base = std::filesystem::temp_directory_path() / "gridsolve_flow_gpu_restart";
    std::filesystem::remove_all(base);
    FlowRunOptions o;
    o.plots = false;
    o.frames = 0;
    o.out = (base / "whole").string();
    o.checkpoint_every = 1000000;
    const FlowResult a = run_flow(k, Device::cuda, o);
    o.out = (base / "split").string();
    o.stop_after = a.iterations / 2;
    run_flow(k, Device::cuda, o);
    o.stop_after = 0;
    o.restart = (base / "split" / "checkpoint.gsflow").string();
    const FlowResult b = run_flow(k, Device::cuda, o);
    ASSERT_EQ(a.iterations, b.iterations) << c.name;
    ASSERT_EQ(a.forces.size(), b.forces.size());
    for (std::size_t i = 0; i < a.forces.size(); ++i) EXPECT_EQ(a.forces[i].c_d, b.forces[i].c_d);
    const Checkpoint x = read_checkpoint((base / "whole" / "checkpoint.gsflow").string());
    const Checkpoint y = read_checkpoint(o.restart);
    for (const char* name : {"u0", "u1", "p", "u0_nm1", "history"})
      EXPECT_TRUE(x.bytes(name) == y.bytes(name)) << c.name << ": " << name << " differs";
    std::printf("%s on the device: %lld steps, stopped at %lld and restarted: identical\n",
                c.name.c_str(), a.iterations, a.iterations / 2);
  }
}

TEST(FlowGpu, CavityRe100At128AgainstGhia) {
  SKIP_WITHOUT_GPU();
  FlowCase c = cavity_case(100, 128);
  FlowSolver<double> s(c, Device::cuda);
  int its = 0;
  for (its = 1; its <= 20000; ++its) {
    const bool m = its % 50 == 0;
    const StepReport r = s.simple_iteration(m);
    if (m && r.change < 1e-7) break;
  }
  const FlowSnapshot snap(s);
  const auto pts = compare_with_ghia(snap, ghia_table_path(), 100);
  std::printf("cavity Re 100 128^2 on the GPU: %d iterations, max deviation from Ghia %.4f\n", its,
              max_deviation(pts));
  EXPECT_LT(its, 20000);
  EXPECT_LT(max_deviation(pts), 0.01);
}

}  // namespace
}  // namespace gridsolve::flow
