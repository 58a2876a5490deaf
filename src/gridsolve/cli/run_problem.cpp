#include "gridsolve/cli/run_problem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gridsolve/cli/commands.hpp"
#include "gridsolve/cli/result_files.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device_link.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/stencil_operator_part.hpp"

namespace gridsolve::cli {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

template <class T>
int run_typed(const ProblemSpec& spec, const RunSettings& settings, ResolvedSolve r) {
  const Device device = r.device;
  RunSettings s = settings;
  s.options = r.options;
  const Communicator& comm = Communicator::world();
  const bool on_ranks = comm.size() > 1;
  // With parallel HDF5 every rank keeps its part of the solution and they write
  // solution.h5 together; otherwise rank 0 gathers it and writes for all. Rank 0 speaks.
  const bool write_parts = on_ranks && parallel_hdf5_available();
  if (!comm.is_root()) {
    s.quiet = true;
    if (!write_parts) s.out.clear();
  }
  s.used.grid = spec.grid.dims == 3 ? "1x1x1" : "1x1";
  if (comm.size() == 1 && !s.ranks_grid.empty())  // checked alone too: 2x1 on one rank is wrong
    (void)parse_ranks_grid(s.ranks_grid, spec.grid.dims, 1);
  // A folder the results cannot go to fails the run before the solve, not after it (on
  // several ranks rank 0's error stops every rank).
  if (!s.out.empty() && comm.is_root()) create_output_directory(s.out);
  // On several ranks each rank assembles its own box on its device where the problem allows
  // it (no periodic side, no cut-out, a solver not on slabs; and output the ranks write
  // together); otherwise the whole problem is assembled in host memory and each rank's
  // part goes to its device. One process assembles where it solves.
  const bool per_rank =
      write_parts && assembles_on_ranks(spec) && !r.solver->slabs;
  RankPart part;
  if (per_rank)
    part = rank_part(spec, s.ranks_grid.empty()
                               ? std::array<int, 3>{0, 0, 0}
                               : parse_ranks_grid(s.ranks_grid, spec.grid.dims, comm.size()));
  const Grid held = held_grid(spec, part);  // the nodes this rank assembles
  const Device assembly_device = on_ranks && !per_rank ? Device::cpu : device;
  require_solve_memory(held, sizeof(T), assembly_device);
  const auto t0 = clock_type::now();
  Discretization<T> d = assemble<T>(spec, assembly_device, part);
  const double assembly_seconds = seconds_since(t0);

  SolveOptions& options = r.options;
  if (!s.quiet && !options.on_progress) {
    const bool residual = options.rule == StopRule::residual;
    options.on_progress = [residual](const ProgressInfo& p) {
      std::fprintf(stderr, "  iteration %8d   %s %.3e   %.1f s\n", p.iteration,
                   residual ? "relative residual" : "max update", p.value, p.seconds);
    };
  }
  // On several ranks each solves its part (assembled there, or shared out of the whole);
  // rank 0 gets the solution back, or each keeps its part for writing.
  SolveReport report;
  Discretization<T> mine;  // this rank's part, when the ranks write their parts
  if (per_rank) {
    Field<T> none;
    report = solve_parts<T>(r, d.op, d.u, none, s.used, SolutionOn::parts);
  } else if (on_ranks) {
    RankShare<T> share = share_for_ranks<T>(r, d.op, d.u, s.ranks_grid);
    report = solve_parts<T>(r, share.op, share.u, d.u, s.used,
                            write_parts ? SolutionOn::parts : SolutionOn::root);
    if (write_parts) mine.op = std::move(share.op), mine.u = std::move(share.u);
  } else {
    report = run_solve<T>(r, d.op, d.u);
  }
  const Discretization<T>& solved = write_parts && !per_rank ? mine : d;
  if (d.op.singular)
    report.notes.push_back(fmt::format(
        "no node is fixed, so the net source ({:.3g} of the total) was removed to make the problem "
        "solvable, and the solution is defined up to a constant (shifted to zero mean)",
        d.op.rhs_mismatch));
  // Rank 0 alone holds the gathered solution (and reports); parts are measured together.
  // The exact solution is sampled once (a formula per node on the host), for the error
  // and for the files.
  const bool measured = spec.exact && (write_parts || comm.is_root());
  const Field<T> exact =
      measured ? sample_exact<T>(spec, Device::cpu,
                                 RankPart{solved.u.shared_decomposition(), solved.u.rank()})
               : Field<T>();
  const double error =
      measured ? max_error(solved, exact) : std::numeric_limits<double>::quiet_NaN();

  const Grid& g = spec.grid;
  if (!s.quiet) {
    fmt::print("gridsolve {}: {}\n", s.command, printable(spec.name));
    fmt::print("  grid        {}\n", g.describe());
    fmt::print("  operator    {}\n", d.op.describe());
    fmt::print("  solver      {} ({} kernel){}\n", report.solver, report.kernel,
               report.omega > 0 ? fmt::format(", omega {:.6f}", report.omega) : "");
    fmt::print("  device      {}, {}\n", to_string(device), to_string(r.precision));
    if (s.used.ranks > 1) {
      fmt::print("  ranks       {}\n", describe(s.used));
      const auto [fewest, most] =
          std::minmax_element(s.used.unknowns_per_rank.begin(), s.used.unknowns_per_rank.end());
      fmt::print("  balance     {} to {} unknowns per rank\n", *fewest, *most);
    }
    fmt::print("  result      {}\n", report.reason);
    fmt::print("  iterations  {}{}\n", report.iterations,
               report.convergence_factor > 0 ? fmt::format(" (residual reduction per cycle {:.3f})",
                                                           report.convergence_factor)
                                             : "");
    fmt::print("  residual    {:.3e} (relative, ||b - Au|| / ||b||)\n", report.relative_residual);
    for (const std::string& note : report.notes) fmt::print("  note        {}\n", note);
    if (spec.exact) fmt::print("  max error   {:.3e} (against the exact solution)\n", error);
    fmt::print("  time        {:.3f} s solve + {:.3f} s solver setup, {:.3f} s assembly\n",
               report.seconds, report.setup_seconds, assembly_seconds);
    if (device_bytes_peak() > 0)
      fmt::print("  GPU memory  {:.2f} GiB at the peak\n",
                 double(device_bytes_peak()) / 1073741824.0);
  }
  if (!s.out.empty()) {
    ResultFiles files{s.out};
    files.write(spec, s, device, report, error, assembly_seconds, solved.u, exact, solved.op.mask);
    if (!s.quiet)
      fmt::print("  results     {}/ (summary.json, history.csv, solution.h5 + .xdmf)\n",
                 printable(s.out));
  }
  return report.converged ? exit_ok : exit_not_converged;
}

}  // namespace

int run_problem(const ProblemSpec& spec, const RunSettings& s) {
  const ResolvedSolve r = resolve(s.solve);
  return with_precision(r.precision, [&]<class T>() { return run_typed<T>(spec, s, r); });
}

}  // namespace gridsolve::cli
