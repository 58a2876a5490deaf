// The heat plate: steady temperature of a square plate with a hot central patch and
// cold edges (2D Laplace, Dirichlet), the classic Jacobi benchmark.
#pragma once
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve {

struct HeatPlate {
  int n = 2048;          // nodes per side
  double patch = 0.125;  // side of the hot square patch, as a fraction of the plate
  double hot = 100.0;    // temperature of the patch
  double cold = 0.0;     // temperature of the edges
};

ProblemSpec make_heat_plate(const HeatPlate& p);

}  // namespace gridsolve
