// make_solver: solvers chosen by name at run time.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/gauss_seidel.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/red_black_sor.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

std::vector<std::string> solver_names() { return {"jacobi", "gauss-seidel", "sor", "rb-gs"}; }

std::string canonical_solver_name(const std::string& name) {
  if (name == "jacobi") return "jacobi";
  if (name == "gauss-seidel" || name == "gs") return "gauss-seidel";
  if (name == "sor" || name == "rb-sor" || name == "red-black-sor") return "sor";
  if (name == "rb-gs" || name == "red-black-gs") return "rb-gs";
  throw Error(fmt::format("unknown solver '{}'; choose one of: {}", name,
                          fmt::join(solver_names(), ", ")));
}

template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name) {
  const std::string n = canonical_solver_name(name);
  if (n == "jacobi") return std::make_unique<Jacobi<T>>();
  if (n == "gauss-seidel") return std::make_unique<GaussSeidel<T>>();
  if (n == "sor") return std::make_unique<RedBlackSor<T>>(false);
  return std::make_unique<RedBlackSor<T>>(true);
}

template std::unique_ptr<Solver<float>> make_solver<float>(const std::string&);
template std::unique_ptr<Solver<double>> make_solver<double>(const std::string&);

}  // namespace gridsolve
