// operator_part: one rank's part of an operator assembled whole, for solving on ranks
// before assembly runs on each rank's box; gather_operator, the whole from the parts.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve {

// The operator restricted to rank `rank`'s box of `parts` (a decomposition of the grid's
// nodes): its active box cut to that box, its coefficient, source and mask fields cut
// (ghosts included, so masks and coefficients beside other ranks are there to read), and
// everything that describes the whole problem (unknowns, sides, periodic axes, the whole
// active box) kept. Its solvers exchange ghosts and all-reduce through `parts`. The part
// is on whole's device (cut on the host).
template <class T>
StencilOperator<T> operator_part(const StencilOperator<T>& whole,
                                 std::shared_ptr<const Decomposition> parts, int rank);

// A part with `layers` ghost layers (at most 3) on its coefficients and mask, filled from
// the neighbouring parts and across periodic sides (the images' values, as operator_part
// cuts the mask): what a reader reaching further than one node beyond the part needs
// (a multigrid level coarsened on its part reads two). Its right-hand side is left out.
template <class T>
StencilOperator<T> with_ghost_layers(const StencilOperator<T>& part, int layers);

// The reverse, on every rank: the whole operator, its fields gathered from every rank's
// part (what a multigrid hierarchy coarsens before splitting its levels over the ranks
// again), in host memory, or with on = the part's device on that device (the messages by
// the device link). Every rank calls it.
// with_rhs false leaves the right-hand side out (b_const stays): all a coarsening reads.
template <class T>
StencilOperator<T> gather_operator(const StencilOperator<T>& part, bool with_rhs = true,
                                   Device on = Device::cpu);

// The unknowns of a whole operator (on any device) in each plane normal to each axis,
// indexed from the grid's first node: the work Decomposition::balanced shares out, so a
// masked domain's ranks get about equal numbers of unknowns. Empty axes beyond dims.
template <class T>
std::array<std::vector<double>, 3> unknowns_per_plane(const StencilOperator<T>& whole);

// The unknowns of a whole operator inside `box`.
template <class T>
std::int64_t unknowns_in(const StencilOperator<T>& whole, const Box& box);

}  // namespace gridsolve
