// DirectPoisson: checks that a problem qualifies, packs the unknowns' right-hand side,
// runs Buneman or the transform solver, and unpacks the solution into the field.
#include "gridsolve/solve/direct_poisson.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/buneman/buneman.hpp"
#include "gridsolve/solve/fast_poisson/transform_poisson.hpp"
#include "gridsolve/solve/solve_steps.hpp"

namespace gridsolve {

template <class T>
struct DirectPoisson<T>::Cache {
  std::string key;
  std::array<int, 3> first{0, 0, 0}, m{1, 1, 1};  // the unknowns' first node and count per axis
  bool transpose = false;                         // Buneman reduces along x: rows packed transposed
  std::unique_ptr<fast_poisson::TransformPoisson<T>> fft;
  std::unique_ptr<buneman::BlockCyclicReduction<T>> bcr;
  Buffer<T> work;
};

template <class T>
DirectPoisson<T>::DirectPoisson(Kind kind) : kind_(kind), cache_(std::make_unique<Cache>()) {}
template <class T>
DirectPoisson<T>::~DirectPoisson() = default;

namespace {

template <class T>
void check_qualifies(const StencilOperator<T>& op, bool buneman) {
  std::vector<std::string> why;
  if (op.grid.geometry != Geometry::cartesian) why.push_back("an axisymmetric operator");
  if (!(op.k_constant > 0)) why.push_back("a variable coefficient k");
  if (op.has_cutouts) why.push_back("cut-out regions");
  if (op.has_fixed_regions) why.push_back("fixed interior regions");
  for (int f = 0; f < 2 * op.grid.dims; ++f) {
    const BoundaryKind k = op.sides[f];
    if (k == BoundaryKind::robin)
      why.push_back(fmt::format("a Robin side ({})", face_name(f)));
    else if (buneman && k == BoundaryKind::neumann)
      why.push_back(fmt::format("a Neumann side ({})", face_name(f)));
    else if (buneman && k == BoundaryKind::periodic)
      why.push_back(fmt::format("a periodic side ({})", face_name(f)));
  }
  if (buneman && op.grid.dims != 2) why.push_back("three dimensions");
  if (why.empty()) return;
  throw Error(fmt::format(
      "{} needs constant coefficients on a full rectangle with {} sides; this problem has {}{}",
      buneman ? "buneman" : "fft", buneman ? "Dirichlet" : "Dirichlet, Neumann or periodic",
      fmt::join(why, ", "),
      buneman ? " (fft takes Neumann and periodic sides and 3D; sor and cg take anything)"
              : " (sor and cg take anything)"));
}

// Unknowns of one axis: the nodes between its Dirichlet sides (first node, count); a
// periodic axis leaves out its last node, the first one's image.
std::pair<int, int> unknown_range(const Grid& g, const std::array<BoundaryKind, 6>& sides, int a) {
  if (sides[2 * a] == BoundaryKind::periodic) return {0, g.n[a] - 1};
  const bool lo = sides[2 * a] == BoundaryKind::dirichlet,
             hi = sides[2 * a + 1] == BoundaryKind::dirichlet;
  return {lo ? 1 : 0, g.n[a] - (lo ? 1 : 0) - (hi ? 1 : 0)};
}

fast_poisson::TransformProblem transform_problem(const Grid& g, double k,
                                                 const std::array<BoundaryKind, 6>& sides,
                                                 const std::array<int, 3>& m) {
  fast_poisson::TransformProblem p;
  p.dims = g.dims;
  p.m = m;
  p.h = g.spacing;
  p.k = k;
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s)
      p.sides[a][s] = sides[2 * a + s] == BoundaryKind::dirichlet  ? fast_poisson::Side::dirichlet
                      : sides[2 * a + s] == BoundaryKind::periodic ? fast_poisson::Side::periodic
                                                                   : fast_poisson::Side::neumann;
  return p;
}

// This rank's slab of the unknowns and how the modes split, for fft on several ranks
// (a process grid of one rank on every axis but the line axis).
SlabSplit slab_split(const Decomposition& parts, int rank, int t, int dims,
                                   const std::array<int, 3>& first, const std::array<int, 3>& m) {
  const std::array<int, 3> grid = parts.process_grid();
  for (int a = 0; a < dims; ++a)
    if (a != t && grid[a] != 1) {
      std::array<int, 3> slabs{1, 1, 1};
      slabs[t] = parts.ranks();
      throw Error(fmt::format(
          "fft on several ranks needs the grid split along {} only (slabs), got {}: use "
          "--ranks-grid {}",
          "xyz"[t], parts.describe(),
          dims == 3 ? fmt::format("{}x{}x{}", slabs[0], slabs[1], slabs[2])
                    : fmt::format("{}x{}", slabs[0], slabs[1])));
    }
  SlabSplit sp;
  sp.t = t;
  for (int a = dims - 1; a >= 0; --a)
    if (a != t) {
      sp.s = a;
      break;
    }
  sp.rank = rank;
  sp.ranks = parts.ranks();
  for (int r = 0; r < sp.ranks; ++r) {  // the process grid's ranks along t are 0, 1, ...
    sp.t_start.push_back(std::clamp(parts.box(r).lo[t] - first[t], 0, m[t]));
    sp.s_start.push_back(int(std::int64_t(m[sp.s]) * r / sp.ranks));
  }
  sp.t_start.push_back(m[t]);
  sp.s_start.push_back(m[sp.s]);
  return sp;
}

}  // namespace

