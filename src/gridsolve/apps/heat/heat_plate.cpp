// The heat plate as a ProblemSpec, and its declared parameters.
#include "gridsolve/apps/heat/heat_plate.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

const std::vector<Parameter<HeatPlate>>& heat_parameters() {
  static const std::vector<Parameter<HeatPlate>> params = {
      {"n", "", "nodes per side", &HeatPlate::n},
      {"patch", "", "side of the hot patch, fraction of the plate", &HeatPlate::patch},
      {"hot", "", "patch temperature", &HeatPlate::hot},
      {"cold", "", "edge temperature", &HeatPlate::cold},
  };
  return params;
}

ProblemSpec make_heat_plate(const HeatPlate& p) {
  require_finite(heat_parameters(), p);
  require(p.n >= 3, fmt::format("the plate needs at least 3 nodes per side, got {}", p.n));
  require(p.patch > 0 && p.patch < 1,
          fmt::format("the hot patch must be a fraction of the plate in (0, 1), got {}", p.patch));
  ProblemSpec spec;
  spec.name = "heat plate";
  spec.grid = Grid::unit(2, p.n);
  for (BoundaryCondition& bc : spec.boundaries) {
    bc.kind = BoundaryKind::dirichlet;
    bc.g = Expression::value(p.cold);
  }
  MaskRegion hot;
  hot.kind = NodeKind::fixed;
  hot.lo = {0.5 - p.patch / 2, 0.5 - p.patch / 2, 0};
  hot.hi = {0.5 + p.patch / 2, 0.5 + p.patch / 2, 0};
  hot.value = Expression::value(p.hot);
  hot.name = "the hot patch (--patch)";
  spec.regions.push_back(hot);
  return spec;
}

}  // namespace gridsolve
