// Solving the magnet's potential on a device in a precision, with any solver by name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve::magnet {

struct MagnetSolveSettings {
  std::string solver;  // empty: default_magnet_solver()
  Device device = Device::cpu;
  Precision precision = Precision::fp64;
  SolveOptions options = source_stop_rule();  // the tolerance here is the one used
  // "volume": the residual of the finite-volume rows (each weighted by its cell's r dr dz);
  // "diagonal": of the rows divided by their diagonal, the measure of the source's
  // finite-difference code. Same iterates; only the stopping point moves. "diagonal" is
  // for the stationary solvers (jacobi, gauss-seidel, sor, rb-gs) only.
  std::string residual = "volume";

  // The source's rule: ||b - A u|| / ||b|| < 0.5e-6 from a zero start.
  static SolveOptions source_stop_rule();
};

// "mgcg" when the build has multigrid, else "sor" (red-black SOR, the source's method).
std::string default_magnet_solver();

// The source's SOR estimate of the Jacobi spectral radius, from a rectangle three times
// the box: rho = [cos(pi / 3J) + g cos(pi / 3L)] / (1 + g), g = (dr / dz)^2, J and L the
// nodes along r and z. Its omega_b = 2 / (1 + sqrt(1 - rho^2)) is the source's omega.
double source_jacobi_radius(const Grid& g);

// Phi_out on the reduced grid's nodes (x = r fastest, then z), in double whatever the
// solve's precision; nodes inside the magnet hold Phi_in there, so the array is the
// whole potential.
struct MagnetField {
  Grid grid;
  std::vector<double> phi;
  SolveReport report;
  std::int64_t unknowns = 0;
  double assembly_seconds = 0;
  std::string device, precision;
  std::string residual = "volume";  // the measure the stopping rule watched

  double at(int i, int j) const {
    return phi[std::size_t(i) + std::size_t(grid.n[0]) * std::size_t(j)];
  }
};

// The settings of a resolved solve (resolve() has checked them) with the residual measure.
MagnetSolveSettings magnet_solve_settings(const ResolvedSolve& r, const std::string& residual);

// Throws Error unless `residual` is volume or diagonal, and diagonal comes with a
// stationary solver.
void check_residual_measure(const std::string& residual, const std::string& solver);

MagnetField solve_magnet(const MagnetDesign& d, const MagnetSolveSettings& s);

}  // namespace gridsolve::magnet
