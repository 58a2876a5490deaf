// exchange_ghosts: the one way a field's ghost layers are filled. On one patch: periodic
// copies, zero-gradient copies of the edge value, zeros, or nothing (a physical side whose
// operator reads no ghost); across processes the same call will carry messages.
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
};

// Per face: x low, x high, y low, y high, z low, z high.
struct GhostSides {
  std::array<GhostRule, 6> face{GhostRule::keep, GhostRule::keep, GhostRule::keep,
                                GhostRule::keep, GhostRule::keep, GhostRule::keep};
  static GhostSides all(GhostRule r) {
    GhostSides s;
    s.face.fill(r);
    return s;
  }
};

// Fills the ghosts of every component, axis by axis (x first, then y over the x ghosts
// too, then z), so edge and corner ghosts come out right for periodic and copied sides.
// Periodic node-centred axes repeat with period n - 1 (the last node is the first
// node's image and is rewritten from it), cell-centred ones with period n.
template <class T>
void exchange_ghosts(Field<T>& f, const GhostSides& sides);

}  // namespace gridsolve
