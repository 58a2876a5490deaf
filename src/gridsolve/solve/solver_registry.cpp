// The solver registry's rows and the checks that read them.
#include "gridsolve/solve/solver_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/solve/bicgstab.hpp"
#include "gridsolve/solve/conjugate_gradient.hpp"
#include "gridsolve/solve/direct_poisson.hpp"
#include "gridsolve/solve/gauss_seidel.hpp"
#include "gridsolve/solve/hypre_pfmg.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/red_black_sor.hpp"

namespace gridsolve {

namespace {

// Factories per precision, so each row names its constructor once.
template <template <class> class Make>
SolverInfo with_factory(SolverInfo row) {
  row.make_double = [](const MultigridOptions& mg) { return Make<double>::make(mg); };
  row.make_float = [](const MultigridOptions& mg) { return Make<float>::make(mg); };
  return row;
}

template <class T>
struct MakeJacobi {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<Jacobi<T>>();
  }
};
template <class T>
struct MakeGaussSeidel {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<GaussSeidel<T>>();
  }
};
template <class T>
struct MakeSor {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<RedBlackSor<T>>(false);
  }
};
template <class T>
struct MakeRbGs {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<RedBlackSor<T>>(true);
  }
};
template <class T>
struct MakeMultigrid {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions& mg) {
    return std::make_unique<MultigridSolver<T>>(mg);
  }
};
template <class T>
struct MakeMgcg {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions& mg) {
    return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::multigrid, mg);
  }
};
template <class T>
struct MakeMgcgMixed {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions& mg) {
    return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::multigrid_float, mg);
  }
};
template <class T>
struct MakeCg {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::none);
  }
};
template <class T>
struct MakePcg {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::jacobi);
  }
};
template <class T>
struct MakeBiCgStab {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<BiCgStab<T>>(true);
  }
};
#if GRIDSOLVE_HAVE_HYPRE
template <class T>
struct MakeHypre {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) { return make_hypre_pfmg<T>(); }
};
#endif
template <class T>
struct MakeBuneman {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<DirectPoisson<T>>(DirectPoisson<T>::Kind::buneman);
  }
};
template <class T>
struct MakeFft {
  static std::unique_ptr<Solver<T>> make(const MultigridOptions&) {
    return std::make_unique<DirectPoisson<T>>(DirectPoisson<T>::Kind::fft);
  }
};

std::vector<SolverInfo> build_rows() {
  const SolverOptionUse plain{};
  const SolverOptionUse direct{.iterations = false};
  const SolverOptionUse multigrid{.multigrid = true};
  const SolverRequirements any{};
  const SolverRequirements cg_family{.symmetric = true, .residual_rule_only = true};
  const SolverRequirements rectangle{.constant_coefficients = true, .residual_rule_only = true};
  // Single precision: the true relative residual of every method stalls between 1e-6 and
  // 1e-5 on fine grids (its rounding floor grows with the condition number), so float
  // solves stop at the rows' default 1e-4.
  std::vector<SolverInfo> rows;
  rows.push_back(with_factory<MakeJacobi>({.name = "jacobi",
                                           .aliases = {},
                                           .summary = "Jacobi, optionally weighted (--weight)",
                                           .stationary = true,
                                           .needs = any,
                                           .reads = {.weight = true}}));
  rows.push_back(with_factory<MakeGaussSeidel>({.name = "gauss-seidel",
                                                .aliases = {"gs"},
                                                .summary = "lexicographic Gauss-Seidel (CPU)",
                                                .cuda = false,
                                                .stationary = true,
                                                .needs = any,
                                                .reads = plain}));
  rows.push_back(with_factory<MakeSor>({.name = "sor",
                                        .aliases = {"rb-sor", "red-black-sor"},
                                        .summary = "red-black SOR, optimal omega unless --omega",
                                        .stationary = true,
                                        .red_black = true,
                                        .needs = any,
                                        .reads = {.omega = true}}));
  rows.push_back(with_factory<MakeRbGs>({.name = "rb-gs",
                                         .aliases = {"red-black-gs"},
                                         .summary = "red-black Gauss-Seidel (SOR at omega 1)",
                                         .stationary = true,
                                         .red_black = true,
                                         .needs = any,
                                         .reads = plain}));
  rows.push_back(with_factory<MakeMultigrid>({.name = "mg",
                                              .aliases = {"multigrid"},
                                              .summary = "geometric multigrid cycles",
                                              .needs = {.residual_rule_only = true},
                                              .reads = multigrid}));
  rows.push_back(with_factory<MakeMgcg>({.name = "mgcg",
                                         .aliases = {"mg-pcg", "mgpcg"},
                                         .summary = "CG preconditioned by one multigrid cycle",
                                         .needs = cg_family,
                                         .reads = multigrid}));
  rows.push_back(with_factory<MakeMgcgMixed>({.name = "mgcg-mixed",
                                              .aliases = {},
                                              .summary = "mgcg with a single-precision cycle",
                                              .needs = cg_family,
                                              .reads = multigrid}));
  rows.push_back(with_factory<MakeCg>({.name = "cg",
                                       .aliases = {},
                                       .summary = "conjugate gradients",
                                       .needs = cg_family,
                                       .reads = plain}));
  rows.push_back(with_factory<MakePcg>({.name = "pcg",
                                        .aliases = {"jacobi-pcg"},
                                        .summary = "Jacobi-preconditioned CG",
                                        .needs = cg_family,
                                        .reads = plain}));
  rows.push_back(with_factory<MakeBiCgStab>(
      {.name = "bicgstab",
       .aliases = {},
       .summary = "Jacobi-preconditioned BiCGStab: nonsymmetric systems, any operator",
       .needs = {.residual_rule_only = true},
       .reads = plain}));
  rows.push_back(
      with_factory<MakeBuneman>({.name = "buneman",
                                 .aliases = {"bcr"},
                                 .summary = "direct: block cyclic reduction, 2D Dirichlet",
                                 .needs = rectangle,
                                 .reads = direct}));
  rows.push_back(with_factory<MakeFft>({.name = "fft",
                                        .aliases = {"transform"},
                                        .summary = "direct: transforms, Dirichlet or Neumann sides",
                                        .slabs = true,
                                        .needs = rectangle,
                                        .reads = direct}));
#if GRIDSOLVE_HAVE_HYPRE
  rows.push_back(with_factory<MakeHypre>(
      {.name = "hypre-pfmg",
       .aliases = {},
       .summary = "HYPRE's PFMG-preconditioned CG (CPU, double, under mpirun): a second engine",
       .cuda = false,
       .needs = cg_family,
       .reads = plain}));
#endif
  return rows;
}

}  // namespace

