#include "gridsolve/apps/magnet/magnet_solve.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

#include "gridsolve/apps/magnet/magnet_problem.hpp"
#include "gridsolve/core/error.hpp"
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

template <class T>
MagnetField solve_typed(const MagnetDesign& d, const MagnetSolveSettings& s) {
  const auto t0 = std::chrono::steady_clock::now();
  const ProblemSpec spec = make_magnet_problem(d);
  // The axisymmetric operator has its 5 coefficients per node.
  require_solve_memory(spec.grid, sizeof(T), s.device, 5);
  Discretization<T> disc = assemble_axisymmetric<T>(spec, s.device, magnet_cut_flux(d));
  disc.op.jacobi_radius = source_jacobi_radius(spec.grid);
  MagnetField out;
  out.assembly_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  out.report = run_solve<T>(r, disc.op, disc.u);

  const std::vector<T> u = disc.u.to_vector();
  const int nr = spec.grid.n[0], i0 = d.corner_i(), j0 = d.corner_j();
  out.phi.resize(u.size());
  for (std::size_t n = 0; n < u.size(); ++n) {
    const int i = int(n % std::size_t(nr)), j = int(n / std::size_t(nr));
    const bool inside_magnet = i < i0 && j < j0;
    out.phi[n] = inside_magnet ? inner_potential(d, spec.grid.coord(1, j)) : double(u[n]);
  }
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
