// PoissonSolver: one operator on a box (every side of one kind with zero data, k constant or
// given per node), its solver set up once and solved for many sources, each source's
// right-hand side written in one pass (SourceMap) without assembling again; new
// coefficients of the same structure refresh the setup in place (a multigrid hierarchy is
// updated, not rebuilt). The Python module's Solver.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridsolve/exec/device.hpp"
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

  // Solves for the sources f and writes the solution u: both dense arrays of `count` node
  // values (x fastest) in the solver's precision, each in host memory or the current GPU's
  // (`f_at`, `u_at`). Where an array lies on the solver's device it is read or written in
  // place; otherwise it goes through one copy. Work queued on the GPU by the arrays' own
  // library is waited for first. Returns the report as summary.json's JSON.
  template <class T>
  std::string solve(const T* f, Device f_at, T* u, Device u_at, std::size_t count);
  // New per-node coefficients (one per node): the solver refreshed for them.
  void update(const double* k, std::size_t count);
  // Called during long solves (after `after` seconds, then once a second), as the command's
  // progress lines are: a hook that throws ends the solve with its exception.
  void on_progress(std::function<void(const ProgressInfo&)> hook, double after);

  int dims() const { return dims_; }
  Device device() const;
  bool single_precision() const;
  const std::array<int, 3>& nodes() const { return nodes_; }
  double setup_seconds() const;

  struct Typed;  // the operator and solver in the chosen precision

 private:
  int dims_ = 2;
  std::array<int, 3> nodes_{1, 1, 1};
  std::unique_ptr<Typed> typed_;
};

}  // namespace gridsolve