template <>
std::unique_ptr<Solver<double>> SolverInfo::make<double>(const MultigridOptions& mg) const {
  return make_double(mg);
}
template <>
std::unique_ptr<Solver<float>> SolverInfo::make<float>(const MultigridOptions& mg) const {
  return make_float(mg);
}

std::span<const SolverInfo> solver_registry() {
  static const std::vector<SolverInfo> rows = build_rows();
  return rows;
}

const SolverInfo& find_solver(std::string_view name) {
  std::vector<std::string_view> all;
  for (const SolverInfo& row : solver_registry()) {
    if (row.name == name) return row;
    for (std::string_view a : row.aliases)
      if (a == name) return row;
    all.push_back(row.name);
    all.insert(all.end(), row.aliases.begin(), row.aliases.end());
  }
  if (name.empty())
    throw Error(fmt::format("the solver name is empty; choose one of: {}", solver_choices(", ")));
  throw Error(fmt::format("unknown solver '{}'{}; choose one of: {}", printable(name),
                          did_you_mean(name, all), solver_choices(", ")));
}

std::vector<std::string_view> solver_spellings() {
  std::vector<std::string_view> all;
  for (const SolverInfo& row : solver_registry()) {
    all.push_back(row.name);
    all.insert(all.end(), row.aliases.begin(), row.aliases.end());
  }
  return all;
}

std::string solver_choices(std::string_view separator) {
  std::vector<std::string_view> names;
  for (const SolverInfo& row : solver_registry()) names.push_back(row.name);
  return fmt::format("{}", fmt::join(names, separator));
}

std::vector<std::string> inapplicable_options(const SolverInfo& info,
                                              const GivenSolverOptions& given) {
  auto readers = [](bool SolverOptionUse::*field) {
    std::vector<std::string_view> names;
    for (const SolverInfo& row : solver_registry())
      if (row.reads.*field) names.push_back(row.name);
    return fmt::format("{}", fmt::join(names, ", "));
  };
  std::vector<std::string> out;
  if (given.omega && !info.reads.omega)
    out.push_back(fmt::format("omega applies to {} only, not {}", readers(&SolverOptionUse::omega),
                              info.name));
  if (given.weight && !info.reads.weight)
    out.push_back(fmt::format("the Jacobi weight applies to {} only, not {}",
                              readers(&SolverOptionUse::weight), info.name));
  if (given.multigrid && !info.reads.multigrid)
    out.push_back(
        fmt::format("the multigrid settings (cycle, smoothing, smoother, full "
                    "multigrid) apply to {} only, not {}",
                    readers(&SolverOptionUse::multigrid), info.name));
  if ((given.tolerance || given.iteration_limits) && !info.reads.iterations)
    out.push_back(
        fmt::format("{} is a direct solver: a tolerance, an iteration cap and a check "
                    "interval do not apply (its residual is measured and reported)",
                    info.name));
  if (given.update_rule && info.needs.residual_rule_only) {
    std::vector<std::string_view> names;
    for (const SolverInfo& row : solver_registry())
      if (!row.needs.residual_rule_only) names.push_back(row.name);
    out.push_back(
        fmt::format("{} stops on the relative residual only; the max-update rule "
                    "applies to {}; use the residual rule",
                    info.name, fmt::join(names, ", ")));
  }
  return out;
}

void require_device(const SolverInfo& info, Device device) {
  if (info.runs_on(device)) return;
  std::vector<std::string_view> alternatives;
  for (const SolverInfo& row : solver_registry())
    if (row.runs_on(device) && row.stationary) alternatives.push_back(row.name);
  throw Error(fmt::format("{} does not run on {}; solvers that do include {}", info.name,
                          to_string(device), fmt::join(alternatives, ", ")));
}

}  // namespace gridsolve
