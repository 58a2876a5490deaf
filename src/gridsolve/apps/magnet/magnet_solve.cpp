#include "gridsolve/apps/magnet/magnet_solve.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

#include "gridsolve/apps/magnet/magnet_problem.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/row_scaling.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::magnet {

SolveOptions MagnetSolveSettings::source_stop_rule() {
  SolveOptions o;
  o.rule = StopRule::residual;
  o.tolerance = 0.5e-6;
  return o;
}

std::string default_magnet_solver() {
  // Multigrid-preconditioned CG: about 10 iterations at any mesh on this L-shaped,
  // mostly-Neumann domain, where plain multigrid cycles converge slower (about 0.6).
  return "mgcg";
}

MagnetSolveSettings magnet_solve_settings(const ResolvedSolve& r, const std::string& residual) {
  MagnetSolveSettings s;
  s.solver = std::string(r.solver->name);
  s.device = r.device;
  s.precision = r.precision;
  s.options = r.options;
  s.residual = residual;
  check_residual_measure(s.residual, s.solver);
  return s;
}

double source_jacobi_radius(const Grid& g) {
  const double gamma = std::pow(g.spacing[0] / g.spacing[1], 2);
  const double pi = std::numbers::pi;
  return (std::cos(pi / (3.0 * g.n[0])) + gamma * std::cos(pi / (3.0 * g.n[1]))) / (1 + gamma);
}

namespace {

// The values of u readable on the host: u itself on the CPU; on a GPU, a copy of its
// whole storage into `keep`, whose pages all threads touch first (a first touch by one
// thread, inside the copy, runs at under 1 GB/s), viewed with u's own layout.
template <class T>
FieldView<const T> host_view(const Field<T>& u, Buffer<T>& keep) {
  if (u.device() == Device::cpu) return u.cview();
  const std::int64_t n = u.storage_size();
  keep = Buffer<T>(Device::cpu, std::size_t(n));
  T* h = keep.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < n; ++e) h[e] = T(0);
  copy_bytes(h, Device::cpu, u.storage(), u.device(), std::size_t(n) * sizeof(T));
  FieldView<const T> v = u.cview();
  v.data = h + (v.data - u.storage());
  return v;
}

template <class T>
MagnetField solve_typed(const MagnetDesign& d, const MagnetSolveSettings& s) {
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  MagnetField out;
  const auto t_start = std::chrono::steady_clock::now();
  if (s.device == Device::cuda) {
    synchronize(s.device);  // creates the GPU's context, once per process: timed apart
    out.device_start_seconds = since(t_start);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const ProblemSpec spec = make_magnet_problem(d);
  // On several ranks each assembles its own box on its device.
  const bool on_ranks = Communicator::world().size() > 1;
  const RankPart part = on_ranks ? rank_part(spec) : RankPart{};
  // The axisymmetric operator has its 5 coefficients per node.
  require_solve_memory(held_grid(spec, part), sizeof(T), s.device, 5);
  Discretization<T> disc = assemble_axisymmetric<T>(spec, s.device, magnet_cut_flux(d), part);
  disc.op.jacobi_radius = source_jacobi_radius(spec.grid);
  out.assembly_seconds = since(t0);
  out.grid = spec.grid;
  out.unknowns = disc.op.unknowns;
  out.device = to_string(s.device);
  out.precision = to_string(precision_of<T>());
  out.residual = s.residual;
  if (s.residual == "diagonal") divide_rows_by_diagonal(disc.op);
  // The same solve path as every other command.
  ResolvedSolve r;
  r.solver = &find_solver(s.solver.empty() ? default_magnet_solver() : s.solver);
  require_device(*r.solver, s.device);
  r.device = s.device;
  r.precision = precision_of<T>();
  r.options = s.options;
  Field<T> whole;  // the potential gathered onto every rank
  const auto t_solve = std::chrono::steady_clock::now();
  out.report = on_ranks ? solve_parts<T>(r, disc.op, disc.u, whole, out.ranks,
                                         SolutionOn::every_rank)
                        : run_solve<T>(r, disc.op, disc.u);
  if (on_ranks) {
    disc.u = std::move(whole);
    out.gather_seconds = since(t_solve) - out.report.seconds - out.report.setup_seconds;
  }

  const auto t1 = std::chrono::steady_clock::now();
  // One copy of u to the host, read in place (no packed intermediate), rows in parallel;
  // phi's pages are first touched by that parallel loop, not by a zero fill.
  Buffer<T> host;
  const FieldView<const T> u = host_view(disc.u, host);
  const int nr = spec.grid.n[0], nz = spec.grid.n[1], i0 = d.corner_i(), j0 = d.corner_j();
  out.phi.resize(std::size_t(nr) * std::size_t(nz));
  double* phi = out.phi.data();
#pragma omp parallel for schedule(static) if (std::int64_t(nr) * nz >= 32768)
  for (int j = 0; j < nz; ++j) {
    const double inner = inner_potential(d, spec.grid.coord(1, j));
    double* row = phi + std::size_t(nr) * std::size_t(j);
    for (int i = 0; i < nr; ++i) row[i] = i < i0 && j < j0 ? inner : double(u(i, j, 0));
  }
  out.readback_seconds = since(t1);
  return out;
}

}  // namespace

void check_residual_measure(const std::string& residual, const std::string& solver) {
  require(residual == "volume" || residual == "diagonal",
          fmt::format("residual must be volume or diagonal, got '{}'", residual));
  const SolverInfo& info = find_solver(solver);
  std::vector<std::string_view> stationary;
  for (const SolverInfo& row : solver_registry())
    if (row.stationary) stationary.push_back(row.name);
  require(residual == "volume" || info.stationary,
          fmt::format("residual = diagonal divides the rows by their diagonal, which leaves them "
                      "unsymmetric: it is for {}, not {}",
                      fmt::join(stationary, ", "), info.name));
}

MagnetField solve_magnet(const MagnetDesign& d, const MagnetSolveSettings& s) {
  d.validate();
  check_residual_measure(s.residual, s.solver.empty() ? default_magnet_solver() : s.solver);
  return with_precision(s.precision, [&]<class T>() { return solve_typed<T>(d, s); });
}

}  // namespace gridsolve::magnet
