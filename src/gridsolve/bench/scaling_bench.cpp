// Scaling benchmark: the same solve on the run's ranks and on rank 0 alone, the link
// measured by the link itself.
#include "gridsolve/bench/scaling_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <utility>

#include "gridsolve/bench/copy_bandwidth.hpp"
#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"
#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

namespace {

template <class... A>
double timed_ms(A&&... a) {
  return bench::ranks_median_ms(std::forward<A>(a)...);
}

SolveOptions fixed_iterations(int iterations) {
  SolveOptions o;
  o.tolerance = 1e-300;  // out of reach: every solve runs all its iterations
  o.max_iterations = iterations;
  o.progress_after = 1e300;
  return o;
}

std::string describe_nodes(const Grid& g) {
  return g.dims == 3 ? fmt::format("{}x{}x{}", g.n[0], g.n[1], g.n[2])
                     : fmt::format("{}x{}", g.n[0], g.n[1]);
}

// One row: the problem of n nodes per side split over the run's ranks, and (for the
// baseline) the problem of baseline_n per side on rank 0 alone.
ScalingRow measure(const ScalingBenchSettings& s, const std::string& kind, int n, int baseline_n) {
  const Communicator& comm = Communicator::world();
  ScalingRow row;
  row.kind = kind;
  row.ranks = comm.size();
  ModelProblem m;
  m.dims = s.dims;
  m.rhs = "random";  // never all zeros: a random source, zero sides
  const SolveOptions o = fixed_iterations(s.iterations);

  // The baseline first, rank 0 alone, while the others wait.
  {
    m.n = baseline_n;
    if (comm.is_root()) {
      const Discretization<double> whole = assemble<double>(make_model_problem(m), s.device);
      Field<double> u = whole.u.copy_to(s.device);
      auto solver = make_solver<double>(s.solver);
      solver->setup(whole.op);  // once, as a run does (a multigrid hierarchy is costly)
      double iterations = 0;
      const double ms = timed_ms(
          s.repeats, s.device, false, [&] { iterations = solver->solve(u, o).iterations; },
          [&] { u.set_zero(); });
      row.one_rank_ms_per_iteration = ms / iterations;
    }
    comm.barrier();
    row.one_rank_ms_per_iteration = comm.max(row.one_rank_ms_per_iteration);
  }

  m.n = n;
  const Discretization<double> whole = assemble<double>(make_model_problem(m), Device::cpu);
  const Grid& g = whole.op.grid;
  row.grid = describe_nodes(g);
  row.one_rank_unknowns_ratio = std::pow(double(n - 2) / double(baseline_n - 2), double(s.dims));
  auto parts = std::make_shared<const Decomposition>(
      g.box(Centring::node()), g.dims, comm.size(), std::array<bool, 3>{},
      default_process_grid(find_solver(s.solver), whole.op, comm.size()));
  row.process_grid = parts->describe();
  const StencilOperator<double> op = operator_part(whole.op, parts, comm.rank()).copy_to(s.device);
  Field<double> u = field_part(whole.u, parts, comm.rank()).copy_to(s.device);
  auto solver = make_solver<double>(s.solver);
  solver->setup(op);
  LinkTraffic before = link_traffic();
  double iterations = 0;
  const double ms = timed_ms(
      s.repeats, s.device, true,
      [&] {
        const SolveReport r = solver->solve(u, o);
        iterations = r.iterations;
        row.kernel = r.kernel;
      },
      [&] { u.set_zero(); });
  const LinkTraffic after = link_traffic();
  const double per = 1.0 / (iterations * (s.repeats + 1));  // the warm-up run counted too
  row.ms_per_iteration = ms / iterations;
  row.exchanges_per_iteration = double(after.exchanges - before.exchanges) * per;
  row.all_reduces_per_iteration = double(after.all_reduces - before.all_reduces) * per;
  row.bytes_per_iteration = comm.max(double(after.bytes_sent - before.bytes_sent) * per);

  // The communication alone: as many exchanges of u's ghosts and all-reduces of two
  // numbers as the iterations made, back to back.
  if (comm.size() > 1) {
    const int count = 200;
    const GhostSides sides = op.ghost_sides();
    const double x_ms = timed_ms(s.repeats, s.device, true, [&] {
      for (int c = 0; c < count; ++c) exchange_ghosts(u, sides);
    });
    // Exchanges counted per axis that sent: one exchange_ghosts call may make several.
    before = link_traffic();
    exchange_ghosts(u, sides);
    const double axes = double(link_traffic().exchanges - before.exchanges);
    row.exchange_ms_per_iteration =
        axes > 0 ? x_ms / count / axes * row.exchanges_per_iteration : 0;
    Buffer<double> two(s.device, 2);
    zero_bytes(s.device, two.data(), 2 * sizeof(double));
    const double r_ms = timed_ms(s.repeats, s.device, true, [&] {
      for (int c = 0; c < count; ++c) sum_over_ranks(s.device, std::span<double>(two.data(), 2));
    });
    row.all_reduce_ms_per_iteration = r_ms / count * row.all_reduces_per_iteration;
  }
  // Strong: the same problem (ratio 1); weak: the baseline scaled to this problem's size.
  row.speedup = row.one_rank_ms_per_iteration * row.one_rank_unknowns_ratio / row.ms_per_iteration;
  row.efficiency = row.speedup / comm.size();
  return row;
}

}  // namespace

void ScalingBenchSettings::validate() const {
  require(dims == 2 || dims == 3, fmt::format("--dims must be 2 or 3, got {}", dims));
  require(n >= 9 && n_per_rank >= 9,
          fmt::format("--n and --per-rank must be at least 9 nodes per side, got {} and {}", n,
                      n_per_rank));
  require(iterations >= 1 && repeats >= 1, "--iterations and --repeats must be at least 1");
  require(make_solver<double>(std::string(find_solver(solver).name))->runs_on_ranks(),
          fmt::format("bench scaling needs a solver that runs on several ranks (jacobi, sor, "
                      "rb-gs, mg, mgcg, cg, pcg, bicgstab, fft), got '{}'",
                      solver));
}

ScalingReport run_scaling_bench(const ScalingBenchSettings& s) {
  const Communicator& comm = Communicator::world();
  s.validate();
  ScalingReport report;
  report.ranks = comm.size();
  report.device = to_string(s.device);
  if (s.device == Device::cuda && !cuda_devices().empty())
    report.device = cuda_devices()[std::size_t(std::max(current_gpu(), 0))].name;
  report.link = comm.size() == 1           ? "none (one rank)"
                : s.device == Device::cuda ? DeviceLink::world().describe()
                                           : "MPI";
  report.link_gbs = link_bandwidth(s.device);
  // The flow benchmark's copy measure; the host's copy with less memory.
  const std::size_t copy_bytes = std::size_t(s.device == Device::cpu ? 64 : 1024) << 20;
  report.copy_gbs = comm.max(comm.is_root() ? copy_bandwidth(s.device, copy_bytes) / 1e9 : 0.0);
  report.rows.push_back(measure(s, "strong", s.n, s.n));
  // Weak: the whole grid grows with the ranks, so that each holds about n_per_rank^dims
  // unknowns (the root of the rank count per axis, rounded to whole nodes).
  const double grow = std::pow(double(comm.size()), 1.0 / double(s.dims));
  const int weak_n = int(std::lround(double(s.n_per_rank - 2) * grow)) + 2;
  report.rows.push_back(measure(s, "weak", weak_n, s.n_per_rank));
  return report;
}

}  // namespace gridsolve
