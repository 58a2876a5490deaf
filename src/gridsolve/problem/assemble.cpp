// Cartesian vertex-centred finite-volume assembly, run on the device that solves.
#include "gridsolve/problem/assemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <numbers>
#include <utility>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/domain_marks.hpp"
#include "gridsolve/problem/assembly_data.hpp"

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
  for (int a = 0; a < grid.dims; ++a) {
    const bool lo = boundaries[2 * a].kind == BoundaryKind::periodic;
    const bool hi = boundaries[2 * a + 1].kind == BoundaryKind::periodic;
    require(lo == hi,
            fmt::format("{} is periodic and {} is not: a periodic axis needs both sides "
                        "periodic",
                        face_name(lo ? 2 * a : 2 * a + 1), face_name(lo ? 2 * a + 1 : 2 * a)));
  }
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

// Spectral radius of the Jacobi iteration on the bounding box: per axis, the lowest
// mode of a Dirichlet-Dirichlet (cos(pi/(n-1))) or Dirichlet-Neumann line
// (cos(pi/(2(n-1)))), weighted by the axis' share of the diagonal. Holes and fixed
// patches only lower the true value, so SOR's omega errs on the large side.
double jacobi_radius_estimate(const ProblemSpec& spec, const double face_share[3]) {
  const Grid& g = spec.grid;
  const int d = g.dims;
  double num = 0, den = 0, varying[3] = {0, 0, 0};
  for (int a = 0; a < d; ++a) {
    const double w = face_share[a] / g.spacing[a];
    // Sides that hold a value; Neumann and periodic axes leave the lowest mode constant.
    auto holds = [&](int f) {
      const BoundaryKind k = spec.boundaries[f].kind;
      return k == BoundaryKind::dirichlet || k == BoundaryKind::robin;
    };
    const bool lo = holds(2 * a), hi = holds(2 * a + 1);
    const double lines = g.n[a] - 1;
    double c = 1;
    if (lo && hi)
      c = std::cos(std::numbers::pi / lines);
    else if (lo || hi)
      c = std::cos(std::numbers::pi / (2 * lines));
    num += w * c;
    den += w;
    // The first mode that varies along an axis holding no value: a whole wave on a
    // periodic axis, half a wave between two Neumann sides.
    const bool wraps = spec.boundaries[2 * a].kind == BoundaryKind::periodic;
    varying[a] = w * (1 - std::cos(std::numbers::pi * (wraps ? 2 : 1) / lines));
  }
  double rho = num / den;
  bool fixed_regions = false;
  for (const MaskRegion& r : spec.regions)
    fixed_regions = fixed_regions || r.kind == NodeKind::fixed;
  if (rho >= 1.0 && !fixed_regions) {
    // Nothing holds the level (a singular problem): the constant mode is projected out,
    // and the slowest remaining one varies along one axis only.
    double least = varying[0];
    for (int a = 1; a < d; ++a) least = std::min(least, varying[a]);
    return (num - least) / den;
  }
  if (rho >= 1.0) {  // only fixed patches hold the solution: assume they sit far away
    const int nmax = std::max({g.n[0], g.n[1], d == 3 ? g.n[2] : 0});
    rho = std::cos(std::numbers::pi / (4.0 * nmax));
  }
  return rho;
}

struct Balance {
  double sum = 0, total = 0;
  std::int64_t count = 0;
  GRIDSOLVE_HD Balance operator+(const Balance& o) const {
    return Balance{sum + o.sum, total + o.total, count + o.count};
  }
};

}  // namespace

