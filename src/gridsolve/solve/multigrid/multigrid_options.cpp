#include "gridsolve/solve/multigrid/multigrid_options.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

void MultigridOptions::validate() const {
  require(cycle == "V" || cycle == "W" || cycle == "F",
          fmt::format("cycle must be V, W or F, got '{}'", cycle));
  require(pre_smooth >= 0 && post_smooth >= 0 && pre_smooth + post_smooth >= 1,
          fmt::format("smoothing counts must be >= 0 and not both 0, got ({}, {})", pre_smooth,
                      post_smooth));
  require(smoother == "rb-gs" || smoother == "jacobi",
          fmt::format("smoother must be rb-gs or jacobi, got '{}'", smoother));
  require(coarsest_nodes >= 3,
          fmt::format("coarsest level needs >= 3 nodes per axis, got {}", coarsest_nodes));
  require(coarse_sweeps >= 1, fmt::format("coarse sweeps must be >= 1, got {}", coarse_sweeps));
}

MultigridOptions MultigridOptions::parse(const std::string& cycle, int pre, int post,
                                         const std::string& smoother) {
  MultigridOptions o;
  o.cycle = cycle == "v" ? "V" : cycle == "w" ? "W" : cycle == "f" ? "F" : cycle;
  o.pre_smooth = pre;
  o.post_smooth = post;
  o.smoother = smoother;
  o.validate();
  return o;
}

}  // namespace gridsolve
