// Multigrid settings: names of cycles and smoothers, and the checks on the counts.
#include "gridsolve/solve/multigrid/multigrid_options.hpp"

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

Cycle parse_cycle(std::string_view name) {
  if (name == "V" || name == "v") return Cycle::V;
  if (name == "W" || name == "w") return Cycle::W;
  if (name == "F" || name == "f") return Cycle::F;
  throw Error(fmt::format("cycle must be V, W or F, got '{}'", name));
}

Smoother parse_smoother(std::string_view name) {
  if (name == "rb-gs") return Smoother::rb_gs;
  if (name == "jacobi") return Smoother::jacobi;
  if (name == "line") return Smoother::line;
  throw Error(fmt::format("smoother must be rb-gs, jacobi or line, got '{}'", name));
}

const char* to_string(Cycle c) {
  return c == Cycle::V ? "V" : c == Cycle::W ? "W" : "F";
}
const char* to_string(Smoother s) {
  return s == Smoother::rb_gs ? "rb-gs" : s == Smoother::jacobi ? "jacobi" : "line";
}

void MultigridOptions::validate() const {
  require(pre_smooth >= 0 && post_smooth >= 0 && pre_smooth + post_smooth >= 1,
          fmt::format("smoothing counts must be >= 0 and not both 0, got ({}, {})", pre_smooth,
                      post_smooth));
  require(
      pre_smooth <= 100 && post_smooth <= 100,
      fmt::format("smoothing counts must be at most 100, got ({}, {})", pre_smooth, post_smooth));
  require(coarsest_nodes >= 3,
          fmt::format("coarsest level needs >= 3 nodes per axis, got {}", coarsest_nodes));
  require(split_nodes >= 0, fmt::format("split_nodes must be >= 0, got {}", split_nodes));
  require(block_nodes >= -1,
          fmt::format("block_nodes must be >= 0 (or -1: the default), got {}", block_nodes));
  require(line_nodes >= -1,
          fmt::format("line_nodes must be >= 0 (or -1: the default), got {}", line_nodes));
  require(coarse_sweeps >= 1, fmt::format("coarse sweeps must be >= 1, got {}", coarse_sweeps));
}

MultigridOptions MultigridOptions::parse(std::string_view cycle, int pre, int post,
                                         std::string_view smoother) {
  MultigridOptions o;
  o.cycle = parse_cycle(cycle);
  o.pre_smooth = pre;
  o.post_smooth = post;
  o.smoother = parse_smoother(smoother);
  o.validate();
  return o;
}

std::int64_t split_level_nodes(const MultigridOptions& o, Device d) {
  if (o.split_nodes > 0) return o.split_nodes;
  return d == Device::cpu ? std::int64_t(1) << 15 : std::int64_t(1) << 20;
}

std::int64_t block_level_nodes(const MultigridOptions& o) {
  // On an H200 a stage of a level in the block costs about what the level's launch does
  // once the level has a few nodes a thread (block_cycle.cpp); below that the block saves
  // the launches' gaps. DFG 2D-2 at 64 cells per diameter ran to t = 0.6 in 3.45-3.58 s
  // with 1024 (its levels of 45 x 17 nodes and below), 3.56-3.80 with 4096 (from 88 x 33),
  // 3.54-3.83 with 256, 3.66-3.72 with none, alternating in one call.
  return o.block_nodes >= 0 ? o.block_nodes : 1024;
}

std::int64_t line_level_nodes(const MultigridOptions& o) {
  // On the GPU a line sweep costs a launch of a block per line, with a barrier at each of
  // its reduction's log2(n) steps: on a small level that is more than the cycles it saves.
  // DFG 2D-2 at 64 cells per diameter (levels of 704 x 262, 352 x 131, 176 x 66, 88 x 33
  // nodes above the block's), V(1,1) cycles on one H200: lines on the first two levels ran
  // the shedding to t = 6.5 from t = 6 in 3.01 s and the first 0.6 s in 3.64 s; on all four
  // 3.02 and 3.83 s, on the first alone 3.40 and 3.46 s (red-black points: 6.17 and 3.34 s).
  // On the CPU a line costs about a point sweep, but the same levels on both devices make
  // the same cycle, so that their answers agree to rounding.
  return o.line_nodes >= 0 ? o.line_nodes : 16384;
}

}  // namespace gridsolve