// All sides Neumann and nothing fixed: A has the constants as null space and is
// symmetric, so A u = b is solvable only when the free rows' b sums to zero. Data that
// is compatible up to discretization error is projected (the mean of b removed);
// clearly incompatible data is refused, since no solution exists.
template <class T>
double remove_net_source(const StencilOperator<T>& op, Field<T>& rhs) {
  const FieldView<T> b = rhs.view();
  const FieldView<const std::uint8_t> m = op.mask.cview();
  const Balance bal = reduce<Balance>(
      op.device, op.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> Balance {
        if (m(i, j, k) != 0) return Balance{};
        const double v = double(b(i, j, k));
        return Balance{v, v < 0 ? -v : v, 1};
      },
      SumOp{}, Balance{});
  Balance all = bal;
  if (op.parts) {  // sums over every rank's part, in rank order on every rank
    std::array<double, 3> v{bal.sum, bal.total, double(bal.count)};
    Communicator::world().sum(std::span<double>(v));
    all = Balance{v[0], v[1], std::int64_t(v[2])};
  }
  const double mismatch = all.total > 0 ? std::abs(all.sum) / all.total : 0.0;
  require(mismatch <= 1e-2,
          fmt::format("every side is Neumann and no node is fixed, so the sources must balance the "
                      "boundary fluxes; here the net source is {:.4g} against a total of {:.4g} "
                      "({:.2g} of it), so no solution exists",
                      all.sum, all.total, mismatch));
  const T mean = T(all.sum / double(all.count));
  // A part's ghost rows too, so that they stay the whole operator's rows.
  const Box rows = op.parts ? rhs.interior().grown(1).intersect(op.grid.nodes()) : op.active;
  for_each(op.device, rows, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (m(i, j, k) == 0) b(i, j, k) -= mean;
  });
  return mismatch;
}

namespace {

// What the row loop found wrong at a node (0: nothing), for the message thrown after it.
enum BadValue : std::uint8_t { bad_k_face = 1, bad_k_side = 7, bad_g_side = 13, bad_f = 19 };

struct MinIndex {
  GRIDSOLVE_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return a < b ? a : b;
  }
};

// Throws Error naming the first node (x fastest) whose data the row loop found wrong and
// the value there, evaluated again on the host.
void throw_if_bad(const ProblemSpec& spec, const Field<std::uint8_t>& bad) {
  const Grid& g = spec.grid;
  const std::int64_t nx = g.n[0], ny = g.n[1];
  const FieldView<const std::uint8_t> bv = bad.cview();
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  // A rank's part looks at its own box; the first over all ranks is agreed, so every rank
  // throws the same message.
  std::int64_t first = reduce<std::int64_t>(
      bad.device(), bad.interior().intersect(g.nodes()),
      [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
        const std::uint8_t c = bv(i, j, k);
        return c ? (std::int64_t(i) + nx * (j + ny * std::int64_t(k))) * 32 + c : none;
      },
      MinIndex{}, none);
  if (bad.decomposition()) {
    const double agreed = Communicator::world().min(first == none ? 1e300 : double(first));
    first = agreed < 1e300 ? std::int64_t(agreed) : none;
  }
  if (first == none) return;
  const int code = int(first % 32);
  const std::int64_t node = first / 32;
  int c[3] = {int(node % nx), int((node / nx) % ny), int(node / (nx * ny))};
  auto at = [&](const int* p, int axis, int half) {
    if (axis >= g.dims) return 0.0;
    return half ? 0.5 * (g.coord(axis, p[axis]) + g.coord(axis, p[axis] + 1))
                : g.coord(axis, p[axis]);
  };
  auto node_value = [&](const std::vector<double>& values, const Expression& e, const int* p) {
    return values.empty()
               ? e(at(p, 0, 0), at(p, 1, 0), at(p, 2, 0))
               : values[std::size_t(p[0]) + std::size_t(nx) * (p[1] + std::size_t(ny) * p[2])];
  };
  const char* finite = "every value the problem takes must be finite";
  double v = 0;
  std::string what, valid = finite;
  if (code >= bad_f) {
    what = "the source f", v = node_value(spec.f_nodes, spec.f, c);
  } else if (code >= bad_g_side) {
    const int f = code - bad_g_side;
    what = "a Neumann or Robin boundary value";
    v = spec.boundaries[f].g(at(c, 0, 0), at(c, 1, 0), at(c, 2, 0));
  } else {
    what = "the coefficient k";
    valid = "k must be positive and finite everywhere in the domain";
    if (code >= bad_k_side || !spec.k_nodes.empty()) {
      v = node_value(spec.k_nodes, spec.k, c);
      if (code < bad_k_side && finite_number(v) && v > 0) {  // the neighbour's value
        const int f = code - bad_k_face;
        c[f / 2] += f % 2 ? 1 : -1;
        v = node_value(spec.k_nodes, spec.k, c);
      }
    } else {  // the formula at the face's midpoint, reported at the node
      const int f = code - bad_k_face, axis = f / 2;
      int lower[3] = {c[0], c[1], c[2]};
      if (f % 2 == 0) lower[axis] -= 1;
      double p[3];
      for (int a = 0; a < 3; ++a) p[a] = at(lower, a, a == axis ? 1 : 0);
      v = spec.k(p[0], p[1], p[2]);
    }
  }
  throw Error(fmt::format("{} is {} at {}; {}", what, number_text(v),
                          point_text(g, at(c, 0, 0), at(c, 1, 0), at(c, 2, 0)), valid));
}

