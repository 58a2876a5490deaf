// Grid transfer for multigrid: coarse operators, restriction and interpolation.
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/stencil_operator.hpp"

namespace gridsolve::multigrid {

// How one level maps onto the next coarser one. Per axis, coarse node I sits on fine
// node min(2 I, n - 1), so any node count coarsens (an even count leaves one short
// interval at the high end, and interpolation weights follow node positions);
// axes with few nodes stop coarsening. A periodic axis (period n - 1, the last node the
// first one's image) stays periodic on every level; coarse node I is fine node 2 I all the
// way round, and an odd period leaves the interval across the side one fine interval long.
struct Coarsening {
  std::array<int, 3> fine{1, 1, 1};
  std::array<int, 3> coarse{1, 1, 1};
  std::array<bool, 3> coarsened{false, false, false};
  std::array<bool, 3> wraps{false, false, false};
  // Fine node positions per axis (device memory of the level), so that interpolation
  // stays linear where earlier levels left an interval short.
  std::array<const double*, 3> fine_x{nullptr, nullptr, nullptr};
  // The same positions as linear-interpolation weights: at each fine node between two
  // coarse ones, the weight of the lower one (a table, so loops need no division).
  std::array<const double*, 3> fine_lower_weight{nullptr, nullptr, nullptr};

  // The next level, or coarsened all false when no axis has more than `min_nodes`.
  // `periodic`: bit a set when axis a is periodic.
  static Coarsening plan(const std::array<int, 3>& fine_nodes, int dims, int min_nodes,
                         std::uint8_t periodic);
  bool any() const { return coarsened[0] || coarsened[1] || coarsened[2]; }
};

// Interpolation weights of one level: at every fine node lying between two coarse nodes
// on an axis, the weight of the lower one. They follow the fine node's own couplings
// along the axis (the flux-continuous, operator-dependent choice), so a coefficient
// jump or a short interval is interpolated as the operator sees it. Empty where the
// fine operator is uniform: node positions give the weights there.
template <class T>
struct InterpolationWeights {
  std::array<Field<T>, 3> lower;
  // The fields are one rank's parts of a level split over ranks: their ghosts hold the
  // neighbours' weights (and across a periodic side, the images'), so they are read where
  // they lie; a whole level's fields are read at the node a periodic index images.
  bool on_parts = false;
};

// Where a level's fields live: whole on every rank (parts null), or as rank `rank`'s part of
// `parts`. A level made on parts reads the finer level's part two nodes beyond its own box
// (a coarse edge spans two fine intervals, a transverse line one more): that part's
// coefficients and mask must hold two ghost layers, filled.
struct LevelPlace {
  std::shared_ptr<const Decomposition> parts;
  int rank = 0;
};

// On parts (`fine_place`) the weights of the part's own nodes, their ghosts then filled
// from the neighbours and across periodic sides (on_parts set).
template <class T>
InterpolationWeights<T> interpolation_weights(const StencilView<T>& fine, const Coarsening& c,
                                              const Grid& fine_grid, Device d,
                                              const LevelPlace& fine_place = {});
// The same into `w`, reusing its fields where they are already allocated (an update of the
// coefficients on an unchanged hierarchy).
template <class T>
void interpolation_weights_into(const StencilView<T>& fine, const Coarsening& c,
                                const Grid& fine_grid, Device d, InterpolationWeights<T>& w,
                                const LevelPlace& fine_place = {});

// The coarse operator, kept five / seven point, symmetric and an M-matrix: coupling
// between coarse neighbours is the fine couplings along the coarse edge taken in series
// (the energy of the operator-dependent interpolation along that line) and summed in
// parallel across it (weighted like the interpolation); what fine rows lose to fixed
// neighbours and Robin sides is lumped onto the coarse diagonal through the
// interpolation weights. Coefficient jumps and cut-outs carry over physically, as
// conductances do. Fixed and outside nodes stay fixed and outside.
// On parts (`place`: the coarse level's decomposition, Decomposition::coarsened) the
// rank's part of the coarse operator, the same values as the cut of the whole one, its
// ghosts filled; the unknown count and the test for alike rows are summed over the ranks.
template <class T>
StencilOperator<T> coarsen_operator(const StencilView<T>& fine, const Coarsening& c,
                                    const InterpolationWeights<T>& weights, const Grid& fine_grid,
                                    Device d, const LevelPlace& place = {});
// The same into `op`, reusing its fields where they are already allocated (an update of
// the coefficients on an unchanged hierarchy). With `unknowns` (memory of device d, one
// rank only) the count of unknowns is left there without waiting, for the caller to read
// back with its other results and set op.unknowns; without, it is counted at once.
template <class T>
void coarsen_operator_into(const StencilView<T>& fine, const Coarsening& c,
                           const InterpolationWeights<T>& weights, const Grid& fine_grid, Device d,
                           StencilOperator<T>& op, const LevelPlace& place = {},
                           std::int64_t* unknowns = nullptr);

// coarse_rhs = P^T r (free coarse nodes; zero elsewhere). The operators are in
// integrated (finite-volume) form, so restriction is the plain transpose.
template <class T>
void restrict_residual(const Field<T>& r, const InterpolationWeights<T>& weights,
                       const StencilView<T>& coarse, Field<T>& coarse_rhs, const Coarsening& c,
                       Device d);

// The same from the fine level's residual b - A u (its operator `fine`, its unknowns u),
// formed where the restriction reads it instead of written to a field and read back:
// the same coarse right-hand side to the bit. u's ghosts must hold what the residual
// reads (no periodic images or rank boundaries are refreshed here).
template <class T>
void restrict_residual_of(const StencilView<T>& fine, const Field<T>& u,
                          const InterpolationWeights<T>& weights, const StencilView<T>& coarse,
                          Field<T>& coarse_rhs, const Coarsening& c, Device d);

// u += P e at the free fine nodes.
template <class T>
void interpolate_add(const Field<T>& e, const InterpolationWeights<T>& weights,
                     const StencilView<T>& fine, Field<T>& u, const Coarsening& c, Device d);

}  // namespace gridsolve::multigrid
