#include "gridsolve/problem/assemble.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/domain_marks.hpp"

namespace gridsolve {

void ProblemSpec::validate() const {
  require(grid.dims == 2 || grid.dims == 3, fmt::format("dims must be 2 or 3, got {}", grid.dims));
  for (int a = 0; a < grid.dims; ++a)
    require(grid.n[a] >= 3, fmt::format("need at least 3 nodes on axis {}, got {}", a, grid.n[a]));
  const std::size_t nodes = std::size_t(grid.node_count());
  require(k_nodes.empty() || k_nodes.size() == nodes,
          fmt::format("k has {} values, the grid has {} nodes", k_nodes.size(), nodes));
  require(f_nodes.empty() || f_nodes.size() == nodes,
          fmt::format("f has {} values, the grid has {} nodes", f_nodes.size(), nodes));
  if (k.is_constant() && k_nodes.empty())
    require(k.constant > 0 && std::isfinite(k.constant),
            fmt::format("k must be positive, got {}", k.constant));
  for (int face = 0; face < 2 * grid.dims; ++face)
    if (boundaries[face].kind == BoundaryKind::robin)
      require(boundaries[face].alpha > 0, fmt::format("robin alpha on {} must be positive, got {}",
                                                      face_name(face), boundaries[face].alpha));
  for (const MaskRegion& r : regions)
    for (int a = 0; a < grid.dims; ++a)
      require(r.lo[a] <= r.hi[a],
              fmt::format("mask box has lo > hi on axis {}: [{}, {}]", a, r.lo[a], r.hi[a]));
}

bool ProblemSpec::concurrent() const {
  bool ok = k.concurrent && f.concurrent && (!exact || exact->concurrent);
  for (const BoundaryCondition& bc : boundaries) ok = ok && bc.g.concurrent;
  for (const MaskRegion& r : regions) ok = ok && r.value.concurrent;
  return ok;
}

namespace {

struct Assembler : detail::DomainMarks {
  explicit Assembler(const ProblemSpec& s) : DomainMarks(s) {}

  // The first bad value met inside a parallel loop (where throwing is not allowed);
  // thrown by throw_if_bad() after the loop.
  mutable std::string bad;
  double checked(double v, bool ok, const char* what, const char* valid, int i, int j,
                 int k) const {
    if (ok) return v;
#pragma omp critical(gridsolve_assembly_bad_value)
    if (bad.empty())
      bad = fmt::format("{} is {} at {}; {}", what, number_text(v), where(i, j, k), valid);
    return 0.0;
  }
  void throw_if_bad() const {
    if (!bad.empty()) throw Error(bad);
  }
  double positive(double v, int i, int j, int k) const {
    return checked(v, std::isfinite(v) && v > 0, "the coefficient k",
                   "k must be positive and finite everywhere in the domain", i, j, k);
  }
  double finite_value(double v, const char* what, int i, int j, int k) const {
    return checked(v, std::isfinite(v), what, "every value the problem takes must be finite", i, j,
                   k);
  }

  double k_at(int i, int j, int k) const {
    if (!spec.k_nodes.empty()) return positive(spec.k_nodes[idx(i, j, k)], i, j, k);
    return positive(spec.k(x(i), y(j), z(k)), i, j, k);
  }
  double k_face(int i, int j, int k, int axis, int s) const {
    int c[3] = {i, j, k};
    c[axis] += s;
    if (!spec.k_nodes.empty()) {
      const double a = positive(spec.k_nodes[idx(i, j, k)], i, j, k),
                   b = positive(spec.k_nodes[idx(c[0], c[1], c[2])], c[0], c[1], c[2]);
      return a > 0 && b > 0 ? 2 * a * b / (a + b) : 0.0;
    }
    if (spec.k.is_constant()) return spec.k.constant;
    // Checked where it is evaluated, the face's midpoint; reported at the node.
    return positive(spec.k(0.5 * (x(i) + x(c[0])), 0.5 * (y(j) + y(c[1])), 0.5 * (z(k) + z(c[2]))),
                    i, j, k);
  }
  double f_at(int i, int j, int k) const {
    if (!spec.f_nodes.empty())
      return finite_value(spec.f_nodes[idx(i, j, k)], "the source f", i, j, k);
    return finite_value(spec.f(x(i), y(j), z(k)), "the source f", i, j, k);
  }

