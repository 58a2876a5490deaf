// make_solver: solvers chosen by name at run time, through the registry's rows.
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

std::vector<std::string> solver_names() {
  std::vector<std::string> names;
  for (const SolverInfo& row : solver_registry()) names.emplace_back(row.name);
  return names;
}

std::string canonical_solver_name(const std::string& name) {
  return std::string(find_solver(name).name);
}

template <class T>
std::unique_ptr<Solver<T>> make_solver(const std::string& name, const MultigridOptions& mg) {
  return find_solver(name).make<T>(mg);
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
