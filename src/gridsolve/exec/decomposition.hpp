// Decomposition: a global box split over ranks by a process grid; each rank's box in
// global indices and its neighbour across each face. Pure arithmetic: no messages.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gridsolve/core/box.hpp"

namespace gridsolve {

// No neighbour across a face: the face is a physical side of the domain.
inline constexpr int no_rank = -1;

class Decomposition {
 public:
  // Splits `global` (of a dims-dimensional grid) over `ranks` ranks. process_grid gives
  // the ranks per axis (their product must be `ranks`; unused axes 1); all zeros chooses
  // it: the factorization whose rank boxes share the fewest values across their faces
  // (the least ghost traffic). Periodic axes make the first and last ranks on that axis
  // neighbours. Every rank's box holds at least `min_extent` values on each split axis
  // (a ghost width plus one lets a periodic node axis send its images); otherwise throws
  // Error naming the sizes.
  Decomposition(const Box& global, int dims, int ranks, std::array<bool, 3> periodic = {},
                std::array<int, 3> process_grid = {0, 0, 0}, int min_extent = 2);

  const Box& global() const { return global_; }
  int dims() const { return dims_; }
  int ranks() const { return ranks_; }
  const std::array<int, 3>& process_grid() const { return grid_; }
  bool periodic(int axis) const { return periodic_[axis]; }
  // Ranks are numbered x fastest: rank = cx + px (cy + py cz).
  std::array<int, 3> coords(int rank) const;
  int rank_at(std::array<int, 3> coords) const;
  // The rank's box in global indices, with the global box's centring. Along each axis
  // the values split as evenly as they go, the first ranks taking one more.
  Box box(int rank) const;
  // The rank across face f (0..5: x low, x high, y low, y high, z low, z high), wrapping
  // on periodic axes (possibly the rank itself when its axis has one rank); no_rank on a
  // physical side.
  int neighbour(int rank, int face) const;
  // Whether the rank's box touches the global box's low (side 0) or high (side 1) end.
  bool at_global_side(int rank, int axis, int side) const;
  // "2x3" or "2x2x1".
  std::string describe() const;

  // The same process grid with each axis's cuts placed by work instead of by count:
  // work[a][i] is the work at index global().lo[a] + i (a masked domain's unknowns in that
  // plane; empty: the even split), and the parts along axis a get shares of it as equal as
  // whole planes and min_extent allow. The cuts stay the same across the other axes (every
  // rank of a column spans the same x range), so neighbours still share whole faces.
  Decomposition balanced(const std::array<std::vector<double>, 3>& work, int min_extent = 2) const;

  // The decomposition of the faces normal to `axis` of the cell box this one splits (a MAC
  // grid's velocity component along `axis`): the same process grid and cuts, the global box
  // one face longer along the axis, held by the last part along it, node-centred there. A
  // face on a cut belongs to the part on its high side (it is the low face of that part's
  // first cell), so the faces of a part's cells are its own and, on the high side, its
  // neighbour's first. Along a periodic axis of cells the same makes the cell past the
  // period (the image of the first, which the periodic operators read) the last part's, as
  // the image node of a periodic node axis is.
  Decomposition staggered(int axis) const;

  // The decomposition of the next coarser multigrid level of a node box starting at 0:
  // on each axis in `halved` coarse node I lies on fine node min(2 I, n - 1), and it
  // belongs to the rank whose box holds that fine node, so a coarse box reads its fine
  // nodes within one ghost layer. `coarse_nodes` gives the coarse node count per axis.
  // Empty when some coarse box would hold fewer than min_extent values on a split axis.
  std::optional<Decomposition> coarsened(const std::array<int, 3>& coarse_nodes,
                                         const std::array<bool, 3>& halved,
                                         int min_extent = 2) const;

 private:
  Box global_;
  int dims_ = 2;
  int ranks_ = 1;
  std::array<bool, 3> periodic_{};
  std::array<int, 3> grid_{1, 1, 1};
  // Per axis, where each part starts (offsets from global().lo, grid_[a] + 1 values);
  // empty: the even split.
  std::array<std::vector<int>, 3> starts_;
};

// Parses "PxQ" (2D) or "PxQxR" (3D): the --ranks-grid of the command line. Throws Error
// for other text or a product other than ranks.
std::array<int, 3> parse_ranks_grid(const std::string& text, int dims, int ranks);

}  // namespace gridsolve
