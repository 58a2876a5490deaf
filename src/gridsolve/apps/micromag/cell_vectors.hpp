// CellVectors<T>: a three-component field on the cells of the micromagnetic mesh
// (magnetization, torques, stage slopes): the project's cell-centred Field with three
// components (one array each) and no ghosts, plus the raw pointers the loop bodies use.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "gridsolve/core/centring.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/field.hpp"

namespace gridsolve::micromag {

// Raw component pointers (at cell (0, 0, 0)), passed by value into loop bodies.
template <class T>
struct Vec3Ptr {
  T* c[3] = {nullptr, nullptr, nullptr};
};

// Where cell (i, j, k) lives in every CellVectors of one mesh (rows are padded).
struct CellIndex {
  std::int64_t pitch = 0, plane = 0;
  GRIDSOLVE_HD std::int64_t operator()(int i, int j, int k) const {
    return i + j * pitch + k * plane;
  }
};

// The grid whose cells are the mesh's cells: n + 1 nodes per axis.
inline Grid cell_grid(std::array<int, 3> n) {
  Grid g;
  g.dims = 3;
  g.n = {n[0] + 1, n[1] + 1, n[2] + 1};
  return g;
}

template <class T>
class CellVectors {
 public:
  CellVectors() = default;
  CellVectors(Device d, std::array<int, 3> n)
      : n_(n), f_(cell_grid(n), Centring::cell(), 3, 0, d) {}
  Device device() const { return f_.device(); }
  std::int64_t cells() const { return std::int64_t(n_[0]) * n_[1] * n_[2]; }
  const Field<T>& field() const { return f_; }
  CellIndex index() const { return {f_.layout().pitch, f_.layout().plane}; }
  // Elements from comp(c) to past the last cell: loops over this flat range see the
  // cells and the row padding, which stays zero.
  std::int64_t span() const {
    const CellIndex x = index();
    return x(n_[0] - 1, n_[1] - 1, n_[2] - 1) + 1;
  }
  T* comp(int c) const { return f_.storage() + f_.layout().offset + c * f_.layout().component; }
  Vec3Ptr<T> ptr() const { return {{comp(0), comp(1), comp(2)}}; }

  // Host copies of the components, x fastest, without padding.
  std::array<std::vector<T>, 3> to_host() const {
    const std::vector<T> all = f_.to_vector();  // component after component
    std::array<std::vector<T>, 3> out;
    const std::size_t n = std::size_t(cells());
    for (int c = 0; c < 3; ++c) out[c].assign(all.begin() + c * n, all.begin() + (c + 1) * n);
    return out;
  }
  void from_host(const std::array<std::vector<T>, 3>& v) {
    const Field<T> host = f_.copy_to(Device::cpu);
    const FieldView<T> w = host.view();
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < n_[2]; ++k)
        for (int j = 0; j < n_[1]; ++j)
          for (int i = 0; i < n_[0]; ++i)
            w(i, j, k, c) = v[c][(std::size_t(k) * n_[1] + j) * n_[0] + i];
    f_.copy_from(host);
  }
  void copy_from(const CellVectors& o) { f_.copy_from(o.f_); }
  void swap(CellVectors& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(f_, o.f_);
  }

 private:
  std::array<int, 3> n_{1, 1, 1};
  Field<T> f_;
};

}  // namespace gridsolve::micromag
