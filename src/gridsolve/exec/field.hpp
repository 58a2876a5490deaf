// Field<T>: an owning grid function in host or device memory: a centring, one or more
// components (structure of arrays), a ghost layer, and its valid box in global indices;
// on several ranks, the decomposition its box is one rank's part of.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve {

template <class T>
class Field {
 public:
  Field() = default;
  // A zero-filled node-centred scalar field (ghosts included) on the grid's nodes.
  Field(const Grid& g, Device d) : Field(g, Centring::node(), 1, 1, d) {}
  // A zero-filled field of the given centring, components and ghost width on the grid.
  Field(const Grid& g, Centring c, int ncomp, int ghost, Device d)
      : Field(g.box(c), g.dims, ncomp, ghost, d) {}
  // A zero-filled field over `valid` (global indices) of a dims-dimensional grid.
  Field(const Box& valid, int dims, int ncomp, int ghost, Device d) {
    require(ncomp >= 1 && ncomp <= 64,
            "a field has 1 to 64 components, got " + std::to_string(ncomp));
    require(ghost >= 0 && ghost <= 3, "ghost width must be 0 to 3, got " + std::to_string(ghost));
    require(!valid.empty(), "a field needs a non-empty box");
    layout_ = Layout::make({valid.extent(0), valid.extent(1), valid.extent(2)}, dims, sizeof(T),
                           ghost, ncomp, valid.lo);
    centring_ = valid.centring;
    dims_ = dims;
    buffer_ = Buffer<T>(d, layout_.size);
    zero_bytes(d, buffer_.data(), layout_.size * sizeof(T));
  }
  // A zero-filled field over rank `rank`'s box of a decomposition: the part of a global
  // field that rank holds. exchange_ghosts then fills the ghosts that face other ranks
  // from their values; fields made otherwise are whole (one patch, one rank).
  Field(std::shared_ptr<const Decomposition> parts, int rank, int ncomp, int ghost, Device d)
      : Field(parts->box(rank), parts->dims(), ncomp, ghost, d) {
    parts_ = std::move(parts);
    rank_ = rank;
  }
  // Node-centred scalar field with n values per axis from index 0 (multigrid levels).
  Field(std::array<int, 3> n, int dims, Device d)
      : Field(Box{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}}, dims, 1, 1, d) {}

  bool empty() const { return buffer_.data() == nullptr; }
  Device device() const { return buffer_.device(); }
  const Layout& layout() const { return layout_; }
  int dims() const { return dims_; }
  int ncomp() const { return layout_.ncomp; }
  int ghost() const { return layout_.ghost; }
  Centring centring() const { return centring_; }
  // The valid box in global indices, with the field's centring.
  Box interior() const {
    Box b = layout_.interior();
    b.centring = centring_;
    return b;
  }
  // Every index the field stores: the valid box and its ghost layers (along z only in 3D).
  Box stored() const {
    const int g = layout_.ghost, zg = dims_ == 3 ? g : 0;
    Box b = interior().grown(g);
    b.lo[2] += g - zg, b.hi[2] -= g - zg;
    return b;
  }
  std::int64_t storage_size() const { return layout_.size; }
  // The decomposition this field is one rank's part of (null: the field is whole), and
  // that rank.
  const Decomposition* decomposition() const { return parts_.get(); }
  const std::shared_ptr<const Decomposition>& shared_decomposition() const { return parts_; }
  int rank() const { return rank_; }

  FieldView<T> view() const { return make_view<T>(); }
  FieldView<const T> cview() const { return make_view<const T>(); }
  T* storage() const { return buffer_.data(); }

  // A deep copy on the given device.
  Field copy_to(Device d) const {
    Field out;
    out.layout_ = layout_;
    out.centring_ = centring_;
    out.dims_ = dims_;
    out.parts_ = parts_;
    out.rank_ = rank_;
    out.buffer_ = Buffer<T>(d, layout_.size);
    copy_bytes(out.buffer_.data(), d, buffer_.data(), device(), layout_.size * sizeof(T));
    return out;
  }
  void copy_from(const Field& src) {
    require(src.layout_.size == layout_.size, "copy between fields of different shapes");
    copy_bytes(buffer_.data(), device(), src.buffer_.data(), src.device(),
               layout_.size * sizeof(T));
  }
  void set_zero() { zero_bytes(device(), buffer_.data(), layout_.size * sizeof(T)); }

  // Valid values, x fastest, packed without ghosts or padding, component after
  // component (for output and tests).
  std::vector<T> to_vector() const {
    const Field host = device() == Device::cpu ? Field() : copy_to(Device::cpu);
    const FieldView<const T> v = device() == Device::cpu ? cview() : host.cview();
    const Box b = interior();
    std::vector<T> out;
    out.reserve(std::size_t(b.cells()) * layout_.ncomp);
    for (int c = 0; c < layout_.ncomp; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) out.push_back(v(i, j, k, c));
    return out;
  }

 private:
  template <class U>
  FieldView<U> make_view() const {
    FieldView<U> v;
    if (buffer_.data()) {
      const auto& l = layout_;
      // Shift so that global (i, j, k) lands on its element: the valid box's first
      // value is element `offset`.
      v.data = buffer_.data() + l.offset -
               (std::int64_t(l.begin[0]) + l.pitch * l.begin[1] + l.plane * l.begin[2]);
    }
    v.pitch = layout_.pitch;
    v.plane = layout_.plane;
    v.component = layout_.component;
    v.begin = layout_.begin;
    v.extent = layout_.n;
    v.ghost = layout_.ghost;
    v.ncomp = layout_.ncomp;
    v.zghost = dims_ == 3 ? layout_.ghost : 0;
    return v;
  }

  Layout layout_{};
  Centring centring_{};
  int dims_ = 2;
  std::shared_ptr<const Decomposition> parts_;  // null: one patch
  int rank_ = 0;
  Buffer<T> buffer_;
};

}  // namespace gridsolve
