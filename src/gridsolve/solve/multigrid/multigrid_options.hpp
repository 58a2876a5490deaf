// MultigridOptions: cycle shape, smoothing and coarsest level of a multigrid solve.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "gridsolve/exec/device.hpp"

namespace gridsolve {

enum class Cycle { V, W, F };
// red-black Gauss-Seidel | weighted (0.8) Jacobi | zebra line Gauss-Seidel along each
// level's strongest axis (line_relaxation.hpp), red-black on the levels that cannot take it
enum class Smoother { rb_gs, jacobi, line };

// "V", "W", "F" (lower case too) and "rb-gs", "jacobi", "line"; anything else throws Error.
Cycle parse_cycle(std::string_view name);
Smoother parse_smoother(std::string_view name);
const char* to_string(Cycle c);
const char* to_string(Smoother s);

struct MultigridOptions {
  Cycle cycle = Cycle::V;
  int pre_smooth = 2;
  int post_smooth = 2;
  Smoother smoother = Smoother::rb_gs;
  int coarsest_nodes = 5;       // stop coarsening an axis at this many nodes
  int coarse_sweeps = 40;       // sweeps on a coarsest level too large to invert
  bool full_multigrid = false;  // start from a full-multigrid initial guess
  // On several ranks a level stays split over them while it has more nodes than this;
  // the coarser levels are whole on every rank (0: the device's default, see
  // split_level_nodes).
  std::int64_t split_nodes = 0;
  // On one GPU the levels of at most this many nodes, down to the coarsest, are cycled
  // inside one block (block_cycle.hpp) instead of by a few launches each; 0: every level
  // by launches; -1: the default (block_level_nodes).
  std::int64_t block_nodes = -1;
  // Smoother::line: the levels of more than this many nodes take line sweeps, the others
  // red-black points (a GPU block cycles only levels without lines); -1: the default
  // (line_level_nodes), 0: every level.
  std::int64_t line_nodes = -1;

  void validate() const;
  // From the command line's spelling; throws Error on a bad name or count.
  static MultigridOptions parse(std::string_view cycle, int pre, int post,
                                std::string_view smoother);
  bool operator==(const MultigridOptions&) const = default;
};

// On several ranks, problems and multigrid levels with at most this many nodes are whole
// on every rank (split_nodes when set). A split level costs about a dozen messages per
// cycle, each bound by the link's latency (tens of microseconds on NCCL); a whole level
// costs every rank the level's sweeps, which on a GPU take less than that up to about a
// million nodes, on a CPU core up to some tens of thousands.
std::int64_t split_level_nodes(const MultigridOptions& o, Device d);

// The levels cycled inside one block on a GPU: those with at most this many nodes
// (block_nodes when set).
std::int64_t block_level_nodes(const MultigridOptions& o);
// The levels that take line sweeps (Smoother::line): those with more nodes than this
// (line_nodes when set).
std::int64_t line_level_nodes(const MultigridOptions& o);

}  // namespace gridsolve