// Every connected piece of the free nodes needs something that fixes its level: a
// coupling to a fixed node (a Dirichlet side or a fixed box) or a Robin side. A cut-out
// can split off a piece that has none; its solution is then not unique, and the
// whole-domain compatibility check cannot see it. One floating piece that is the whole
// domain is the all-Neumann problem, handled by make_compatible; any other is refused.
// Runs on the host, over host copies of the marks (two bytes per node).
void check_components(const Field<std::uint8_t>& mask, const Field<std::uint8_t>& elements,
                      const ProblemSpec& spec) {
  const bool here = mask.device() == Device::cpu;
  const Field<std::uint8_t> mask_host = here ? Field<std::uint8_t>() : mask.copy_to(Device::cpu);
  const Field<std::uint8_t> elements_host =
      here ? Field<std::uint8_t>() : elements.copy_to(Device::cpu);
  const FieldView<const std::uint8_t> mv = here ? mask.cview() : mask_host.cview();
  const detail::ElementMarks em{here ? elements.cview() : elements_host.cview(), spec.grid.dims};
  const Grid& g = spec.grid;
  const int d = g.dims, n[3] = {g.n[0], g.n[1], g.n[2]};
  const std::size_t nx = std::size_t(n[0]), ny = std::size_t(n[1]), nz = std::size_t(n[2]);
  std::vector<std::int32_t> label(nx * ny * nz, -1);
  std::vector<std::size_t> stack;
  int pieces = 0, floating = 0;
  std::size_t floating_node = 0;
  const std::uint8_t free_node = std::uint8_t(NodeKind::free),
                     fixed_node = std::uint8_t(NodeKind::fixed);
  bool wraps[3] = {false, false, false};
  for (int a = 0; a < d; ++a) wraps[a] = spec.boundaries[2 * a].kind == BoundaryKind::periodic;
  // On a periodic axis the last node is the first one's image, not a node of its own.
  auto image = [&](const int* c) {
    for (int a = 0; a < d; ++a)
      if (wraps[a] && c[a] == n[a] - 1) return true;
    return false;
  };
  for (std::size_t start = 0; start < label.size(); ++start) {
    const int si = int(start % nx), sj = int((start / nx) % ny), sk = int(start / (nx * ny));
    const int sc[3] = {si, sj, sk};
    if (label[start] >= 0 || mv(si, sj, sk) != free_node || image(sc)) continue;
    bool anchored = false;
    label[start] = pieces;
    stack.assign(1, start);
    while (!stack.empty()) {
      const std::size_t id = stack.back();
      stack.pop_back();
      const int c[3] = {int(id % nx), int((id / nx) % ny), int(id / (nx * ny))};
      for (int f = 0; f < 2 * d; ++f) {
        const int axis = f / 2, step = (f % 2) ? 1 : -1;
        int o[3] = {c[0], c[1], c[2]};
        o[axis] += step;
        if (wraps[axis]) {
          o[axis] = (o[axis] + n[axis] - 1) % (n[axis] - 1);
        } else if (o[axis] < 0 || o[axis] >= n[axis]) {
          anchored = anchored || spec.boundaries[f].kind == BoundaryKind::robin;
          continue;
        }
        // Coupled through the face when some domain element touches it (k > 0 there).
        if (em.around(c[0], c[1], c[2], axis, step < 0 ? -1 : 0) == 0) continue;
        const std::uint8_t kind = mv(o[0], o[1], o[2]);
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
  const std::string at = point_text(g, g.coord(0, i), g.coord(1, j), d == 3 ? g.coord(2, k) : 0.0);
  throw Error(fmt::format(
      "the cut-outs split the domain into {} pieces, and {} of them (the one holding {}) touches "
      "no fixed node, Dirichlet or Robin side: only Neumann sides and cut-out edges bound it, so "
      "its solution is not unique; fix a node in it, or join it to the rest",
      pieces, floating == 1 ? "one" : fmt::format("{}", floating), at));
}

}  // namespace

bool assembles_on_ranks(const ProblemSpec& spec) {
  if (spec.grid.geometry == Geometry::axisymmetric) return true;
  for (const BoundaryCondition& bc : spec.boundaries)
    if (bc.kind == BoundaryKind::periodic) return false;
  for (const MaskRegion& r : spec.regions)
    if (r.kind == NodeKind::outside) return false;
  return true;
}

std::array<std::vector<double>, 3> unknowns_per_plane(const ProblemSpec& spec) {
  const Grid& g = spec.grid;
  // The node marks alone, on the host (a byte per node); fixed values are not needed, so
  // they go to a field of one node that takes none.
  Field<std::uint8_t> kind(g, Device::cpu);
  Field<double> none(Box{{-9, -9, -9}, {-9, -9, -9}}, g.dims, 1, 0, Device::cpu);
  detail::mark_nodes(spec, kind, none);
  std::array<std::vector<double>, 3> work;
  for (int a = 0; a < g.dims; ++a) work[std::size_t(a)].assign(std::size_t(g.n[a]), 0.0);
  const FieldView<const std::uint8_t> kv = kind.cview();
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i)
        if (kv(i, j, k) == std::uint8_t(NodeKind::free)) {
          const int at[3] = {i, j, k};
          for (int a = 0; a < g.dims; ++a) work[std::size_t(a)][std::size_t(at[a])] += 1;
        }
  return work;
}

RankPart rank_part(const ProblemSpec& spec, std::array<int, 3> asked) {
  const Communicator& comm = Communicator::world();
  const Grid& g = spec.grid;
  std::array<bool, 3> periodic{};
  for (int a = 0; a < g.dims; ++a)
    periodic[std::size_t(a)] = spec.boundaries[std::size_t(2 * a)].kind == BoundaryKind::periodic;
  const Decomposition even(g.box(Centring::node()), g.dims, comm.size(), periodic, asked);
  // A masked domain's cuts follow its unknowns, so that no rank waits on a fuller one.
  return RankPart{std::make_shared<const Decomposition>(
                      spec.regions.empty() ? even : even.balanced(unknowns_per_plane(spec))),
                  comm.rank()};
}

Grid held_grid(const ProblemSpec& spec, const RankPart& part) {
  Grid held = spec.grid;
  if (!part.parts) return held;
  const Box mine = part.parts->box(part.rank);
  for (int a = 0; a < held.dims; ++a) held.n[std::size_t(a)] = mine.extent(a);
  return held;
}

namespace {

// assemble's body; `project`: remove a singular operator's net source from b (assemble
// does; assembled_rhs wants b as the data and sources give it).
template <class T>
Discretization<T> assemble_rows(const ProblemSpec& spec, Device device, const RankPart& part,
                                bool project) {
  if (spec.grid.geometry == Geometry::axisymmetric)
    return assemble_axisymmetric<T>(spec, device, {}, part);
  spec.validate();
  const bool split = bool(part.parts);
  require(!split || assembles_on_ranks(spec),
          "a problem with periodic sides or cut-outs is assembled whole, then split");
  require(!split || (part.parts->global().lo == spec.grid.nodes().lo &&
                     part.parts->global().hi == spec.grid.nodes().hi &&
                     part.parts->dims() == spec.grid.dims),
          "a rank's part is assembled from a decomposition of the grid's nodes");
  const Grid& g = spec.grid;
  const int d = g.dims, nx = g.n[0], ny = g.n[1], nz = g.n[2];

  // Periodic axes: the unknowns are nodes 0 .. n - 2, node n - 1 is node 0's image.
  std::uint8_t periodic = 0;
  bool any_dirichlet = false, only_dirichlet_or_periodic = true, any_outside = false;
  for (int f = 0; f < 2 * d; ++f) {
    const BoundaryKind kind = spec.boundaries[f].kind;
    if (kind == BoundaryKind::periodic) periodic |= std::uint8_t(1u << (f / 2));
    any_dirichlet = any_dirichlet || kind == BoundaryKind::dirichlet;
    only_dirichlet_or_periodic = only_dirichlet_or_periodic && (kind == BoundaryKind::dirichlet ||
                                                                kind == BoundaryKind::periodic);
  }
  for (const MaskRegion& r : spec.regions) any_outside = any_outside || r.kind == NodeKind::outside;
  // Uniform rows need every unknown's row alike: Dirichlet and periodic sides keep them
  // so; a problem with no Dirichlet side is singular and goes the per-node way, whose
  // right-hand side can be made compatible.
  const bool uniform = spec.k.is_constant() && spec.k_nodes.empty() && any_dirichlet &&
                       only_dirichlet_or_periodic && !any_outside;
  auto wraps = [periodic](int a) { return ((periodic >> a) & 1) != 0; };

  // Area of one element's share of a face normal to each axis, and one element's share
  // of a node's volume.
  double face_share[3] = {1, 1, 1}, vshare = 1;
  for (int a = 0; a < d; ++a) {
    vshare *= 0.5 * g.spacing[a];
    for (int b = 0; b < d; ++b)
      if (b != a) face_share[a] *= 0.5 * g.spacing[b];
  }

  // Everything is built in the memory of the device that solves: the whole grid's fields,
  // or a rank's part of each (its box and ghosts, global indices).
  StencilOperator<T> op;
  op.grid = g;
  op.device = device;
  op.uniform = uniform;
  auto node_field = [&]<class V>(V, int w) {
    return split ? Field<V>(part.parts, part.rank, 1, w, device)
                 : Field<V>(g, Centring::node(), 1, w, device);
  };
  // The rows assembled: every node, or a part's box and its ghost rows (the whole
  // operator's rows there, so that the part equals the whole operator's cut).
  const Box rows = split ? part.parts->box(part.rank).grown(1).intersect(g.nodes()) : g.nodes();
  Field<T> u = node_field(T(), 1);
  Field<std::uint8_t> kind = node_field(std::uint8_t(), 1);
  // A part's ghost rows read elements one node further out: their marks reach two deep.
  Field<std::uint8_t> wide = split && !uniform ? node_field(std::uint8_t(), 2) : Field<std::uint8_t>();
  detail::mark_nodes(spec, wide.empty() ? kind : wide, u);
  if (!wide.empty()) {
    const FieldView<const std::uint8_t> from = wide.cview();
    const FieldView<std::uint8_t> to = kind.view();
    for_each(device, rows, [=] GRIDSOLVE_HD(int i, int j, int k) { to(i, j, k) = from(i, j, k); });
  }
  const FieldView<const std::uint8_t> kv = kind.cview();
  // A part keeps the whole problem's active box beside its own.
  auto cut_active = [&] {
    op.global_active = op.active;
    if (split) op.active = op.active.intersect(part.parts->box(part.rank));
  };

  std::int64_t unknowns = 0;
  if (uniform) {
    op.active = Box{{wraps(0) ? 0 : 1, wraps(1) ? 0 : 1, d == 3 && !wraps(2) ? 1 : 0},
                    {nx - 2, ny - 2, d == 3 ? nz - 2 : 0}};
    const Box whole_active = op.active;
    cut_active();
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
      const Samples f = spec.f_nodes.empty() ? Samples::of(spec.f, g, rows, {0, 0, 0}, device)
                                             : Samples::of_nodes(spec.f_nodes, g, device);
      const SampleView fv = f.view();
      Field<T> rhs = node_field(T(), 1);
      Field<std::uint8_t> bad = node_field(std::uint8_t(), 1);
      const FieldView<T> rv = rhs.view();
      const FieldView<std::uint8_t> bv = bad.view();
      const Box active = whole_active;
      // b of the unknowns only: f may be singular on a side.
      for_each(device, rows, [=] GRIDSOLVE_HD(int i, int j, int k) {
        if (!active.contains(i, j, k) || kv(i, j, k) != std::uint8_t(NodeKind::free)) return;
        const double fp = fv(i, j, k);
        if (!finite_number(fp)) bv(i, j, k) = bad_f;
        rv(i, j, k) = T(fp * vol);
      });
      throw_if_bad(spec, bad);
      op.rhs = std::move(rhs);
    }
    unknowns = reduce<std::int64_t>(
        device, op.active,
        [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
          return kv(i, j, k) != std::uint8_t(NodeKind::fixed) ? 1 : 0;
        },
        SumOp{}, std::int64_t(0));
    if (!spec.regions.empty()) op.mask = std::move(kind);
  } else {
    Box element_box = split ? part.parts->box(part.rank) : g.box(Centring::cell());
    element_box.centring = Centring::cell();
    Field<std::uint8_t> elements(element_box, d, 1, split ? 2 : 1, device);
    detail::mark_elements(g, wide.empty() ? kind : wide, elements);
    GhostSides element_sides;
    for (int a = 0; a < d; ++a)
      if (wraps(a)) element_sides.face[2 * a] = element_sides.face[2 * a + 1] = GhostRule::periodic;
    exchange_ghosts(elements, element_sides);  // elements across a periodic side
    const detail::ElementMarks em{elements.cview(), d};
    op.active = g.nodes();
    for (int a = 0; a < d; ++a)
      if (wraps(a)) op.active.hi[a] -= 1;
    const Box whole_active = op.active;
    cut_active();
    Field<T> ap = node_field(T(), 1), aw = node_field(T(), 1), ae = node_field(T(), 1),
             asf = node_field(T(), 1), an = node_field(T(), 1), rhs = node_field(T(), 1);
    Field<T> ab, at;
    if (d == 3) ab = node_field(T(), 1), at = node_field(T(), 1);
    const detail::AssemblyData data(spec, device, true, rows);
    const detail::FaceConductivity k_face = data.k_face;
    const SampleView fv = data.f;
    detail::SideData sides;
    for (int f = 0; f < 6; ++f) {
      sides.k[f] = data.k_side[f], sides.g[f] = data.g_side[f];
      sides.kind[f] = spec.boundaries[f].kind, sides.alpha[f] = spec.boundaries[f].alpha;
    }
    Field<std::uint8_t> bad = node_field(std::uint8_t(), 1);
    const FieldView<std::uint8_t> bv = bad.view();
    const FieldView<std::uint8_t> mv = kind.view();
    const FieldView<T> nb[6] = {aw.view(), ae.view(), asf.view(), an.view(), ab.view(), at.view()};
    const FieldView<T> apv = ap.view(), rv = rhs.view();
    const int n[3] = {nx, ny, nz};
    const double share[3] = {face_share[0], face_share[1], face_share[2]};
    const double h[3] = {g.spacing[0], g.spacing[1], g.spacing[2]};
    // One row per node, independent of the others: the loop body runs where the solve does.
    const Box active = whole_active;
    for_each(device, rows, [=] GRIDSOLVE_HD(int i, int j, int k) {
      if (!active.contains(i, j, k)) return;  // a periodic image: its unknown has the row
      std::uint8_t kd = mv(i, j, k);
      const int around = em.around(i, j, k, -1, 0);
      if (kd == std::uint8_t(NodeKind::free) && around == 0) {
        kd = std::uint8_t(NodeKind::outside);  // isolated by cut-outs: not an unknown
        mv(i, j, k) = kd;
      }
      if (kd != std::uint8_t(NodeKind::free)) return;
      const int c[3] = {i, j, k};
      double diag = 0;
      T b = 0;
      std::uint8_t wrong = 0;  // the first value found bad here
      auto check = [&](bool ok, int code) {
        if (!ok && !wrong) wrong = std::uint8_t(code);
      };
      for (int f = 0; f < 2 * d; ++f) {
        const int axis = f / 2, s = (f % 2) ? 1 : -1;
        const bool on_side = s < 0 ? c[axis] == 0 : c[axis] == n[axis] - 1;
        if (on_side && ((periodic >> axis) & 1)) {
          // Node 0's face below is the face between the last unknown and the image:
          // the same conductance both rows see, so the operator stays symmetric.
          int q[3] = {i, j, k};
          q[axis] = n[axis] - 2;
          const double area = em.around(q[0], q[1], q[2], axis, 0) * share[axis];
          if (area == 0) continue;
          const double kf = k_face(q[0], q[1], q[2], axis, 1);
          check(kf > 0 && finite_number(kf), bad_k_face + f);
          const double a = kf * area / h[axis];
          nb[f](i, j, k) = T(a);
          diag += a;
          continue;
        }
        if (on_side) {
          if (sides.kind[f] == BoundaryKind::dirichlet) continue;
          const double area = around * share[axis];
          const double kp = sides.k[f](i, j, k), gp = sides.g[f](i, j, k);
          check(kp > 0 && finite_number(kp), bad_k_side + f);
          check(finite_number(gp), bad_g_side + f);
          b += T(kp * gp * area);
          if (sides.kind[f] == BoundaryKind::robin) diag += kp * sides.alpha[f] * area;
          continue;
        }
        const double area = em.around(i, j, k, axis, s < 0 ? -1 : 0) * share[axis];
        if (area == 0) continue;
        const double kf = k_face(i, j, k, axis, s);
        check(kf > 0 && finite_number(kf), bad_k_face + f);
        const double a = kf * area / h[axis];
        nb[f](i, j, k) = T(a);
        diag += a;
      }
      const double fp = fv(i, j, k);
      check(finite_number(fp), bad_f);
      apv(i, j, k) = T(diag);
      b += T(fp * vshare * around);
      rv(i, j, k) = b;
      if (wrong) bv(i, j, k) = wrong;
    });
    throw_if_bad(spec, bad);
    if (any_outside) check_components(kind, elements, spec);
    unknowns = reduce<std::int64_t>(
        device, op.active,
        [=] GRIDSOLVE_HD(int i, int j, int k) -> std::int64_t {
          return kv(i, j, k) == std::uint8_t(NodeKind::free) ? 1 : 0;
        },
        SumOp{}, std::int64_t(0));
    op.ap = std::move(ap), op.aw = std::move(aw), op.ae = std::move(ae), op.as = std::move(asf),
    op.an = std::move(an), op.ab = std::move(ab), op.at = std::move(at);
    op.rhs = std::move(rhs);
    op.mask = std::move(kind);
  }
  if (split) unknowns = std::int64_t(Communicator::world().sum(double(unknowns)));
  op.unknowns = unknowns;
  op.parts = part.parts;
  op.rank = part.rank;
  op.jacobi_radius = jacobi_radius_estimate(spec, face_share);
  for (int f = 0; f < 6; ++f) op.sides[f] = spec.boundaries[f].kind;
  op.periodic = periodic;
  op.k_constant = spec.k.is_constant() && spec.k_nodes.empty() ? spec.k.constant : 0.0;
  op.has_cutouts = any_outside;
  for (const MaskRegion& r : spec.regions)
    op.has_fixed_regions = op.has_fixed_regions || r.kind == NodeKind::fixed;
  require(unknowns > 0, "the domain is empty: every node is fixed or outside, nothing to solve");
  if (!uniform) {
    bool anchored = false;
    for (int f = 0; f < 2 * d; ++f)
      anchored = anchored || spec.boundaries[f].kind == BoundaryKind::dirichlet ||
                 spec.boundaries[f].kind == BoundaryKind::robin;
    for (const MaskRegion& r : spec.regions) anchored = anchored || r.kind == NodeKind::fixed;
    if (!anchored) {
      op.singular = true;
      if (project) op.rhs_mismatch = remove_net_source(op, op.rhs);
    }
  }

  Discretization<T> out;
  out.op = std::move(op);
  out.u = std::move(u);
  return out;
}

}  // namespace

