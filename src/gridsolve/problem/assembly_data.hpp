// The data an assembly reads, sampled in the memory of the device that assembles: k on
// faces and at side nodes, f at the nodes, g on the non-Dirichlet sides.
#pragma once
#include <array>
#include <utility>
#include <vector>

#include "gridsolve/core/hd.hpp"
#include "gridsolve/problem/node_samples.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve::detail {

// Conductivity on the face between node P and its neighbour along `axis` (s = -1 / +1):
// the harmonic mean of per-node values, the constant, or the formula at the face's
// midpoint (sampled per axis at the midpoint above each node).
struct FaceConductivity {
  bool per_node = false;
  SampleView nodes;     // per-node k when per_node
  SampleView faces[3];  // per axis, k at the midpoint between node i and i + 1
  GRIDSOLVE_HD double operator()(int i, int j, int k, int axis, int s) const {
    if (per_node) {
      const double a = nodes(i, j, k);
      const double b =
          nodes(i + (axis == 0 ? s : 0), j + (axis == 1 ? s : 0), k + (axis == 2 ? s : 0));
      return 2 * a * b / (a + b);
    }
    const int lo = s < 0 ? -1 : 0;
    return faces[axis](i + (axis == 0 ? lo : 0), j + (axis == 1 ? lo : 0),
                       k + (axis == 2 ? lo : 0));
  }
};

// The data of one assembly, sampled on the assembling device: k on faces and at side
// nodes, f at the nodes, g on the non-Dirichlet sides. Owns what the views read.
struct AssemblyData {
  std::vector<Samples> keep;
  FaceConductivity k_face;
  SampleView k_side[6], g_side[6], f;

  // `within`: the nodes whose rows are assembled (a rank's box and its ghosts); formulas
  // are sampled there and on the faces around it only. Per-node arrays are taken whole.
  AssemblyData(const ProblemSpec& spec, Device dev, bool need_faces, Box within = {}) {
    const Grid& g = spec.grid;
    within = within.empty() ? g.nodes() : within.intersect(g.nodes());
    const int d = g.dims;
    auto hold = [&](Samples s) {
      keep.push_back(std::move(s));
      return keep.back().view();
    };
    const bool per_node_k = !spec.k_nodes.empty();
    const SampleView k_nodes =
        per_node_k ? hold(Samples::of_nodes(spec.k_nodes, g, dev)) : SampleView{};
    if (need_faces) {
      k_face.per_node = per_node_k;
      k_face.nodes = k_nodes;
      for (int a = 0; a < d && !per_node_k; ++a) {
        Box b = g.nodes();
        b.hi[a] -= 1;
        b = b.intersect(within), b.lo[a] -= b.lo[a] > 0 ? 1 : 0;  // the face below the first
        std::array<int, 3> half{0, 0, 0};
        half[a] = 1;
        k_face.faces[a] = hold(Samples::of(spec.k, g, b, half, dev));
      }
    }
    for (int face = 0; face < 2 * d; ++face) {
      const BoundaryCondition& bc = spec.boundaries[face];
      if (bc.kind == BoundaryKind::dirichlet || bc.kind == BoundaryKind::periodic) continue;
      Box side = g.nodes();
      side.lo[face / 2] = side.hi[face / 2] = (face % 2) ? g.n[face / 2] - 1 : 0;
      side = side.intersect(within);
      k_side[face] = per_node_k ? k_nodes : hold(Samples::of(spec.k, g, side, {0, 0, 0}, dev));
      g_side[face] = hold(Samples::of(bc.g, g, side, {0, 0, 0}, dev));
    }
    f = spec.f_nodes.empty() ? hold(Samples::of(spec.f, g, within, {0, 0, 0}, dev))
                             : hold(Samples::of_nodes(spec.f_nodes, g, dev));
  }
  // keep's views point into its elements' storage, which moves with them.
  AssemblyData(const AssemblyData&) = delete;
  AssemblyData& operator=(const AssemblyData&) = delete;
};

// What a row on a side of the box needs: its kind, Robin's alpha, k and g there.
struct SideData {
  SampleView k[6], g[6];
  BoundaryKind kind[6] = {};
  double alpha[6] = {};
};

}  // namespace gridsolve::detail
