// MacGrid: a staggered (MAC) Cartesian grid, cells with per-axis (uniform or stretched)
// spacing; pressure at cell centres, velocity component a on the faces normal to axis a.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve {

// How the faces of one axis are spaced: uniform; clustered toward both ends by
// x = L/2 (1 + tanh(beta (2 s - 1)) / tanh(beta)), s = i / n (beta > 0; larger clusters more);
// or a band [band_lo, band_hi] of uniform cells about `band_h` wide (a body's
// neighbourhood), the remaining cells growing geometrically from it toward both ends
// (one common growth factor, so the spacing is smooth and refines consistently).
struct AxisSpacing {
  enum class Kind { uniform, tanh, band };
  Kind kind = Kind::uniform;
  double beta = 0;
  double band_lo = 0, band_hi = 0, band_h = 0;

  // "uniform", "tanh:2.0", "band:LO:HI:H"
  static AxisSpacing parse(const std::string& text);
  std::string describe() const;
};

// By-value view of the grid's coordinates for loop bodies. Arrays carry one ghost entry
// at each end (index -1 and n + 1 for faces, -1 and n for centres): ghost cells mirror
// the boundary cells, so distances to a wall ghost are those of a reflected cell.
struct MacGeometry {
  int dims = 2;
  int n[3] = {1, 1, 1};          // cells per axis
  const double* face[3] = {};    // face coordinate, index i at face[a][i + 1]
  const double* centre[3] = {};  // cell centre coordinate, index i at centre[a][i + 1]

  GRIDSOLVE_HD double xf(int a, int i) const { return face[a][i + 1]; }
  GRIDSOLVE_HD double xc(int a, int i) const { return centre[a][i + 1]; }
  GRIDSOLVE_HD double width(int a, int i) const { return xf(a, i + 1) - xf(a, i); }
  // Distance between the centres of cells i and i + 1 (ghosts included).
  GRIDSOLVE_HD double gap(int a, int i) const { return xc(a, i + 1) - xc(a, i); }
};

class MacGrid {
 public:
  MacGrid() = default;
  // cells per axis (n[2] = 1 in 2D), domain [lo, hi], spacing per axis, device of the
  // coordinate arrays handed to loop bodies.
  MacGrid(int dims, std::array<int, 3> cells, std::array<double, 3> lo, std::array<double, 3> hi,
          std::array<AxisSpacing, 3> spacing, Device device);

  int dims() const { return dims_; }
  const std::array<int, 3>& cells() const { return n_; }
  std::int64_t cell_count() const { return std::int64_t(n_[0]) * n_[1] * n_[2]; }
  double lo(int a) const { return lo_[a]; }
  double hi(int a) const { return hi_[a]; }
  const std::array<AxisSpacing, 3>& spacing() const { return spacing_; }
  Device device() const { return device_; }
  // Host copies of the coordinates (same indexing as MacGeometry).
  double xf(int a, int i) const { return face_[a][std::size_t(i + 1)]; }
  double xc(int a, int i) const { return centre_[a][std::size_t(i + 1)]; }
  double width(int a, int i) const { return xf(a, i + 1) - xf(a, i); }
  double min_width(int a) const;
  // The cell containing coordinate x along axis a (clamped to the grid).
  int cell_of(int a, double x) const;
  MacGeometry geometry() const;
  MacGeometry host_geometry() const;
  std::string describe() const;

 private:
  int dims_ = 2;
  std::array<int, 3> n_{1, 1, 1};
  std::array<double, 3> lo_{0, 0, 0}, hi_{1, 1, 1};
  std::array<AxisSpacing, 3> spacing_{};
  Device device_ = Device::cpu;
  std::array<std::vector<double>, 3> face_, centre_;
  std::array<Buffer<double>, 3> face_dev_, centre_dev_;
};

}  // namespace gridsolve
