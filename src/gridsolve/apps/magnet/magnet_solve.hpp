// Solving the magnet's potential on a device in a precision, with any solver by name.
#pragma once
#include <cstdint>
#include <string>
#include <memory>
#include <utility>
#include <vector>

#include "gridsolve/apps/magnet/magnet_design.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/solve/solve_options.hpp"
#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve::magnet {

// Leaves new elements uninitialized, so that whoever fills a large array first touches
// its pages (in parallel) instead of a single-threaded zero fill.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

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
  std::vector<double, UninitializedAllocator<double>> phi;
  SolveReport report;
  std::int64_t unknowns = 0;
  double assembly_seconds = 0;
  // Starting the GPU (its context, once per process; 0 on the CPU), and copying the
  // potential back to the host after the solve.
  double device_start_seconds = 0;
  double readback_seconds = 0;
  double gather_seconds = 0;  // on several ranks: the parts of the potential onto every rank
  std::string device, precision;
  std::string residual = "volume";  // the measure the stopping rule watched
  // Under mpirun: every rank assembles its box of the problem on its device, solves it
  // with the others, and gets the whole potential back, so the design from it (the same
  // on every rank) needs no further message.
  RanksUsed ranks;

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
