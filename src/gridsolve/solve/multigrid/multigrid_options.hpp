// MultigridOptions: cycle shape, smoothing and coarsest level of a multigrid solve.
#pragma once
#include <string>

namespace gridsolve {

struct MultigridOptions {
  std::string cycle = "V";  // V | W | F
  int pre_smooth = 2;
  int post_smooth = 2;
  std::string smoother = "rb-gs";  // rb-gs | jacobi (weighted, 0.8)
  int coarsest_nodes = 5;          // stop coarsening an axis at this many nodes
  int coarse_sweeps = 40;          // sweeps on a coarsest level too large to invert
  bool full_multigrid = false;     // start from a full-multigrid initial guess

  void validate() const;
  static MultigridOptions parse(const std::string& cycle, int pre, int post,
                                const std::string& smoother);
};

}  // namespace gridsolve
