// exchange_ghosts on one patch: a loop over each ghost slab, on the field's device.
#include "gridsolve/exec/ghost_exchange.hpp"

#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides) {
  const int g = f.ghost();
  if (g == 0) return;
  const Box valid = f.interior();
  const FieldView<T> v = f.view();
  const int ncomp = f.ncomp();
  Box span = valid;  // grows by the ghost width on each axis done
  for (int a = 0; a < f.dims(); ++a) {
    const int n = valid.extent(a);
    const int period = valid.centring.is_cell(a) ? n : n - 1;
    for (int side = 0; side < 2; ++side) {
      const GhostRule rule = sides.face[2 * a + side];
      if (rule == GhostRule::keep) continue;
      Box slab = span;
      slab.lo[a] = side == 0 ? valid.lo[a] - g : valid.hi[a] + 1;
      slab.hi[a] = side == 0 ? valid.lo[a] - 1 : valid.hi[a] + g;
      // A periodic node-centred axis also rewrites its last node: it is the first
      // node's image, and a solve updates only the first.
      if (side == 1 && rule == GhostRule::periodic && !valid.centring.is_cell(a))
        slab.lo[a] = valid.hi[a];
      const int lo = valid.lo[a], hi = valid.hi[a];
      for_each(f.device(), slab, [=] GRIDSOLVE_HD(int i, int j, int k) {
        int src[3] = {i, j, k};
        if (rule == GhostRule::periodic)
          src[a] += src[a] < lo ? period : -period;
        else if (rule == GhostRule::copy_edge)
          src[a] = src[a] < lo ? lo : hi;
        for (int c = 0; c < ncomp; ++c)
          v(i, j, k, c) = rule == GhostRule::zero ? T(0) : v(src[0], src[1], src[2], c);
      });
    }
    span.lo[a] -= g;
    span.hi[a] += g;
  }
}

template void exchange_ghosts<float>(Field<float>&, const GhostSides&);
template void exchange_ghosts<double>(Field<double>&, const GhostSides&);
template void exchange_ghosts<std::uint8_t>(Field<std::uint8_t>&, const GhostSides&);

}  // namespace gridsolve