template <class T>
int slab_axis(const StencilOperator<T>& op) {
  std::array<int, 3> first{0, 0, 0}, m{1, 1, 1};
  for (int a = 0; a < op.grid.dims; ++a)
    std::tie(first[a], m[a]) = unknown_range(op.grid, op.sides, a);
  return fast_poisson::line_axis_of(transform_problem(op.grid, 1.0, op.sides, m), true);
}

template <class T>
void DirectPoisson<T>::setup(const LinearOperator<T>& any) {
  this->op_ = &any;
  const StencilOperator<T>& op = this->stencil();
  const bool bcr = kind_ == Kind::buneman;
  check_qualifies(op, bcr);
  const Grid& g = op.grid;
  const int dims = g.dims;
  std::array<int, 3> first{0, 0, 0}, m{1, 1, 1};
  for (int a = 0; a < dims; ++a) std::tie(first[a], m[a]) = unknown_range(g, op.sides, a);

  // Buneman reduces rows along y when ny - 2 = 2^k - 1, else along x (transposed).
  bool transpose = false;
  if (bcr) {
    using B = buneman::BlockCyclicReduction<T>;
    if (!B::rows_allowed(m[1])) {
      if (!B::rows_allowed(m[0]))
        throw Error(fmt::format(
            "buneman needs 2^k - 1 interior nodes along x or y (2^k + 1 nodes, e.g. 1025); this "
            "grid has {} x {} nodes. fft solves any size",
            g.n[0], g.n[1]));
      transpose = true;
    }
  }
  // On several ranks (fft only) this rank solves with the others on its slab of the
  // unknowns: `first` and `m` become the slab's.
  const bool several = op.parts && op.parts->ranks() > 1;
  SlabSplit split;
  if (several) {
    const fast_poisson::TransformProblem whole = transform_problem(g, op.k_constant, op.sides, m);
    const int t = fast_poisson::line_axis_of(whole, true);
    split = slab_split(*op.parts, op.rank, t, dims, first, m);
  }
  std::string key =
      fmt::format("{} {} {} {} {} {} {} {} {}", to_string(op.device), dims, g.n[0], g.n[1], g.n[2],
                  g.spacing[0], g.spacing[1], g.spacing[2], op.k_constant);
  for (BoundaryKind s : op.sides) key += fmt::format(" {}", int(s));
  if (several) key += fmt::format(" rank {} of {}", op.rank, op.parts->describe());
  Cache& c = *cache_;
  std::array<int, 3> local_first = first, local_m = m;
  if (several) {
    local_first[split.t] += split.t_start[std::size_t(split.rank)];
    local_m[split.t] = split.t_count(split.rank);
  }
  const std::size_t count =
      std::max<std::size_t>(std::size_t(local_m[0]) * local_m[1] * local_m[2], 1);
  if (c.key != key) {
    c.fft.reset();
    c.bcr.reset();
    c.work = Buffer<T>(op.device, count);
    if (bcr) {
      const double k = op.k_constant;
      const double cx = k * g.spacing[1] / g.spacing[0], cy = k * g.spacing[0] / g.spacing[1];
      // Rows along the reduced axis couple through cs; within a row through cw.
      const double cw = transpose ? cy : cx, cs = transpose ? cx : cy;
      c.bcr = std::make_unique<buneman::BlockCyclicReduction<T>>(
          op.device, transpose ? m[0] : m[1], transpose ? m[1] : m[0], 2 * (cw + cs), cw, cs);
    } else {
      c.fft = std::make_unique<fast_poisson::TransformPoisson<T>>(
          op.device, transform_problem(g, op.k_constant, op.sides, m), split);
    }
    c.key = key;
  }
  c.first = local_first;
  c.m = local_m;
  c.transpose = transpose;
}