  // Area of one element's share of a face normal to `axis`, and one element's share of a
  // node's volume.
  double face_share(int axis) const {
    double a = 1;
    for (int b = 0; b < d; ++b)
      if (b != axis) a *= 0.5 * g.spacing[b];
    return a;
  }
  double volume_share() const {
    double v = 1;
    for (int b = 0; b < d; ++b) v *= 0.5 * g.spacing[b];
    return v;
  }

  // Spectral radius of the Jacobi iteration on the bounding box: per axis, the lowest
  // mode of a Dirichlet-Dirichlet (cos(pi/(n-1))) or Dirichlet-Neumann line
  // (cos(pi/(2(n-1)))), weighted by the axis' share of the diagonal. Holes and fixed
  // patches only lower the true value, so SOR's omega errs on the large side.
  double jacobi_radius_estimate() const {
    double num = 0, den = 0;
    for (int a = 0; a < d; ++a) {
      const double w = face_share(a) / g.spacing[a];
      const bool lo = spec.boundaries[2 * a].kind != BoundaryKind::neumann;
      const bool hi = spec.boundaries[2 * a + 1].kind != BoundaryKind::neumann;
      const double lines = g.n[a] - 1;
      double c = 1;
      if (lo && hi)
        c = std::cos(std::numbers::pi / lines);
      else if (lo || hi)
        c = std::cos(std::numbers::pi / (2 * lines));
      num += w * c;
      den += w;
    }
    double rho = num / den;
    if (rho >= 1.0) {  // only fixed patches hold the solution: assume they sit far away
      const int nmax = std::max({nx, ny, d == 3 ? nz : 0});
      rho = std::cos(std::numbers::pi / (4.0 * nmax));
    }
    return rho;
  }
};

// All sides Neumann and nothing fixed: A has the constants as null space and is
// symmetric, so A u = b is solvable only when the free rows' b sums to zero. Data that
// is compatible up to discretization error is projected (the mean of b removed);
// clearly incompatible data is refused, since no solution exists.
template <class T>
void make_compatible(StencilOperator<T>& op) {
  const FieldView<T> b = op.rhs.view();
  const FieldView<const std::uint8_t> m = op.mask.cview();
  const Box& box = op.active;
  double sum = 0, total = 0;
  std::int64_t count = 0;
  for (int k = box.lo[2]; k <= box.hi[2]; ++k)
    for (int j = box.lo[1]; j <= box.hi[1]; ++j)
      for (int i = box.lo[0]; i <= box.hi[0]; ++i)
        if (m(i, j, k) == 0) {
          sum += double(b(i, j, k));
          total += std::abs(double(b(i, j, k)));
          ++count;
        }
  const double mismatch = total > 0 ? std::abs(sum) / total : 0.0;
  require(mismatch <= 1e-2,
          fmt::format("every side is Neumann and no node is fixed, so the sources must balance the "
                      "boundary fluxes; here the net source is {:.4g} against a total of {:.4g} "
                      "({:.2g} of it), so no solution exists",
                      sum, total, mismatch));
  const T mean = T(sum / double(count));
  for (int k = box.lo[2]; k <= box.hi[2]; ++k)
    for (int j = box.lo[1]; j <= box.hi[1]; ++j)
      for (int i = box.lo[0]; i <= box.hi[0]; ++i)
        if (m(i, j, k) == 0) b(i, j, k) -= mean;
  op.singular = true;
  op.rhs_mismatch = mismatch;
}

// Every connected piece of the free nodes needs something that fixes its level: a
// coupling to a fixed node (a Dirichlet side or a fixed box) or a Robin side. A cut-out
// can split off a piece that has none; its solution is then not unique, and the
// whole-domain compatibility check cannot see it. One floating piece that is the whole
// domain is the all-Neumann problem, handled by make_compatible; any other is refused.
template <class T>
void check_components(const FieldView<std::uint8_t>& mv, const FieldView<T>* nb, int d,
                      const int* n, const ProblemSpec& spec) {
  const std::size_t nx = std::size_t(n[0]), ny = std::size_t(n[1]), nz = std::size_t(n[2]);
  std::vector<std::int32_t> label(nx * ny * nz, -1);
  std::vector<std::size_t> stack;
  int pieces = 0, floating = 0;
  std::size_t floating_node = 0;
  const unsigned char free_node = (unsigned char)NodeKind::free,
                      fixed_node = (unsigned char)NodeKind::fixed;
  for (std::size_t start = 0; start < label.size(); ++start) {
    const int si = int(start % nx), sj = int((start / nx) % ny), sk = int(start / (nx * ny));
    if (label[start] >= 0 || mv(si, sj, sk) != free_node) continue;
    bool anchored = false;
    label[start] = pieces;
    stack.assign(1, start);
    while (!stack.empty()) {
      const std::size_t id = stack.back();
      stack.pop_back();
      const int c[3] = {int(id % nx), int((id / nx) % ny), int(id / (nx * ny))};
      for (int f = 0; f < 2 * d; ++f) {
        const int axis = f / 2, step = (f % 2) ? 1 : -1;
        if (c[axis] + step < 0 || c[axis] + step >= n[axis]) {
          anchored = anchored || spec.boundaries[f].kind == BoundaryKind::robin;
          continue;
        }
        if (nb[f](c[0], c[1], c[2]) == T(0)) continue;
        int o[3] = {c[0], c[1], c[2]};
        o[axis] += step;
        const unsigned char kind = mv(o[0], o[1], o[2]);
        if (kind == fixed_node) anchored = true;
        if (kind != free_node) continue;
        const std::size_t oid =
            std::size_t(o[0]) + nx * (std::size_t(o[1]) + ny * std::size_t(o[2]));
        if (label[oid] >= 0) continue;
        label[oid] = pieces;
        stack.push_back(oid);
      }
    }
    if (!anchored && floating++ == 0) floating_node = start;
    ++pieces;
  }
  if (floating == 0 || pieces == 1) return;
  const int i = int(floating_node % nx), j = int((floating_node / nx) % ny),
            k = int(floating_node / (nx * ny));
  const Grid& g = spec.grid;
  const std::string at =
      d == 3 ? fmt::format("({:.6g}, {:.6g}, {:.6g})", g.coord(0, i), g.coord(1, j), g.coord(2, k))
             : fmt::format("({:.6g}, {:.6g})", g.coord(0, i), g.coord(1, j));
  throw Error(fmt::format(
      "the cut-outs split the domain into {} pieces, and {} of them (the one holding {}) touches "
      "no fixed node, Dirichlet or Robin side: only Neumann sides and cut-out edges bound it, so "
      "its solution is not unique; fix a node in it, or join it to the rest",
      pieces, floating == 1 ? "one" : fmt::format("{}", floating), at));
}

template <class T>
Field<T> host_field(const Grid& g) {
  return Field<T>(g, Device::cpu);
}

}  // namespace

template <class T>
Discretization<T> assemble(const ProblemSpec& spec, Device device) {
  if (spec.grid.geometry == Geometry::axisymmetric) return assemble_axisymmetric<T>(spec, device);
  spec.validate();
  Assembler as(spec);
  as.mark_nodes();
  const Grid& g = spec.grid;
  const int d = g.dims, nx = as.nx, ny = as.ny, nz = as.nz;

  bool all_dirichlet = true, any_outside = false;
  for (int f = 0; f < 2 * d; ++f)
    all_dirichlet = all_dirichlet && spec.boundaries[f].kind == BoundaryKind::dirichlet;
  for (const MaskRegion& r : spec.regions) any_outside = any_outside || r.kind == NodeKind::outside;
  const bool uniform =
      spec.k.is_constant() && spec.k_nodes.empty() && all_dirichlet && !any_outside;

  StencilOperator<T> op;
  op.grid = g;
  op.device = Device::cpu;
  op.uniform = uniform;
  Field<T> u = host_field<T>(g);
  const FieldView<T> uv = u.view();

  std::int64_t unknowns = 0;
  if (uniform) {
    op.active = Box{{1, 1, d == 3 ? 1 : 0}, {nx - 2, ny - 2, d == 3 ? nz - 2 : 0}};
    const double kc = spec.k.constant;
    // Full interior faces: the face area is the product of the other spacings.
    auto face = [&](int a) {
      double area = 1;
      for (int b = 0; b < d; ++b)
        if (b != a) area *= g.spacing[b];
      return kc * area / g.spacing[a];
    };
    op.cw = op.ce = T(face(0));
    op.cs = op.cn = T(face(1));
    op.cb = op.ct = T(d == 3 ? face(2) : 0.0);
    op.cp = T(2 * face(0) + 2 * face(1) + (d == 3 ? 2 * face(2) : 0.0));
    double vol = 1;
    for (int b = 0; b < d; ++b) vol *= g.spacing[b];
    if (spec.f.is_constant() && spec.f_nodes.empty()) {
      op.b_const = T(spec.f.constant * vol);
    } else {
      Field<T> rhs(g, Device::cpu);
      const FieldView<T> rv = rhs.view();
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i)  // b of the unknowns only: f may be singular on a side
            if (op.active.contains(i, j, k) &&
                as.kind[as.idx(i, j, k)] == (unsigned char)NodeKind::free)
              rv(i, j, k) = T(as.f_at(i, j, k) * vol);
      as.throw_if_bad();
      op.rhs = std::move(rhs);
    }
    if (!spec.regions.empty()) {
      Field<std::uint8_t> mask(g, Device::cpu);
      const FieldView<std::uint8_t> mv = mask.view();
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) mv(i, j, k) = as.kind[as.idx(i, j, k)];
      op.mask = std::move(mask);
    }
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const std::size_t n = as.idx(i, j, k);
          if (as.kind[n] == (unsigned char)NodeKind::fixed)
            uv(i, j, k) = T(as.value[n]);
          else if (op.active.contains(i, j, k))
            ++unknowns;
        }
  } else {
    as.mark_elements();
    op.active = g.nodes();
    Field<T> ap(g, Device::cpu), aw(g, Device::cpu), ae(g, Device::cpu), asf(g, Device::cpu),
        an(g, Device::cpu), rhs(g, Device::cpu);
    Field<T> ab, at;
    if (d == 3) ab = Field<T>(g, Device::cpu), at = Field<T>(g, Device::cpu);
    Field<std::uint8_t> mask(g, Device::cpu);
    const FieldView<std::uint8_t> mv = mask.view();
    FieldView<T> nb[6] = {aw.view(), ae.view(), asf.view(), an.view(), ab.view(), at.view()};
    const FieldView<T> apv = ap.view(), rv = rhs.view();
    const double vshare = as.volume_share();
    const int n[3] = {nx, ny, nz};
    // Rows are independent: assemble them in parallel unless a parsed formula (which
    // keeps its variables inside the parser) has to be evaluated.
    const bool parallel = spec.concurrent();
#pragma omp parallel for collapse(2) reduction(+ : unknowns) schedule(dynamic, 8) if (parallel)
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const std::size_t id = as.idx(i, j, k);
          unsigned char kd = as.kind[id];
          if (kd == (unsigned char)NodeKind::free && as.elements_around(i, j, k, -1, 0) == 0)
            kd = (unsigned char)NodeKind::outside;  // isolated by cut-outs: not an unknown
          mv(i, j, k) = kd;
          if (kd == (unsigned char)NodeKind::fixed) uv(i, j, k) = T(as.value[id]);
          if (kd != (unsigned char)NodeKind::free) continue;
          ++unknowns;
          const int c[3] = {i, j, k};
          double diag = 0;
          for (int f = 0; f < 2 * d; ++f) {
            const int axis = f / 2, s = (f % 2) ? 1 : -1;
            const bool on_side = s < 0 ? c[axis] == 0 : c[axis] == n[axis] - 1;
            if (on_side) {
              const BoundaryCondition& bc = spec.boundaries[f];
              if (bc.kind == BoundaryKind::dirichlet) continue;
              const double area = as.elements_around(i, j, k, -1, 0) * as.face_share(axis);
              const double kp = as.k_at(i, j, k);
              rv(i, j, k) += T(kp *
                               as.finite_value(bc.g(as.x(i), as.y(j), as.z(k)),
                                               "a Neumann or Robin boundary value", i, j, k) *
                               area);
              if (bc.kind == BoundaryKind::robin) diag += kp * bc.alpha * area;
              continue;
            }
            const double area =
                as.elements_around(i, j, k, axis, s < 0 ? -1 : 0) * as.face_share(axis);
            if (area == 0) continue;
            const double a = as.k_face(i, j, k, axis, s) * area / g.spacing[axis];
            nb[f](i, j, k) = T(a);
            diag += a;
          }
          apv(i, j, k) = T(diag);
          rv(i, j, k) += T(as.f_at(i, j, k) * vshare * as.elements_around(i, j, k, -1, 0));
        }
    as.throw_if_bad();
    if (any_outside) check_components(mv, nb, d, n, spec);
    op.ap = std::move(ap), op.aw = std::move(aw), op.ae = std::move(ae), op.as = std::move(asf),
    op.an = std::move(an), op.ab = std::move(ab), op.at = std::move(at);
    op.rhs = std::move(rhs);
    op.mask = std::move(mask);
  }
  op.unknowns = unknowns;
  op.jacobi_radius = as.jacobi_radius_estimate();
  for (int f = 0; f < 6; ++f) op.sides[f] = spec.boundaries[f].kind;
  op.k_constant = spec.k.is_constant() && spec.k_nodes.empty() ? spec.k.constant : 0.0;
  op.has_cutouts = any_outside;
  for (const MaskRegion& r : spec.regions)
    op.has_fixed_regions = op.has_fixed_regions || r.kind == NodeKind::fixed;
  require(unknowns > 0, "the domain is empty: every node is fixed or outside, nothing to solve");
  if (!uniform) {
    bool anchored = false;
    for (int f = 0; f < 2 * d; ++f)
      anchored = anchored || spec.boundaries[f].kind != BoundaryKind::neumann;
    for (const MaskRegion& r : spec.regions) anchored = anchored || r.kind == NodeKind::fixed;
    if (!anchored) make_compatible(op);
  }

  Discretization<T> out;
  if (device == Device::cpu) {
    out.op = std::move(op);
    out.u = std::move(u);
  } else {
    out.op = op.copy_to(device);
    out.u = u.copy_to(device);
  }
  return out;
}

