// exchange_ghosts: the one way a field's ghost layers are filled. On one patch: periodic
// copies, zero-gradient copies of the edge value, zeros, mirrors about a wall value, or
// nothing (a physical side whose operator reads no ghost). A field that is one rank's part
// of a decomposition gets the faces it shares with other ranks (periodic ones included)
// by messages, and the rules on the physical sides only.
#pragma once
#include <array>
#include <cstdint>

#include "gridsolve/exec/field.hpp"

namespace gridsolve {

enum class GhostRule : std::uint8_t {
  keep,       // leave the ghosts as they are (the operator holds the boundary condition)
  periodic,   // the values from the opposite side of the domain
  copy_edge,  // the nearest valid value (zero normal gradient)
  zero,
  mirror,  // 2 w - the nearest valid value: their mean is the wall value w (GhostMirror)
};

// The value a mirror face reflects about. The ghost becomes 2 * w * factor - u_edge (u_edge
// the nearest valid value), so that a wall half a cell beyond the edge value holds
// w * factor: a no-slip or moving wall (w its velocity), an inflow (w its profile, factor
// its ramp in time).
struct GhostMirror {
  double value = 0;   // w, unless from_field
  double factor = 1;  // scales w (kept apart so that a ramp needs no new field)
  // w from the wall field given to exchange_ghosts, read at the ghost's own index (edge
  // and corner ghosts included), so a profile can vary over the face.
  bool from_field = false;
};

// Per face: x low, x high, y low, y high, z low, z high.
struct GhostSides {
  std::array<GhostRule, 6> face{GhostRule::keep, GhostRule::keep, GhostRule::keep,
                                GhostRule::keep, GhostRule::keep, GhostRule::keep};
  std::array<GhostMirror, 6> mirror{};  // read on mirror faces only
  // Periodic node-centred axes rewrite their last node from the first (its image). Off,
  // the last node keeps its own value: a mask of fixed faces computed for every face,
  // whose other arrays were built from that value.
  bool rewrite_images = true;
  static GhostSides all(GhostRule r) {
    GhostSides s;
    s.face.fill(r);
    return s;
  }
};

// Fills the ghosts of every component, axis by axis (x first, then y over the x ghosts
// too, then z), so edge and corner ghosts come out right for periodic, copied and
// mirrored sides. Periodic node-centred axes repeat with period n - 1 (the last node is the
// first node's image and is rewritten from it), cell-centred ones with period n (n of the
// global box). On several ranks every rank of the field's decomposition calls it with the
// same sides (it sends and receives: MPI for host fields, the device link for GPU ones).
template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides);
// The same, mirror faces with from_field reading w from `walls`: a field of f's box,
// ghost width, component count and device, whose ghost layers hold the wall values.
template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides, const Field<T>& walls);

}  // namespace gridsolve