template <class T>
Discretization<T> assemble(const ProblemSpec& spec, Device device, const RankPart& part) {
  return assemble_rows<T>(spec, device, part, true);
}

template <class T>
Field<T> assembled_rhs(const ProblemSpec& spec, Device device) {
  require(spec.grid.geometry == Geometry::cartesian,
          "assembled_rhs: a cartesian problem (axisymmetric rows scale by the radius)");
  require(!spec.f_nodes.empty(), "assembled_rhs: the sources given per node");
  return std::move(assemble_rows<T>(spec, device, {}, false).op.rhs);
}

template <class T>
Field<T> sample_exact(const ProblemSpec& spec, Device device, const RankPart& part) {
  require(spec.exact.has_value(), "this problem has no exact solution to compare with");
  const Grid& g = spec.grid;
  Field<T> e = part.parts ? Field<T>(part.parts, part.rank, 1, 1, Device::cpu) : Field<T>(g, Device::cpu);
  const FieldView<T> v = e.view();
  const Box b = e.interior();
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
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

template <class T>
double max_error(const Discretization<T>& d, const Field<T>& exact) {
  const Field<T> u = d.u.copy_to(Device::cpu);
  const Field<std::uint8_t> mask =
      d.op.mask.empty() ? Field<std::uint8_t>() : d.op.mask.copy_to(Device::cpu);
  const RankPart part{u.shared_decomposition(), u.rank()};
  require(exact.device() == Device::cpu && exact.interior().lo == u.interior().lo &&
              exact.interior().hi == u.interior().hi,
          "max_error: the exact solution must be sampled on the CPU over u's nodes");
  const FieldView<const T> uv = u.cview(), ev = exact.cview();
  const FieldView<const std::uint8_t> mv =
      mask.empty() ? FieldView<const std::uint8_t>{} : mask.cview();
  const Box b = u.interior();
  double m = 0;
  bool nan = false;  // std::max would drop a NaN and report a fake 0
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        if (!mask.empty() && mv(i, j, k) == std::uint8_t(NodeKind::outside)) continue;
        const double diff = std::abs(double(uv(i, j, k)) - double(ev(i, j, k)));
        nan = nan || std::isnan(diff);
        m = std::max(m, diff);
      }
  if (part.parts) {  // one rank's part: the largest over all of them
    const Communicator& comm = Communicator::world();
    nan = comm.max(nan ? 1.0 : 0.0) > 0;
    m = comm.max(m);
  }
  return nan ? std::numeric_limits<double>::quiet_NaN() : m;
}

template double max_error<float>(const Discretization<float>&, const Field<float>&);
template double max_error<double>(const Discretization<double>&, const Field<double>&);
template Discretization<float> assemble<float>(const ProblemSpec&, Device, const RankPart&);
template Discretization<double> assemble<double>(const ProblemSpec&, Device, const RankPart&);
template Field<float> assembled_rhs<float>(const ProblemSpec&, Device);
template Field<double> assembled_rhs<double>(const ProblemSpec&, Device);
template double remove_net_source<float>(const StencilOperator<float>&, Field<float>&);
template double remove_net_source<double>(const StencilOperator<double>&, Field<double>&);
template Field<float> sample_exact<float>(const ProblemSpec&, Device, const RankPart&);
template Field<double> sample_exact<double>(const ProblemSpec&, Device, const RankPart&);

}  // namespace gridsolve
