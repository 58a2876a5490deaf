// Resolving solve settings against the registry, and the one solve path.
#include "gridsolve/solve/solve_settings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

ResolvedSolve resolve(const SolveSettings& s) {
  ResolvedSolve r;
  r.solver = &find_solver(s.solver);
  r.device = select_device(s.device);
  require_device(*r.solver, r.device);
  r.precision = s.precision;
  r.options = s.options;
  r.multigrid = s.multigrid;
  if (s.tolerance) {
    require(std::isfinite(*s.tolerance) && *s.tolerance > 0,
            fmt::format("tolerance must be a positive number, got {}", number_text(*s.tolerance)));
    // A relative residual of 1 is where every solve starts: a tolerance there stops at
    // once and reports the untouched guess as converged.
    require(s.options.rule != StopRule::residual || *s.tolerance < 1,
            fmt::format("tolerance {} is a relative residual ||b - Au|| / ||b||, which starts at "
                        "1: give one below 1",
                        number_text(*s.tolerance)));
    r.options.tolerance = *s.tolerance;
  } else {
    r.options.tolerance = s.default_tolerance ? s.default_tolerance(r.precision, *r.solver)
                                              : r.solver->default_tolerance(r.precision);
  }
  r.options.validate();
  r.multigrid.validate();
  const GivenSolverOptions given{
      .omega = s.options.omega != 0,
      .weight = s.options.weight != 1,
      .multigrid = !(s.multigrid == MultigridOptions{}),
      .update_rule = s.options.rule == StopRule::update,
      .tolerance = s.tolerance.has_value(),
      .iteration_limits =
          s.options.max_iterations != SolveOptions{}.max_iterations || s.options.check_every != 0};
  const std::vector<std::string> ignored = inapplicable_options(*r.solver, given);
  require(ignored.empty(), fmt::format("{}", fmt::join(ignored, "; ")));
  return r;
}

template <class T>
SolveReport run_solve(const ResolvedSolve& r, const StencilOperator<T>& op, Field<T>& u) {
  auto solver = r.solver->make<T>(r.multigrid);
  SolveReport report = solver->solve(op, u, r.options);
  if (report.stop == StopReason::none && report.converged) report.stop = StopReason::direct;
  confirm_finite_result(report);
  return report;
}

template SolveReport run_solve<float>(const ResolvedSolve&, const StencilOperator<float>&,
                                      Field<float>&);
template SolveReport run_solve<double>(const ResolvedSolve&, const StencilOperator<double>&,
                                       Field<double>&);

}  // namespace gridsolve
