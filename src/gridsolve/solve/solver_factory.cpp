// make_solver: solvers chosen by name at run time.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/conjugate_gradient.hpp"
#include "gridsolve/solve/direct_poisson.hpp"
#include "gridsolve/solve/gauss_seidel.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/red_black_sor.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

std::vector<std::string> solver_names() {
  return {"jacobi",     "gauss-seidel", "sor", "rb-gs",   "mg", "mgcg",
          "mgcg-mixed", "cg",           "pcg", "buneman", "fft"};
}

std::string canonical_solver_name(const std::string& name) {
  if (name == "jacobi") return "jacobi";
  if (name == "gauss-seidel" || name == "gs") return "gauss-seidel";
  if (name == "sor" || name == "rb-sor" || name == "red-black-sor") return "sor";
  if (name == "rb-gs" || name == "red-black-gs") return "rb-gs";
  if (name == "buneman" || name == "bcr") return "buneman";
  if (name == "fft" || name == "transform") return "fft";
  if (name == "mg" || name == "multigrid") return "mg";
  if (name == "mgcg" || name == "mg-pcg" || name == "mgpcg") return "mgcg";
  if (name == "mgcg-mixed") return "mgcg-mixed";
  if (name == "cg") return "cg";
  if (name == "pcg" || name == "jacobi-pcg") return "pcg";
  throw Error(
      fmt::format("unknown solver '{}'; choose one of: {}", name, fmt::join(solver_names(), ", ")));
}

template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name, const MultigridOptions& mg) {
  const std::string n = canonical_solver_name(name);
  if (n == "buneman") return std::make_unique<DirectPoisson<T>>(DirectPoisson<T>::Kind::buneman);
  if (n == "fft") return std::make_unique<DirectPoisson<T>>(DirectPoisson<T>::Kind::fft);
  if (n == "mg") return std::make_unique<MultigridSolver<T>>(mg);
  if (n == "mgcg") return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::multigrid, mg);
  if (n == "mgcg-mixed")
    return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::multigrid_float, mg);
  if (n == "cg") return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::none);
  if (n == "pcg") return std::make_unique<ConjugateGradient<T>>(CgPreconditioner::jacobi);
  if (n == "jacobi") return std::make_unique<Jacobi<T>>();
  if (n == "gauss-seidel") return std::make_unique<GaussSeidel<T>>();
  if (n == "sor") return std::make_unique<RedBlackSor<T>>(false);
  return std::make_unique<RedBlackSor<T>>(true);
}

template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name) {
  return make_solver<T>(name, MultigridOptions{});
}

template std::unique_ptr<Solver<float>> make_solver<float>(const std::string&);
template std::unique_ptr<Solver<double>> make_solver<double>(const std::string&);
template std::unique_ptr<Solver<float>> make_solver<float>(const std::string&,
                                                           const MultigridOptions&);
template std::unique_ptr<Solver<double>> make_solver<double>(const std::string&,
                                                             const MultigridOptions&);

}  // namespace gridsolve
