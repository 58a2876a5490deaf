// Centring: where a field's values live on each axis, at grid nodes or at cell centres.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "gridsolve/core/hd.hpp"

namespace gridsolve {

enum class IndexType : std::uint8_t { node, cell };

// Per axis, node or cell. A face-x field (a MAC grid's u velocity) is node in x and cell
// in y and z: its values sit on the faces normal to x.
struct Centring {
  std::array<IndexType, 3> type{IndexType::node, IndexType::node, IndexType::node};

  static constexpr Centring node() { return Centring{}; }
  static constexpr Centring cell() {
    return Centring{{IndexType::cell, IndexType::cell, IndexType::cell}};
  }
  // Node along `axis`, cell along the others.
  static constexpr Centring face(int axis) {
    Centring c = cell();
    c.type[axis] = IndexType::node;
    return c;
  }
  GRIDSOLVE_HD constexpr bool is_cell(int axis) const { return type[axis] == IndexType::cell; }
  constexpr bool operator==(const Centring&) const = default;

  // "node", "cell", "face-x", ... or the per-axis letters ("ncn") for other mixes.
  std::string describe() const {
    if (*this == node()) return "node";
    if (*this == cell()) return "cell";
    for (int a = 0; a < 3; ++a)
      if (*this == face(a)) return std::string("face-") + "xyz"[a];
    std::string s;
    for (IndexType t : type) s += t == IndexType::node ? 'n' : 'c';
    return s;
  }
};

}  // namespace gridsolve
