// exchange_ghosts: one loop over the ghosts (each ghost's value traced back through the
// faces it lies beyond): every axis at once on one patch, axis by axis on several ranks,
// the messages of the faces between ranks landing between the axes.
#include "gridsolve/exec/ghost_exchange.hpp"

#include <string>

#include "gridsolve/exec/ghost_messages.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve {

namespace {

// The rules of one patch as plain data for a loop body.
struct PatchSides {
  GhostRule rule[3][2];
  double wall[3][2], factor[3][2];
  bool from_field[3][2];
  int lo[3], hi[3], period[3];
  bool rewrites[3];  // a periodic node axis whose last node is the first one's image
  int dims;
};

// The ghost slabs of one patch, numbered one after the other.
struct GhostSlabs {
  Box box[6];
  std::int64_t start[7];  // start[s]: the number of slab s's first point; start[count]: all
};

// The ghosts of axes first..last in one launch: a ghost slab per face, numbered one after
// the other (x faces over the valid y and z range, y faces over the x-grown range, z faces
// over both: the slabs an axis-by-axis fill writes). A face that borders another rank
// counts as kept (its values come by message, before the next axis). A ghost's value is traced back
// through the faces it lies beyond, highest axis first, as the axis-by-axis fill composes
// it: a periodic or copied face moves the point inside, a mirror makes it 2 w f minus the
// value traced on, a zero face makes what is traced on zero, a kept face (or the valid box)
// ends at the value that is there. Values are combined innermost first, so they round as
// the axis-by-axis fill's do. No point the loop reads is one it writes, and a point two
// slabs hold (a periodic node axis's rewritten image beside another face) is traced from
// the point alone, so both write the same value: one launch replaces one per face.
template <class T>
void fill_ghost_slabs(Field<T>& f, const GhostSides& sides, const Field<T>* walls, int first,
                      int last) {
  const int g = f.ghost(), dims = f.dims(), ncomp = f.ncomp();
  const Box valid = f.interior();
  PatchSides p{};
  p.dims = dims;
  Box slabs[6];
  std::int64_t start[7] = {0, 0, 0, 0, 0, 0, 0};
  int count = 0;
  Box span = valid;
  for (int a = 0; a < 3; ++a) {
    p.lo[a] = valid.lo[a];
    p.hi[a] = valid.hi[a];
    const bool node = !valid.centring.is_cell(a);
    p.period[a] = node ? valid.extent(a) - 1 : valid.extent(a);
    p.rewrites[a] = false;
    for (int side = 0; side < 2; ++side) {
      const bool message = a < dims && ghost_face_has_message(f, sides, 2 * a + side);
      const GhostRule rule = a < dims && !message ? sides.face[2 * a + side] : GhostRule::keep;
      const GhostMirror& m = sides.mirror[2 * a + side];
      p.rule[a][side] = rule;
      p.wall[a][side] = m.value;
      p.factor[a][side] = m.factor;
      p.from_field[a][side] = rule == GhostRule::mirror && m.from_field;
      require(!p.from_field[a][side] || walls,
              "a mirror face reads its wall values from a field, and none was given");
    }
    if (a >= dims) continue;
    p.rewrites[a] = node && sides.rewrite_images && p.rule[a][1] == GhostRule::periodic;
    for (int side = 0; side < 2 && a >= first && a <= last; ++side) {
      if (p.rule[a][side] == GhostRule::keep) continue;
      Box slab = span;
      slab.lo[a] = side == 0 ? valid.lo[a] - g : valid.hi[a] + 1;
      slab.hi[a] = side == 0 ? valid.lo[a] - 1 : valid.hi[a] + g;
      if (side == 1 && p.rewrites[a]) slab.lo[a] = valid.hi[a];
      slabs[count] = slab;
      start[count + 1] = start[count] + slab.cells();
      ++count;
    }
    span.lo[a] -= g;
    span.hi[a] += g;
  }
  if (count == 0) return;
  const FieldView<T> v = f.view();
  const FieldView<const T> wf = walls ? walls->cview() : FieldView<const T>{};
  GhostSlabs sl{};
  for (int s = 0; s < count; ++s) sl.box[s] = slabs[s], sl.start[s] = start[s];
  sl.start[count] = start[count];
  const Box points{{0, 0, 0}, {int(start[count] - 1), 0, 0}};
  for_each(f.device(), points, [=] GRIDSOLVE_HD(int t, int, int) {
    int s = 0;
    while (t >= sl.start[s + 1]) ++s;
    const Box& b = sl.box[s];
    const std::int64_t r = t - sl.start[s];
    const std::int64_t nx = b.extent(0), ny = b.extent(1);
    const int i = b.lo[0] + int(r % nx), j = b.lo[1] + int((r / nx) % ny),
              k = b.lo[2] + int(r / (nx * ny));
    for (int c = 0; c < ncomp; ++c) {
      int q[3] = {i, j, k};
      T mirrored[3];  // 2 w f of each mirror passed, outermost first
      int mirrors = 0;
      bool zero = false;
      for (;;) {
        // The highest axis on which q lies beyond the valid box (or on a rewritten image).
        int a = -1, side = 0;
        for (int x = p.dims - 1; x >= 0 && a < 0; --x) {
          if (q[x] < p.lo[x])
            a = x, side = 0;
          else if (q[x] > p.hi[x] || (p.rewrites[x] && q[x] == p.hi[x]))
            a = x, side = 1;
        }
        if (a < 0) break;  // inside: the value there
        const GhostRule rule = p.rule[a][side];
        if (rule == GhostRule::keep) break;  // a ghost nobody fills: the value there
        if (rule == GhostRule::zero) {
          zero = true;
          break;
        }
        if (rule == GhostRule::mirror) {
          const T w = p.from_field[a][side] ? wf(q[0], q[1], q[2], c) : T(p.wall[a][side]);
          mirrored[mirrors++] = T(T(2) * w * T(p.factor[a][side]));
          q[a] = side == 0 ? p.lo[a] : p.hi[a];
        } else if (rule == GhostRule::copy_edge) {
          q[a] = side == 0 ? p.lo[a] : p.hi[a];
        } else {  // periodic
          q[a] += side == 0 ? p.period[a] : -p.period[a];
        }
      }
      // Innermost first, in the axis-by-axis fill's order and rounding.
      T value = zero ? T(0) : v(q[0], q[1], q[2], c);
      for (int m = mirrors - 1; m >= 0; --m) value = T(mirrored[m] - value);
      v(i, j, k, c) = value;
    }
  });
}

// Every ghost of a field: on one patch, all axes' slabs in one launch; on several ranks,
// axis by axis, the physical faces of an axis (a face toward another rank kept, its
// values there by message) and then its messages, so that the next axis's slabs carry
// filled edges and corners along.
template <class T>
void fill_ghosts(Field<T>& f, const GhostSides& sides, const Field<T>* walls) {
  if (f.ghost() == 0) return;
  if (!f.decomposition()) return fill_ghost_slabs(f, sides, walls, 0, f.dims() - 1);
  Box span = f.interior();  // grows by the ghost width on each axis done
  for (int a = 0; a < f.dims(); ++a) {
    fill_ghost_slabs(f, sides, walls, a, a);
    exchange_ghost_messages(f, sides, a, span);
    span.lo[a] -= f.ghost();
    span.hi[a] += f.ghost();
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
