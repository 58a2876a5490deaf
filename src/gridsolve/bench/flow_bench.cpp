#include "gridsolve/bench/flow_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <vector>

#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

flow::FlowCase piso_cavity(int n, int dims, int wide) {
  flow::FlowCase c = flow::cavity_case(1000, n);
  c.coupling = flow::Coupling::piso;
  c.pressure_tolerance = 1e-6;
  c.dims = dims;
  c.cells = {n * wide, n, dims == 3 ? n : 1};
  c.hi[0] = wide;
  return c;
}

flow::FlowCase taylor_green_box(int n, int dims, int tall) {
  const double two_pi = 2 * std::numbers::pi;
  flow::FlowCase c;
  c.name = "taylor-green";
  c.dims = dims;
  c.cells = {n, n, dims == 3 ? n : 1};
  c.hi = {two_pi, two_pi, dims == 3 ? two_pi : 1};
  c.cells[std::size_t(dims - 1)] *= tall;
  c.hi[std::size_t(dims - 1)] *= tall;
  for (int s = 0; s < 2 * dims; ++s) c.sides[std::size_t(s)].type = flow::SideType::periodic;
  c.nu = 0.01;
  c.coupling = flow::Coupling::projection;
  c.time_scheme = flow::TimeScheme::rk3;
  c.convection = flow::Convection::central;
  c.pressure_solver = "fft";
  c.pressure_tolerance = 1e-8;
  c.validate();
  return c;
}

FlowStepTiming time_flow_step(Device d, const flow::FlowCase& c, int steps, double copy_bps,
                              bool whole) {
  // Cells per side of one unit cube (the weak meshes put several side by side).
  const int n = *std::min_element(c.cells.begin(), c.cells.begin() + c.dims);
  flow::FlowSolver<double> s(c, d, whole);
  const Communicator& comm = Communicator::world();
  const bool together = !whole && comm.size() > 1;
  const bool projection = c.coupling == flow::Coupling::projection;
  double dt = 0.5 / n;  // the cavity: CFL 0.5 at the lid speed
  if (projection) {
    // The Taylor-Green vortices (times cos z in 3D): speeds up to 1, CFL 0.5 and the
    // explicit diffusion's limit.
    s.set_velocity(
        0, [](double x, double y, double z) { return std::sin(x) * std::cos(y) * std::cos(z); });
    s.set_velocity(
        1, [](double x, double y, double z) { return -std::cos(x) * std::sin(y) * std::cos(z); });
    dt = s.cfl_time_step(0.5);
  }
  for (int k = 0; k < 3; ++k) s.time_step(dt, false);  // warm-up (the cavity leaves rest)
  // The steps timed as a run takes them; then as many again with profiling on, whose waits
  // around every pressure solve and predictor tell their shares apart (and would cost the
  // timed steps a dozen host waits each).
  auto time_steps = [&](std::vector<double>& t) {
    double total = 0;
    for (int k = 0; k < steps; ++k) {
      synchronize(d);
      if (together) comm.barrier();
      const auto t0 = Clock::now();
      s.time_step(dt, false);
      synchronize(d);
      t.push_back(together ? comm.max(since(t0)) : since(t0));
      total += t.back();
    }
    return total;
  };
  const long long i0 = s.pressure_iterations(), ms0 = s.predictor_solves(),
                  sw0 = s.predictor_sweeps();
  std::vector<double> t, profiled;
  time_steps(t);
  const long long i1 = s.pressure_iterations(), ms1 = s.predictor_solves(),
                  sw1 = s.predictor_sweeps();
  s.set_profiling(true);
  const double p0 = s.pressure_seconds(), m0 = s.predictor_seconds();
  const double total = time_steps(profiled);
  std::sort(t.begin(), t.end());
  FlowStepTiming r;
  r.n = n;
  r.cells = double(c.cells[0]) * c.cells[1] * c.cells[2];
  r.ms_per_step = 1e3 * t[t.size() / 2];
  r.ns_per_cell = 1e9 * t[t.size() / 2] / r.cells;
  r.pressure_share = (together ? comm.max(s.pressure_seconds() - p0) : s.pressure_seconds() - p0) /
                     total;
  r.pressure_iterations = double(i1 - i0) / steps;
  r.predictor_share =
      (together ? comm.max(s.predictor_seconds() - m0) : s.predictor_seconds() - m0) / total;
  if (ms1 > ms0) r.sweeps_per_predictor = double(sw1 - sw0) / double(ms1 - ms0);
  // The least a step must move: read the velocity and p of step n, write those of n + 1.
  const int words = 2 * (c.dims + 1);
  const double bytes = words * 8.0 * r.cells / (together ? comm.size() : 1);
  r.bound_ms = 1e3 * bytes / copy_bps;
  r.traffic = fmt::format("{} words/cell (read the velocity and p; write them){}", words,
                          together ? ", one rank's cells" : "");
  return r;
}

