#include "gridsolve/apps/magnet/wire_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "gridsolve/apps/magnet/monotone_interpolation.hpp"
#include "gridsolve/core/error.hpp"

namespace gridsolve::magnet {

std::vector<Wire> place_wires(const MagnetDesign& d, const SurfaceJump& jump, int n) {
  require(n >= 1, fmt::format("the number of wires per half must be at least 1, got {}", n));
  const auto bad =
      std::adjacent_find(jump.path.begin(), jump.path.end(), std::greater_equal<double>());
  if (bad != jump.path.end()) {
    const std::size_t k = std::size_t(bad - jump.path.begin());
    double r = 0, z = 0;
    SurfaceJump::path_point(d, jump.path_s[k], r, z);
    throw Error(
        fmt::format("dPhi does not increase along the magnet's surface near (r, z) = ({:.4g}, "
                    "{:.4g}) m ({:.6g} then {:.6g}); the solve is not converged or the mesh "
                    "is too coarse to place wires",
                    r, z, jump.path[k], jump.path[k + 1]),
        Error::Kind::runtime);
  }
  // s as a function of dPhi: monotone data, so the interpolant is monotone and one-valued.
  const MonotoneCubic s_of_level(jump.path, jump.path_s);
  const double step = jump.total_current / n;
  std::vector<Wire> wires;
  for (int k = 1; k <= n; ++k) {
    Wire w;
    w.index = k;
    w.level = jump.path.front() + (k - 0.5) * step;
    w.current = step;
    const double s = s_of_level(w.level);
    SurfaceJump::path_point(d, s, w.r, w.z);
    w.surface = s <= d.z0 ? "body" : "cap";
    wires.push_back(w);
  }
  return wires;
}

std::vector<CurrentLoop> loops_of(const std::vector<Wire>& wires) {
  std::vector<CurrentLoop> loops;
  for (const Wire& w : wires) {
    loops.push_back({w.r, w.z, w.current});
    loops.push_back({w.r, -w.z, w.current});
  }
  return loops;
}

}  // namespace gridsolve::magnet
