// CellVectors<T>: a three-component field on the cells of the micromagnetic mesh
// (magnetization, torques, stage slopes): the project's cell-centred Field with three
// components (one array each) and one ghost layer, which exchange_ghosts fills for the loop
// bodies that read neighbours; plus the raw pointers the pointwise loop bodies use.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gridsolve/core/centring.hpp"
#include "gridsolve/core/grid.hpp"
#include "gridsolve/core/hd.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"

namespace gridsolve::micromag {

// Raw component pointers (at cell (0, 0, 0)), passed by value into loop bodies.
template <class T>
struct Vec3Ptr {
  T* c[3] = {nullptr, nullptr, nullptr};
};

// Where cell (i, j, k) (its index in the whole mesh) lives in every CellVectors of one mesh,
// counted from the first cell the field holds (rows are padded; on ranks the first cell of
// the rank's slab).
struct CellIndex {
  std::int64_t pitch = 0, plane = 0;
  int first[3] = {0, 0, 0};
  GRIDSOLVE_HD std::int64_t operator()(int i, int j, int k) const {
    return (i - first[0]) + (j - first[1]) * pitch + (k - first[2]) * plane;
  }
};

// The grid whose cells are the mesh's cells: n + 1 nodes per axis.
inline Grid cell_grid(std::array<int, 3> n) {
  Grid g;
  g.dims = 3;
  g.n = {n[0] + 1, n[1] + 1, n[2] + 1};
  return g;
}

// The mesh's cells as a field with one ghost layer. A single layer (one cell along z) is
// stored as a 2D field: it has no z neighbours to read, and ghost planes would triple a
// film's memory.
template <class T>
Field<T> cell_field(Device d, std::array<int, 3> n, int ncomp) {
  const Box cells{{0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1}, Centring::cell()};
  return Field<T>(cells, n[2] > 1 ? 3 : 2, ncomp, 1, d);
}

// How the ghosts of the mesh's cell fields are filled: periodic across the sides of a
// periodic axis (one cell along it: the cell is its own neighbour, which adds no exchange
// but is not a free surface, whose boundary condition DMI would apply); elsewhere kept as
// they are, the region map's ghosts there being vacuum (set once): a free surface, which
// exchange reads as a neighbour without material.
inline GhostSides cell_ghost_sides(std::array<int, 3> n, std::array<bool, 3> periodic) {
  GhostSides s;
  for (int a = 0; a < 3; ++a)
    if (periodic[a] && (a < 2 || n[2] > 1)) s.face[2 * a] = s.face[2 * a + 1] = GhostRule::periodic;
  return s;
}

template <class T>
class CellVectors {
 public:
  CellVectors() = default;
  CellVectors(Device d, std::array<int, 3> n) : n_(n), f_(cell_field<T>(d, n, 3)) {}
  // On several ranks: this rank's part of the mesh's cells (`parts` a decomposition of the
  // cell box, as slab_decomposition makes it), one ghost layer.
  CellVectors(Device d, std::array<int, 3> n, std::shared_ptr<const Decomposition> parts, int rank)
      : n_(n), f_(parts ? Field<T>(std::move(parts), rank, 3, 1, d) : cell_field<T>(d, n, 3)) {}
  Device device() const { return f_.device(); }
  // The cells of the whole mesh.
  std::int64_t cells() const { return std::int64_t(n_[0]) * n_[1] * n_[2]; }
  // The cells this field holds: the whole mesh, or this rank's slab.
  Box held() const { return f_.interior(); }
  bool on_ranks() const { return f_.decomposition() != nullptr; }
  CellIndex index() const {
    const Box b = f_.interior();
    return {f_.layout().pitch, f_.layout().plane, {b.lo[0], b.lo[1], b.lo[2]}};
  }
  T* comp(int c) const { return f_.storage() + f_.layout().offset + c * f_.layout().component; }
  Vec3Ptr<T> ptr() const { return {{comp(0), comp(1), comp(2)}}; }
  // For loop bodies that read neighbours: fill_ghosts first.
  FieldView<const T> view() const { return f_.cview(); }
  void fill_ghosts(const GhostSides& sides) { exchange_ghosts(f_, sides); }

  // The cells as a 3D cell-centred field without ghosts, on the host (for the writers,
  // whose grid is cell_grid(n)). On ranks every rank calls it; rank 0 gets the whole mesh,
  // the others an empty field.
  Field<T> field() const {
    const std::array<std::vector<T>, 3> all = to_host();
    if (all[0].empty()) return Field<T>();
    Field<T> out(cell_grid(n_), Centring::cell(), 3, 0, Device::cpu);
    place(all, out.view(), Box{{0, 0, 0}, {n_[0] - 1, n_[1] - 1, n_[2] - 1}});
    return out;
  }

  // Host copies of the components over the whole mesh, x fastest, without ghosts or
  // padding. On ranks every rank calls it (the parts are gathered): rank 0 gets them, the
  // others empty vectors.
  std::array<std::vector<T>, 3> to_host() const {
    std::vector<T> all;  // component after component
    if (on_ranks()) {
      Field<T> whole;
      if (Communicator::world().is_root()) whole = cell_field<T>(Device::cpu, n_, 3);
      gather_parts(f_, whole);
      if (whole.empty()) return {};
      all = whole.to_vector();
    } else {
      all = f_.to_vector();
    }
    std::array<std::vector<T>, 3> out;
    const std::size_t n = std::size_t(cells());
    for (int c = 0; c < 3; ++c) out[c].assign(all.begin() + c * n, all.begin() + (c + 1) * n);
    return out;
  }
  // From components over the whole mesh (x fastest): the cells this field holds.
  void from_host(const std::array<std::vector<T>, 3>& v) {
    const Field<T> host = f_.copy_to(Device::cpu);
    place(v, host.view(), f_.interior());
    f_.copy_from(host);
  }
  void copy_from(const CellVectors& o) { f_.copy_from(o.f_); }
  void swap(CellVectors& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(f_, o.f_);
  }

 private:
  // Host components of the whole mesh, x fastest, into a host view, at the cells of `b`.
  void place(const std::array<std::vector<T>, 3>& v, const FieldView<T>& w, const Box& b) const {
    for (int c = 0; c < 3; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i)
            w(i, j, k, c) = v[c][(std::size_t(k) * n_[1] + j) * n_[0] + i];
  }
  std::array<int, 3> n_{1, 1, 1};
  Field<T> f_;
};

}  // namespace gridsolve::micromag
