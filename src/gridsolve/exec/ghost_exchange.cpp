// exchange_ghosts: a loop over each ghost slab on the field's device, and on several ranks
// the messages of the faces between them.
#include "gridsolve/exec/ghost_exchange.hpp"

#include <string>

#include "gridsolve/exec/ghost_messages.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

namespace {

template <class T>
void fill_ghosts(Field<T>& f, const GhostSides& sides, const Field<T>* walls) {
  const int g = f.ghost();
  if (g == 0) return;
  const Box valid = f.interior();
  const FieldView<T> v = f.view();
  const FieldView<const T> wf = walls ? walls->cview() : FieldView<const T>{};
  const int ncomp = f.ncomp();
  Box span = valid;  // grows by the ghost width on each axis done
  for (int a = 0; a < f.dims(); ++a) {
    const int n = valid.extent(a);
    const int period = valid.centring.is_cell(a) ? n : n - 1;
    for (int side = 0; side < 2; ++side) {
      const GhostRule rule = sides.face[2 * a + side];
      if (rule == GhostRule::keep) continue;
      if (ghost_face_has_message(f, sides, 2 * a + side)) continue;  // another rank's values
      const GhostMirror& m = sides.mirror[2 * a + side];
      const bool from_field = rule == GhostRule::mirror && m.from_field;
      require(!from_field || walls,
              "a mirror face reads its wall values from a field, and none was given");
      const T wall = T(m.value), factor = T(m.factor);
      Box slab = span;
      slab.lo[a] = side == 0 ? valid.lo[a] - g : valid.hi[a] + 1;
      slab.hi[a] = side == 0 ? valid.lo[a] - 1 : valid.hi[a] + g;
      // A periodic node-centred axis also rewrites its last node: it is the first
      // node's image, and a solve updates only the first.
      if (side == 1 && rule == GhostRule::periodic && !valid.centring.is_cell(a) &&
          sides.rewrite_images)
        slab.lo[a] = valid.hi[a];
      const int lo = valid.lo[a], hi = valid.hi[a];
      for_each(f.device(), slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
        int src[3] = {i, j, k};
        if (rule == GhostRule::periodic)
          src[a] += src[a] < lo ? period : -period;
        else if (rule == GhostRule::copy_edge || rule == GhostRule::mirror)
          src[a] = src[a] < lo ? lo : hi;
        for (int c = 0; c < ncomp; ++c) {
          if (rule == GhostRule::zero) {
            v(i, j, k, c) = T(0);
          } else if (rule == GhostRule::mirror) {
            const T w = from_field ? wf(i, j, k, c) : wall;
            v(i, j, k, c) = T(T(2) * w * factor - v(src[0], src[1], src[2], c));
          } else {
            v(i, j, k, c) = v(src[0], src[1], src[2], c);
          }
        }
      });
    }
    // The faces toward other ranks, after this axis's physical sides and before the next
    // axis, so the next axis's slabs carry filled edges and corners along.
    if (f.decomposition()) exchange_ghost_messages(f, sides, a, span);
    span.lo[a] -= g;
    span.hi[a] += g;
  }
}

}  // namespace

template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides) {
  fill_ghosts<T>(f, sides, nullptr);
}

template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides, const Field<T>& walls) {
  const Box a = f.interior(), b = walls.interior();
  require(a.lo == b.lo && a.hi == b.hi && walls.ghost() == f.ghost() &&
              walls.ncomp() == f.ncomp() && walls.dims() == f.dims(),
          "the wall values of a mirror face must be a field of the same box, ghost width and "
          "components as the field whose ghosts they fill");
  require(walls.device() == f.device(),
          "the wall values of a mirror face must be on the field's device");
  fill_ghosts<T>(f, sides, &walls);
}

template void exchange_ghosts<float>(Field<float>&, const GhostSides&);
template void exchange_ghosts<double>(Field<double>&, const GhostSides&);
template void exchange_ghosts<std::uint8_t>(Field<std::uint8_t>&, const GhostSides&);
template void exchange_ghosts<float>(Field<float>&, const GhostSides&, const Field<float>&);
template void exchange_ghosts<double>(Field<double>&, const GhostSides&, const Field<double>&);

}  // namespace gridsolve
