// Field<T>: an owning grid function in host or device memory, ghost layer included.
#pragma once
#include <cstdint>
#include <vector>

#include "gridsolve/core/field_view.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve {

template <class T>
class Field {
 public:
  Field() = default;
  // A zero-filled field (ghosts included) with the grid's node counts.
  Field(const Grid& g, Device d) : Field(g.n, g.dims, d) {}
  Field(std::array<int, 3> n, int dims, Device d)
      : layout_(Layout::make(n, dims, sizeof(T))), dims_(dims), buffer_(d, layout_.size) {
    zero_bytes(d, buffer_.data(), layout_.size * sizeof(T));
  }

  bool empty() const { return buffer_.data() == nullptr; }
  Device device() const { return buffer_.device(); }
  const Layout& layout() const { return layout_; }
  int dims() const { return dims_; }
  Box interior() const { return layout_.interior(); }
  std::int64_t storage_size() const { return layout_.size; }

  FieldView<T> view() const {
    return FieldView<T>{buffer_.data() ? buffer_.data() + layout_.offset : nullptr, layout_.pitch,
                        layout_.plane};
  }
  FieldView<const T> cview() const {
    return FieldView<const T>{buffer_.data() ? buffer_.data() + layout_.offset : nullptr,
                              layout_.pitch, layout_.plane};
  }
  T* storage() const { return buffer_.data(); }

  // A deep copy on the given device.
  Field copy_to(Device d) const {
    Field out;
    out.layout_ = layout_;
    out.dims_ = dims_;
    out.buffer_ = Buffer<T>(d, layout_.size);
    copy_bytes(out.buffer_.data(), d, buffer_.data(), device(), layout_.size * sizeof(T));
    return out;
  }
  void copy_from(const Field& src) {
    copy_bytes(buffer_.data(), device(), src.buffer_.data(), src.device(),
               layout_.size * sizeof(T));
  }
  void set_zero() { zero_bytes(device(), buffer_.data(), layout_.size * sizeof(T)); }

  // Interior values, x fastest, packed without ghosts or padding (for output and tests).
  std::vector<T> to_vector() const {
    const Field host = device() == Device::cpu ? Field() : copy_to(Device::cpu);
    const FieldView<const T> v = device() == Device::cpu ? cview() : host.cview();
    std::vector<T> out;
    out.reserve(std::size_t(layout_.n[0]) * layout_.n[1] * layout_.n[2]);
    for (int k = 0; k < layout_.n[2]; ++k)
      for (int j = 0; j < layout_.n[1]; ++j)
        for (int i = 0; i < layout_.n[0]; ++i) out.push_back(v(i, j, k));
    return out;
  }

 private:
  Layout layout_{};
  int dims_ = 2;
  Buffer<T> buffer_;
};

}  // namespace gridsolve