SteadyCavityTiming time_steady_cavity(Device d, double re, int n) {
  flow::FlowCase c = flow::cavity_case(re, n);
  flow::FlowSolver<double> s(c, d);
  SteadyCavityTiming r;
  r.n = n;
  r.re = re;
  synchronize(d);
  const auto t0 = Clock::now();
  for (long long it = 1; it <= c.max_iterations; ++it) {
    const bool m = it % c.check_every == 0;
    const flow::StepReport rep = s.simple_iteration(m);
    r.iterations = it;
    if (m && rep.change < c.steady_tolerance) {
      r.converged = true;
      break;
    }
  }
  synchronize(d);
  r.seconds = since(t0);
  const flow::FlowSnapshot snap(s);
  const auto pts = flow::compare_with_ghia(snap, flow::ghia_table_path(), re);
  r.ghia_max = flow::max_deviation(pts);
  r.ghia_mean = flow::mean_deviation(pts);
  return r;
}

TaylorGreenTiming time_taylor_green(Device d, int n, flow::Coupling coupling) {
  const double two_pi = 2 * std::numbers::pi, nu = 0.01, t_end = 2;
  flow::FlowCase c;
  c.name = "taylor-green";
  c.cells = {n, n, 1};
  c.hi = {two_pi, two_pi, 1};
  for (int s = 0; s < 4; ++s) c.sides[std::size_t(s)].type = flow::SideType::periodic;
  c.nu = nu;
  c.coupling = coupling;
  const bool projection = coupling == flow::Coupling::projection;
  c.time_scheme = projection ? flow::TimeScheme::rk3 : flow::TimeScheme::bdf2;
  c.convection = projection ? flow::Convection::central : flow::Convection::tvd;
  c.pressure_solver = projection ? "fft" : "mg";
  c.pressure_tolerance = 1e-8;
  c.t_end = t_end;
  c.validate();
  flow::FlowSolver<double> s(c, d);
  s.set_velocity(0, [](double x, double y, double) { return std::sin(x) * std::cos(y); });
  s.set_velocity(1, [](double x, double y, double) { return -std::cos(x) * std::sin(y); });
  s.set_pressure(
      [](double x, double y, double) { return 0.25 * (std::cos(2 * x) + std::cos(2 * y)); });
  // One fixed step, as the peer takes: CFL 0.5 at the largest speed, within the explicit
  // diffusion's limit, shortened to land on t_end.
  double dt = 0.5 * two_pi / n;
  if (projection) dt = std::min(dt, s.cfl_time_step(0.5));
  const long long steps = (long long)std::ceil(t_end / dt * (1 - 1e-12));
  dt = t_end / double(steps);
  TaylorGreenTiming r;
  r.n = n;
  r.scheme = projection ? "projection + rk3 (fft)" : "piso + bdf2 (mg)";
  r.steps = steps;
  synchronize(d);
  const auto t0 = Clock::now();
  s.time_step(dt, false);
  synchronize(d);
  const auto t1 = Clock::now();
  for (long long k = 1; k < steps; ++k) s.time_step(dt, false);
  synchronize(d);
  r.seconds = since(t0);
  const double rest = since(t1);
  r.ms_per_step = steps > 1 ? 1e3 * rest / double(steps - 1) : 1e3 * r.seconds;
  r.ns_per_cell = 1e6 * r.ms_per_step / (double(n) * n);
  const double F = std::exp(-2 * nu * s.time());
  const MacGrid& g = s.grid();
  double fit = 0, norm = 0;
  for (int comp = 0; comp < 2; ++comp) {
    const Field<double> h = s.velocity(comp).copy_to(Device::cpu);
    const auto v = h.cview();
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double x = comp == 0 ? g.xf(0, i) : g.xc(0, i);
        const double y = comp == 1 ? g.xf(1, j) : g.xc(1, j);
        const double exact = comp == 0 ? std::sin(x) * std::cos(y) : -std::cos(x) * std::sin(y);
        r.error = std::max(r.error, std::abs(v(i, j, 0) - exact * F));
        fit += v(i, j, 0) * exact;
        norm += exact * exact;
      }
  }
  r.amplitude_error = std::abs(fit / norm - F);
  return r;
}

}  // namespace gridsolve
