// The heat plate: steady temperature of a square plate with a hot central patch and
// cold edges (2D Laplace, Dirichlet), the classic Jacobi benchmark.
#pragma once
#include <vector>

#include "gridsolve/apps/parameters.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve {

struct HeatPlate {
  int n = 2048;          // nodes per side
  double patch = 0.125;  // side of the hot square patch, as a fraction of the plate
  double hot = 100.0;    // temperature of the patch
  double cold = 0.0;     // temperature of the edges
};

// The plate's parameters, declared once for the command line and summary.json.
const std::vector<Parameter<HeatPlate>>& heat_parameters();

// The article's stopping rule: max |update| < 1e-4, at most 15000 sweeps, Jacobi.
inline constexpr double heat_update_tolerance = 1e-4;
inline constexpr int heat_max_sweeps = 15000;

// Throws Error on a plate that cannot be built (non-finite values, a patch that holds
// no node, fewer than 3 nodes).
ProblemSpec make_heat_plate(const HeatPlate& p);

}  // namespace gridsolve