template <class T>
Field<T> sample_exact(const ProblemSpec& spec, Device device) {
  require(spec.exact.has_value(), "this problem has no exact solution to compare with");
  const Grid& g = spec.grid;
  Field<T> e(g, Device::cpu);
  const FieldView<T> v = e.view();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i) {
        const double x = g.coord(0, i), y = g.coord(1, j), z = g.dims == 3 ? g.coord(2, k) : 0.0;
        const double value = (*spec.exact)(x, y, z);
        // A NaN here would make every error comparison false: "max error 0".
        require(std::isfinite(value),
                g.dims == 3 ? fmt::format("the exact solution is {} at ({:.6g}, {:.6g}, {:.6g}); "
                                          "it must be finite at every node",
                                          number_text(value), x, y, z)
                            : fmt::format("the exact solution is {} at ({:.6g}, {:.6g}); it must "
                                          "be finite at every node",
                                          number_text(value), x, y));
        v(i, j, k) = T(value);
      }
  return device == Device::cpu ? std::move(e) : e.copy_to(device);
}

template Discretization<float> assemble<float>(const ProblemSpec&, Device);
template Discretization<double> assemble<double>(const ProblemSpec&, Device);
template Field<float> sample_exact<float>(const ProblemSpec&, Device);
template Field<double> sample_exact<double>(const ProblemSpec&, Device);

}  // namespace gridsolve
