// Post-processing of a flow state on the host: sampling, centrelines, stream function,
// vorticity, the primary vortex, pressure probes, and comparison with Ghia's tables.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "gridsolve/apps/flow/flow_solver.hpp"

namespace gridsolve::flow {

// A host copy of the velocity and pressure (ghosts included) with the grid's coordinates;
// on ranks gathered whole onto every rank (every rank makes it together).
class FlowSnapshot {
 public:
  explicit FlowSnapshot(const FlowSolver<double>& s);

  const MacGrid& grid() const { return *grid_; }
  // Velocity component c at (x, y[, z]) by bilinear interpolation between its faces
  // (ghosts carry the wall values, so sampling reaches the walls).
  double velocity(int c, double x, double y, double z = 0) const;
  // Pressure by bilinear interpolation between cell centres; within a cell of an immersed
  // body (or on its surface, as the DFG probes are), by quadratic extrapolation along the
  // surface normal from three such samples 1, 2 and 3 cells out (third-order truncation;
  // the samples' stencils hold no cell whose centre is inside the body).
  double pressure(double x, double y, double z = 0) const;
  // Stream function at the grid's nodes (2D): psi(x, y) = integral of u dy from y = lo,
  // on node (i, j) at index i + (nx + 1) j. Exact for the discrete divergence-free field.
  std::vector<double> stream_function() const;
  // Vorticity dv/dx - du/dy at the nodes (2D), same indexing.
  std::vector<double> vorticity() const;
  // Cell-centred velocity component c (average of its two faces), x fastest.
  std::vector<double> cell_velocity(int c) const;
  std::vector<double> cell_pressure() const;
  bool solid(int i, int j) const;

 private:
  double sample(const Field<double>& f, int c, double x, double y, double z) const;
  const MacGrid* grid_;
  std::array<Field<double>, 3> u_;
  Field<double> p_;
  Field<std::uint8_t> solid_;
  std::vector<Obstacle> obstacles_;  // immersed bodies (empty for the staircase)
};

struct VortexCentre {
  double psi = 0;
  double x = 0, y = 0;
};
// The minimum of the stream function over the nodes, refined by a quadratic fit.
VortexCentre primary_vortex(const FlowSnapshot& s);

// One reference point of a centreline: u(y) on x = 0.5 (kind 'u') or v(x) on y = 0.5.
struct CentrelinePoint {
  char kind = 'u';
  double coord = 0;
  double reference = 0;
  double computed = 0;
};
// Ghia, Ghia & Shin (1982) at re 100 or 1000 (throws for other Reynolds numbers), read
// from the CSV at `path`, each point with the computed value beside it.
std::vector<CentrelinePoint> compare_with_ghia(const FlowSnapshot& s, const std::string& path,
                                               double re);
// Ghia's table path: in $GRIDSOLVE_REFERENCE_DIR when set, else examples/flow/ or
// shared/reference/ found upward from the working directory or from the program's own
// folder; empty when none is found.
std::string ghia_table_path();
double max_deviation(const std::vector<CentrelinePoint>& points);
double mean_deviation(const std::vector<CentrelinePoint>& points);

// Strouhal number f L / U from the lift signal's upward mean crossings in its last half.
double strouhal(const std::vector<double>& t, const std::vector<double>& lift, double length,
                double velocity);

}  // namespace gridsolve::flow
