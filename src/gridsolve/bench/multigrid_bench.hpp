// The multigrid benchmark: 2D / 3D Poisson with a random right-hand side to a relative
// residual, our multigrid solvers against the structured-multigrid peer (HYPRE PFMG-PCG).
#pragma once
#include <string>
#include <vector>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

struct MultigridBenchRow {
  std::string solver;  // "mg", "mgcg", or the peer's name
  std::string device;
  std::string precision;
  int dims = 2;
  int unknowns_per_side = 0;
  double seconds = 0;        // setup + one solve
  double setup_seconds = 0;  // hierarchy, coarse operators, workspaces: once per operator
  double solve_seconds = 0;  // one solve of the set-up operator, median of the repeats
  int iterations = 0;
  double relative_residual = 0;
  double convergence_factor = 0;
  double ns_per_unknown = 0;
  std::string note;
};

// Solves -lap u = f, f uniform in [-1, 1), zero Dirichlet sides, on `unknowns` per side
// (nodes = unknowns + 2), to `tolerance`, with mg, mgcg and mgcg-mixed (a float cycle
// inside double CG) on `device`; "float" runs mg and mgcg in single precision to 1e-4.
std::vector<MultigridBenchRow> run_multigrid_bench(Device device, int dims, int unknowns,
                                                   double tolerance, int repeats,
                                                   const std::vector<std::string>& precisions);

// One operator set up once, then `count` solves, each with its own random right-hand side
// (made and copied to the device outside the timed region), with `solver`: the case of a
// time loop solving one pressure operator every step. seconds = setup + all solves.
MultigridBenchRow run_many_rhs_bench(Device device, int dims, int unknowns, double tolerance,
                                     const std::string& solver, int count);

// Runs the HYPRE peer program (built beside gridsolve when libhypre-dev is present) on
// `ranks` MPI ranks; an empty list when it is not available, with the reason in `why`.
std::vector<MultigridBenchRow> run_hypre_peer(const std::string& gridsolve_path, int unknowns,
                                              double tolerance, int ranks, std::string& why);

}  // namespace gridsolve
