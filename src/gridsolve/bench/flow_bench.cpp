#include "gridsolve/bench/flow_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
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

FlowStepTiming time_piso_step(Device d, const flow::FlowCase& c, int steps, double copy_bps,
                              bool whole) {
  const int n = c.cells[1];
  flow::FlowSolver<double> s(c, d, whole);
  const Communicator& comm = Communicator::world();
  const bool together = !whole && comm.size() > 1;
  const double dt = 0.5 / n;                           // CFL 0.5 at the lid speed
  for (int k = 0; k < 3; ++k) s.piso_step(dt, false);  // warm-up: the flow is no longer zero
  s.set_profiling(true);
  const double p0 = s.pressure_seconds();
  const long long i0 = s.pressure_iterations();
  std::vector<double> t;
  double total = 0;
  for (int k = 0; k < steps; ++k) {
    synchronize(d);
    if (together) comm.barrier();
    const auto t0 = Clock::now();
    s.piso_step(dt, false);
    synchronize(d);
    t.push_back(together ? comm.max(since(t0)) : since(t0));
    total += t.back();
  }
  std::sort(t.begin(), t.end());
  FlowStepTiming r;
  r.n = n;
  r.cells = double(c.cells[0]) * c.cells[1] * c.cells[2];
  r.ms_per_step = 1e3 * t[t.size() / 2];
  r.ns_per_cell = 1e9 * t[t.size() / 2] / r.cells;
  r.pressure_share = (together ? comm.max(s.pressure_seconds() - p0) : s.pressure_seconds() - p0) /
                     total;
  r.pressure_iterations = double(s.pressure_iterations() - i0) / steps;
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

}  // namespace gridsolve
