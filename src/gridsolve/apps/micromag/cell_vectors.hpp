// CellVectors<T>: the storage of a three-component field on the cells of the micromagnetic
// mesh (magnetization, torques, stage slopes), one array per component. This is the one
// place that chooses the storage, so that moving to the project's cell-centred vector
// Field is a change here only.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/memory.hpp"

namespace gridsolve::micromag {

// Raw component pointers, passed by value into loop bodies.
template <class T>
struct Vec3Ptr {
  T* c[3] = {nullptr, nullptr, nullptr};
};

template <class T>
class CellVectors {
 public:
  CellVectors() = default;
  CellVectors(Device d, std::int64_t cells) : cells_(cells) {
    for (auto& b : c_) {
      b = Buffer<T>(d, std::size_t(cells));
      zero_bytes(d, b.data(), std::size_t(cells) * sizeof(T));
    }
  }
  Device device() const { return c_[0].device(); }
  std::int64_t cells() const { return cells_; }
  T* comp(int c) const { return c_[c].data(); }
  Vec3Ptr<T> ptr() const { return {{c_[0].data(), c_[1].data(), c_[2].data()}}; }

  // Host copies of the components, x fastest.
  std::array<std::vector<T>, 3> to_host() const {
    std::array<std::vector<T>, 3> out;
    for (int c = 0; c < 3; ++c) {
      out[c].resize(std::size_t(cells_));
      copy_bytes(out[c].data(), Device::cpu, c_[c].data(), device(), cells_ * sizeof(T));
    }
    return out;
  }
  void from_host(const std::array<std::vector<T>, 3>& v) {
    for (int c = 0; c < 3; ++c)
      copy_bytes(c_[c].data(), device(), v[c].data(), Device::cpu, cells_ * sizeof(T));
  }
  void copy_from(const CellVectors& o) {
    for (int c = 0; c < 3; ++c)
      copy_bytes(c_[c].data(), device(), o.c_[c].data(), o.device(), cells_ * sizeof(T));
  }
  void swap(CellVectors& o) noexcept {
    for (int c = 0; c < 3; ++c) c_[c].swap(o.c_[c]);
    std::swap(cells_, o.cells_);
  }

 private:
  Buffer<T> c_[3];
  std::int64_t cells_ = 0;
};

}  // namespace gridsolve::micromag
