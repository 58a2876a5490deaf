// The solver registry: one row per solver (names, devices, requirements, default
// tolerances, the options it reads, its factory). Everything that needs a solver fact
// reads it here; nothing else tests solver names.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridsolve/exec/device.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

template <class T>
class Solver;

// What a solver needs from the problem; checked before assembly where it can be.
struct SolverRequirements {
  bool symmetric = false;              // a symmetric operator (the CG family)
  bool constant_coefficients = false;  // constant k on a full rectangle (direct solvers)
  bool residual_rule_only = false;     // stops on the relative residual, not the max update
};

// Options beside tolerance and iteration cap that only some solvers read.
struct SolverOptionUse {
  bool omega = false;      // SOR relaxation factor
  bool weight = false;     // Jacobi damping
  bool multigrid = false;  // cycle, pre/post smoothing, smoother, full multigrid
  bool iterations = true;  // tolerance, max_iterations, check_every (false: direct)
};

struct SolverInfo {
  std::string_view name;
  std::vector<std::string_view> aliases;
  std::string_view summary;  // one line for help texts
  bool cpu = true, cuda = true;
  // A stationary relaxation (Jacobi, Gauss-Seidel, SOR): its rows may be rescaled, which
  // leaves them unsymmetric.
  bool stationary = false;
  // A red-black relaxation (sor, rb-gs): a caller with its own sweep control (the flow
  // momentum predictor) runs red_black_iteration_generic itself, over-relaxed when the
  // row reads omega.
  bool red_black = false;
  // On several ranks the grid splits along one axis only, into slabs (the transform
  // solver: its transforms run along the other axes; see direct_poisson.hpp's slab_axis).
  bool slabs = false;
  SolverRequirements needs;
  SolverOptionUse reads;
  double tolerance_fp64 = 1e-8;  // default relative residual per precision: above the
  double tolerance_fp32 = 1e-4;  // rounding floor of that precision for this method
  std::unique_ptr<Solver<double>> (*make_double)(const MultigridOptions&) = nullptr;
  std::unique_ptr<Solver<float>> (*make_float)(const MultigridOptions&) = nullptr;

  double default_tolerance(Precision p) const {
    return p == Precision::fp64 ? tolerance_fp64 : tolerance_fp32;
  }
  bool runs_on(Device d) const { return d == Device::cpu ? cpu : cuda; }
  template <class T>
  std::unique_ptr<Solver<T>> make(const MultigridOptions& mg) const;
};

// Every solver, in the order help texts list them.
std::span<const SolverInfo> solver_registry();

// The row for a name or alias. An unknown (or empty) name throws Error listing the
// valid names, with a "did you mean" hint for a near miss.
const SolverInfo& find_solver(std::string_view name);

// Every name and alias the registry accepts.
std::vector<std::string_view> solver_spellings();

// "jacobi | gauss-seidel | sor | ..." for help texts.
std::string solver_choices(std::string_view separator = " | ");

// Which of the given options the solver would ignore, as messages ("--omega applies to
// sor only"); empty when all apply. `given` says which the user set; the option names
// are those of the command line.
struct GivenSolverOptions {
  bool omega = false, weight = false, multigrid = false, update_rule = false;
  bool tolerance = false, iteration_limits = false;  // max_iterations, check_every
};
std::vector<std::string> inapplicable_options(const SolverInfo& info,
                                              const GivenSolverOptions& given);

// Throws Error when the solver cannot run on `device`.
void require_device(const SolverInfo& info, Device device);

}  // namespace gridsolve
