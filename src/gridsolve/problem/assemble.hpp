// Discretizes a ProblemSpec into a StencilOperator and a starting field.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve {

// One rank's part of a problem: rank `rank`'s box of `parts`, a decomposition of the grid's
// nodes. No decomposition: the whole problem.
struct RankPart {
  std::shared_ptr<const Decomposition> parts;
  int rank = 0;
};

template <class T>
struct Discretization {
  StencilOperator<T> op;
  Field<T> u;  // fixed nodes hold their values, unknowns start at zero
};

// Vertex-centred finite volumes: each node owns the dual cell around it, cut by the
// domain's sides and by cells touching "outside" nodes. The result is symmetric, second
// order at Neumann / Robin sides, and takes the uniform fast path (coefficients held as
// seven numbers) when k is constant, every side is Dirichlet and no node is cut out.
// With a part (several ranks, each calling it), only that rank's box and its ghost rows,
// on its device: the values operator_part would cut from the whole operator, which is never
// held. For problems without periodic sides or cut-outs (assembles_on_ranks): those read
// rows and marks across the whole grid (the far side's faces, the floating-piece check).
template <class T>
Discretization<T> assemble(const ProblemSpec& spec, Device device, const RankPart& part = {});

// The right-hand side assemble gives a cartesian spec whose sources are given per node,
// whole, before a singular operator's net source is removed: b is linear in the sources
// and the boundary data, so two of these give SourceMap its parts.
template <class T>
Field<T> assembled_rhs(const ProblemSpec& spec, Device device);

// A singular operator's right-hand side made solvable: its net source over the free nodes
// removed (when it is within 1% of the total, as discretization error) or refused (more:
// no solution exists). Returns the share removed. assemble does it to its own b.
template <class T>
double remove_net_source(const StencilOperator<T>& op, Field<T>& rhs);

// Whether assemble takes a RankPart for this problem.
bool assembles_on_ranks(const ProblemSpec& spec);

// The free nodes of a problem in each plane normal to each axis (from its node marks alone,
// a byte per node on the host; nodes a cut-out isolates still count): what
// Decomposition::balanced shares out before any rank assembles. Empty axes beyond dims.
std::array<std::vector<double>, 3> unknowns_per_plane(const ProblemSpec& spec);

// This rank's part of a problem assembled on the run's ranks: the process grid `asked`
// ({0, 0, 0} chooses), the cuts of a masked domain placed by its unknowns. Every rank calls
// it alike.
RankPart rank_part(const ProblemSpec& spec, std::array<int, 3> asked = {0, 0, 0});

// The nodes a part holds as a grid of their counts (the whole grid without a part): what
// a memory check before the assembly needs.
Grid held_grid(const ProblemSpec& spec, const RankPart& part);

// The exact solution sampled at the nodes (0 outside), when the spec has one; with a
// part, at that rank's box only (a field of the part).
template <class T>
Field<T> sample_exact(const ProblemSpec& spec, Device device, const RankPart& part = {});

// max |u - exact| over the nodes that belong to the domain (cut-out nodes left out); NaN
// when u holds one. `exact`: sample_exact of the problem on the CPU, shaped as d.u (whole,
// or the same rank's part), so that a caller that also writes it samples it once. When d
// is one rank's part, the largest over every rank, which all of them call it for.
template <class T>
double max_error(const Discretization<T>& d, const Field<T>& exact);

}  // namespace gridsolve
