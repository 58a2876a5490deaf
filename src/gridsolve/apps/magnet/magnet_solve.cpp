#include "gridsolve/apps/magnet/magnet_solve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

#include "gridsolve/apps/magnet/magnet_problem.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/row_scaling.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve::magnet {

SolveOptions MagnetSolveSettings::source_stop_rule() {
  SolveOptions o;
  o.rule = StopRule::residual;
  o.tolerance = 0.5e-6;
  return o;
}

std::string default_magnet_solver() {
  const std::vector<std::string> names = solver_names();
  // Multigrid-preconditioned CG: about 10 iterations at any mesh on this L-shaped,
  // mostly-Neumann domain, where plain multigrid cycles converge slower (about 0.6).
  return std::find(names.begin(), names.end(), "mgcg") != names.end() ? "mgcg" : "sor";
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
  out.precision = sizeof(T) == 8 ? "double" : "float";
  out.residual = s.residual;
  const std::string name = s.solver.empty() ? default_magnet_solver() : s.solver;
  if (s.residual == "diagonal") divide_rows_by_diagonal(disc.op);
  auto solver = make_solver<T>(name);
  out.report = solver->solve(disc.op, disc.u, s.options);

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
  const bool stationary =
      solver == "sor" || solver == "rb-gs" || solver == "gauss-seidel" || solver == "jacobi";
  require(residual == "volume" || stationary,
          fmt::format("residual = diagonal divides the rows by their diagonal, which leaves them "
                      "unsymmetric: it is for jacobi, gauss-seidel, sor and rb-gs, not {}",
                      solver));
}

MagnetField solve_magnet(const MagnetDesign& d, const MagnetSolveSettings& s) {
  d.validate();
  check_residual_measure(s.residual, s.solver.empty() ? default_magnet_solver() : s.solver);
  if (s.precision == "double" || s.precision == "fp64") return solve_typed<double>(d, s);
  if (s.precision == "float" || s.precision == "fp32" || s.precision == "single")
    return solve_typed<float>(d, s);
  throw Error(fmt::format("precision must be double or float, got '{}'", s.precision));
}

}  // namespace gridsolve::magnet
