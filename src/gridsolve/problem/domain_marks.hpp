// Domain marks: which nodes of a ProblemSpec's grid are free, fixed or outside, and which
// elements (cells between nodes) belong to the domain; marked on the device that
// assembles, shared by the assemblers.
#pragma once
#include <cstdint>

#include "gridsolve/core/box.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve::detail {

// The nodes a mask region covers. Fixed boxes take the nodes on their surface too;
// outside boxes only the nodes strictly inside, so the surface stays in the domain as
// its boundary. Empty when the box misses every node.
Box region_nodes(const MaskRegion& r, const Grid& g);

// kind: free / fixed / outside per node (Dirichlet sides in face order, then the regions
// in order, later ones overriding); u: the fixed nodes' values, 0 elsewhere. Both are
// fresh zero fields on the assembling device, whole or one rank's part: the nodes each
// holds (ghosts included) are marked.
template <class T>
void mark_nodes(const ProblemSpec& spec, Field<std::uint8_t>& kind, Field<T>& u);

// inside: 1 for an element (a cell, indexed by its lowest corner) none of whose corners
// is outside, else 0; `inside` is a fresh zero cell-centred field (whole with ghost width
// 1, or a part's); the elements it holds whose corners `kind` holds are marked.
void mark_elements(const Grid& g, const Field<std::uint8_t>& kind, Field<std::uint8_t>& inside);

// The element marks as loop bodies read them. Elements off the grid read as outside:
// they are the marks' ghosts, which stay 0.
struct ElementMarks {
  FieldView<const std::uint8_t> in;
  int d = 2;

  GRIDSOLVE_HD bool inside(int i, int j, int k) const { return in(i, j, k) != 0; }
  // Number of domain elements around node P whose offset on `axis` is `off` (-1 or 0),
  // or any offset when axis < 0.
  GRIDSOLVE_HD int around(int i, int j, int k, int axis, int off) const {
    int count = 0;
    const int zs = d == 3 ? -1 : 0;
    for (int ok = zs; ok <= 0; ++ok)
      for (int oj = -1; oj <= 0; ++oj)
        for (int oi = -1; oi <= 0; ++oi) {
          const int o[3] = {oi, oj, ok};
          if (axis >= 0 && o[axis] != off) continue;
          count += inside(i + oi, j + oj, k + ok);
        }
    return count;
  }
};

}  // namespace gridsolve::detail