template <class T>
SolveReport DirectPoisson<T>::run(const Field<T>* b, Field<T>& u, const SolveOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const StencilOperator<T>& op = this->stencil();
  const bool bcr = kind_ == Kind::buneman;
  Cache& c = *cache_;
  const std::array<int, 3> first = c.first, m = c.m;
  const bool transpose = c.transpose;

  SolveReport report;
  report.solver = name();
  const bool verify = options.verify;
  const double scale = verify ? residual_scale(op, b, u, report) : 1.0;

  const StencilView<T> a = op.view(b);
  const FieldView<T> v = u.view();
  T* w = c.work.data();
  const int m0 = m[0], m1 = m[1];
  const int f0 = first[0], f1 = first[1], f2 = first[2];
  const Box box{{0, 0, 0}, {m[0] - 1, m[1] - 1, m[2] - 1}};
  // Transposed packing puts x along the reduced rows: element (i, j) at i * m1 + j.
  // Without a Dirichlet side or fixed region no neighbour is known: the source is b alone.
  bool knowns = op.has_fixed_regions;
  for (int f = 0; f < 2 * op.grid.dims; ++f)
    knowns = knowns || op.sides[f] == BoundaryKind::dirichlet;
  // Two loops, not one with a branch: the known neighbours' fold takes 96 registers, which
  // left the plain copy at a third of the threads it needs to stream (20.8 us against 6.5 for
  // the copy back of a 1024^2 grid on an H200).
  if (knowns)
    for_each(op.device, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t o = transpose ? std::int64_t(i) * m1 + j
                                       : i + std::int64_t(m0) * (j + std::int64_t(m1) * k);
      w[o] = a.known_rhs(v, i + f0, j + f1, k + f2);
    });
  else
    for_each(op.device, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t o = transpose ? std::int64_t(i) * m1 + j
                                       : i + std::int64_t(m0) * (j + std::int64_t(m1) * k);
      w[o] = a.b(i + f0, j + f1, k + f2);
    });
  if (bcr) {
    c.bcr->solve(w);
    report.kernel = "batched tridiagonal";
  } else {
    c.fft->solve(w);
    report.kernel = fmt::format("{} + tridiagonal lines", c.fft->backend());
  }
  for_each(op.device, box, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t o =
        transpose ? std::int64_t(i) * m1 + j : i + std::int64_t(m0) * (j + std::int64_t(m1) * k);
    v(i + f0, j + f1, k + f2) = w[o];
  });
  report.iterations = 1;
  if (!verify) {  // the caller checks the result its own way: no wait, no residual
    report.relative_residual = -1;
    report.converged = true;
    report.stop = StopReason::direct;
    report.reason = "direct solve (residual not measured)";
    return report;
  }
  synchronize(op.device);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report.relative_residual = op.residual_norm(b, u) / scale;
  report.converged = std::isfinite(report.relative_residual);
  report.reason = report.converged ? fmt::format("direct solve, relative residual {:.2e}",
                                                 report.relative_residual)
                                   : "the direct solve produced non-finite values";
  report.history.emplace_back(1, report.relative_residual);
  return report;
}

template class DirectPoisson<float>;
template class DirectPoisson<double>;
template int slab_axis(const StencilOperator<float>&);
template int slab_axis(const StencilOperator<double>&);

}  // namespace gridsolve
