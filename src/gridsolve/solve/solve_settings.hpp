// SolveSettings: what a user asks of a solve (solver name, device, precision, stop rule,
// solver options), resolved once against the solver registry and run by one path that
// the command line and every application share.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

struct SolveSettings {
  std::string solver = "sor";  // a registry name or alias
  std::string device = "auto";
  Precision precision = Precision::fp64;
  // options.tolerance is ignored: `tolerance` when given, else default_tolerance.
  SolveOptions options;
  std::optional<double> tolerance;
  MultigridOptions multigrid;
  // An application's default stopping point; unset: the registry's per precision.
  std::function<double(Precision, const SolverInfo&)> default_tolerance;
};

// Settings checked and completed: the solver's row, the device, the tolerance.
struct ResolvedSolve {
  const SolverInfo* solver = nullptr;
  Device device = Device::cpu;
  Precision precision = Precision::fp64;
  SolveOptions options;
  MultigridOptions multigrid;
};

// Checks every setting before any work (exit 2 material): a known solver that runs on
// the device, a valid tolerance and counts, and no option the solver would ignore.
ResolvedSolve resolve(const SolveSettings& s);

// The solve itself: builds the solver from its row, solves, and withdraws "converged"
// when the result is not finite.
template <class T>
SolveReport run_solve(const ResolvedSolve& r, const StencilOperator<T>& op, Field<T>& u);

// Calls f.template operator()<T>() with T = double or float as `p` says.
template <class F>
decltype(auto) with_precision(Precision p, F&& f) {
  if (p == Precision::fp64) return f.template operator()<double>();
  return f.template operator()<float>();
}

}  // namespace gridsolve
