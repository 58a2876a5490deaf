// operator_part: one rank's part of an operator assembled whole, for solving on ranks
// before assembly runs on each rank's box.
#pragma once
#include <memory>

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

}  // namespace gridsolve
