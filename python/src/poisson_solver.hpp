// PoissonSolver: one operator on a box (every side of one kind with zero data, k constant or
// given per node), its solver set up once and solved for many sources; new coefficients of
// the same structure refresh the setup in place (a multigrid hierarchy is updated, not
// rebuilt). The Python module's Solver.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

class PoissonSolver {
 public:
  // `nodes` per axis (x first), `lengths` of the box (empty: unit sides); `k_nodes` one value
  // per node (x fastest), or empty for the constant `k`.
  PoissonSolver(int dims, std::array<int, 3> nodes, std::vector<double> lengths,
                const std::string& sides, double k, std::vector<double> k_nodes,
                const std::string& solver, const std::string& device,
                const std::string& precision, std::optional<double> tolerance);
  ~PoissonSolver();
  PoissonSolver(const PoissonSolver&) = delete;
  PoissonSolver& operator=(const PoissonSolver&) = delete;

  // u at every node (x fastest) for the sources f (one value per node, x fastest), and the
  // report as summary.json's JSON.
  std::pair<std::vector<double>, std::string> solve(const double* f, std::size_t count);
  // New per-node coefficients (one per node): the solver refreshed for them.
  void update(const double* k, std::size_t count);
  // Called during long solves (after `after` seconds, then once a second), as the command's
  // progress lines are: a hook that throws ends the solve with its exception.
  void on_progress(std::function<void(const ProgressInfo&)> hook, double after);

  int dims() const { return dims_; }
  const std::array<int, 3>& nodes() const { return nodes_; }
  double setup_seconds() const;

  struct Typed;  // the operator and solver in the chosen precision

 private:
  int dims_ = 2;
  std::array<int, 3> nodes_{1, 1, 1};
  std::unique_ptr<Typed> typed_;
};

}  // namespace gridsolve
