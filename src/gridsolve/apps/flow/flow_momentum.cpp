// The flow solver's momentum step: each velocity component's equation assembled on its
// faces (flow_momentum_assembly.hpp), the BDF2 step's extrapolated convecting velocity,
// and the predictor: red-black SOR sweeps (over-relaxed by predictor_omega, to the
// case's residual fall) or BiCGStab.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_momentum_assembly.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/sum_of_squares.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/solve/red_black_sor.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve::flow {

using namespace detail;

namespace {

// The predictor's right-hand side at a face of component c: b0 and the pressure force.
template <class T>
GRIDSOLVE_HD T predictor_rhs(const MacGeometry& g, int c, const FieldView<const T>& b0,
                             const FieldView<const T>& p, int i, int j, int k) {
  const int I[3] = {i, j, k};
  int L[3] = {i, j, k};
  L[c] -= 1;
  return b0(i, j, k) + T(face_area(g, c, I)) * (at(p, L) - p(i, j, k));
}

// What the predictor reads of the rows before it sweeps: the residual of u^n (what its
// tolerance is a fall from) and rho, the largest sum |a_nb| / a_P (predictor_omega).
struct PredictorStart {
  SumOfSquares residual;
  double rho = 0;
};
struct PredictorStartOp {
  GRIDSOLVE_HD PredictorStart operator()(const PredictorStart& a, const PredictorStart& b) const {
    return PredictorStart{a.residual + b.residual, a.rho > b.rho ? a.rho : b.rho};
  }
};

// One pass for the three: the right-hand side written, the residual of u (the velocity of
// the last step) and the row's sum |a_nb| / a_P read at each free face. (Three loops
// read the rows three times: at 4096^2 they took 0.65 ms a predictor on an H200.)
template <class T>
struct PredictorStartBody {
  StencilView<T> a;  // without its right-hand side: the body makes it
  MacGeometry g;
  int c = 0;
  FieldView<const T> b0, p, u;
  FieldView<T> rhs;
  GRIDSOLVE_HD PredictorStart operator()(int i, int j, int k) const {
    const T b = predictor_rhs(g, c, b0, p, i, j, k);
    rhs(i, j, k) = b;
    typename StencilView<T>::Row r = a.row(i, j, k);
    if (!r.free) return PredictorStart{};
    r.b = b;
    double s = std::abs(double(r.w)) + std::abs(double(r.e)) + std::abs(double(r.s)) +
               std::abs(double(r.n));
    if (a.dims == 3) s += std::abs(double(r.bottom)) + std::abs(double(r.top));
    return PredictorStart{SumOfSquares::of(double(a.residual(r, u, i, j, k))),
                          s / std::abs(double(r.diag))};
  }
};

}  // namespace

// The steady rows' inputs of component comp (the velocity that convects, the wall values,
// the bodies, the sides): what the implicit assembly and the explicit rate share.
template <class T>
MomentumAssembly<T> FlowSolver<T>::momentum_rows(int comp, bool extrapolated) const {
  MomentumAssembly<T> m;
  m.g = grid_.geometry();
  m.c = comp;
  m.scheme = int(case_.convection);
  for (int s = 0; s < 6; ++s) m.side_type[s] = side_code(case_.sides[std::size_t(s)].type);
  for (int q = 0; q < 3; ++q) m.periodic[q] = periodic_[std::size_t(q)];
  m.nu = T(case_.nu);
  m.factor = T(inflow_factor_);
  const auto& convecting = extrapolated ? u_conv_ : u_;
  for (int q = 0; q < case_.dims; ++q)
    m.u[q] = convecting[std::size_t(q)].cview(), m.open[q] = open_[std::size_t(q)].cview();
  const std::size_t c = std::size_t(comp);
  m.wall = wall_[c].cview();
  m.body = body_[c].cview();
  m.fmask = mom_[c].mask.cview();
  const auto ext = face_extent(grid_.cells(), comp);
  m.ext = Box{{-1, -1, -1}, {ext[0], ext[1], ext[2]}};
  // On ranks the limited schemes' far face across a periodic side is in the second ghost
  // layer (filled from the other end), where one process wraps the index round instead.
  if (cell_parts_)
    for (int q = 0; q < case_.dims; ++q)
      if (periodic_[std::size_t(q)]) m.periodic[q] = false, m.ext.lo[q] = -2, m.ext.hi[q] += 1;
  return m;
}

template <class T>
Box FlowSolver<T>::lean_faces(int comp, const Box& within) const {
  const int dims = case_.dims;
  bool uniform = lean_rows_ && case_.obstacles.empty();
  for (int a = 0; a < dims; ++a)
    uniform = uniform && case_.spacing[std::size_t(a)].kind == AxisSpacing::Kind::uniform;
  if (!uniform) return Box{};
  const auto ext = face_extent(grid_.cells(), comp);
  Box inner;
  for (int a = 0; a < 3; ++a) {
    inner.lo[a] = a < dims ? 2 : 0;
    inner.hi[a] = a < dims ? ext[std::size_t(a)] - 3 : ext[std::size_t(a)] - 1;
  }
  return inner.intersect(within);  // on ranks: this part's share
}

template <class T>
LeanRow FlowSolver<T>::lean_row() const {
  const MacGeometry hg = grid_.host_geometry();
  double h[3];
  for (int a = 0; a < 3; ++a) h[a] = hg.width(a, 0);
  LeanRow r;
  r.set_widths(h, case_.nu);
  return r;
}

// The rows of component comp: the lean ones where they apply, the general row on the frame
// around them (or everywhere).
template <class T>
void FlowSolver<T>::assemble_momentum(int comp, const TimeWeights& w, double relax,
                                      bool extrapolated) {
  MomentumAssembly<T> m = momentum_rows(comp, extrapolated);
  m.tcoef = T(w.now);
  m.c_n = T(w.previous);
  m.c_nm1 = T(w.before);
  m.transient = w.now > 0;
  m.relax = T(relax);
  m.simplec = case_.coupling == Coupling::simplec;
  const std::size_t c = std::size_t(comp);
  m.un = u_n_[c].cview();
  m.unm1 = u_nm1_[c].cview();
  StencilOperator<T>& op = mom_[c];
  m.ap = op.ap.view();
  m.a[0] = op.aw.view(), m.a[1] = op.ae.view(), m.a[2] = op.as.view(), m.a[3] = op.an.view();
  if (case_.dims == 3) m.a[4] = op.ab.view(), m.a[5] = op.at.view();
  m.b0 = b0_[c].view();
  m.d = d_[c].view();
  const Box inner = lean_faces(comp, op.active);
  if (inner.empty()) {
    for_each_fixed(device_, op.active, case_.dims, comp, m);
  } else {
    const LeanMomentumAssembly<T> lean{m, lean_row()};
    for_each_fixed(device_, inner, case_.dims, comp, lean);
    std::array<Box, 3> outer, within;
    std::array<MomentumAssembly<T>, 3> rows;
    outer[c] = op.active, within[c] = inner, rows[c] = m;
    for_each_frame(device_, outer, within, case_.dims, rows);
  }
  share_ghosts(d_[c]);  // the pressure equation reads d on the faces beside its cells
}

// The velocity a BDF2 step linearizes its momentum equation about: (1 + omega) u^n -
// omega u^{n-1} (omega = dt / previous dt; 2 u^n - u^{n-1} for equal steps), ghosts and
// boundary faces included (their time levels extrapolate the same way). Linearized
// about u^n, the convecting fluxes and the limited correction lag by a step and the scheme
// is first order in time: DFG 2D-2's lift amplitude then moved by 6% when the step was
// halved at 16 cells per diameter, and by 3% at 32.
template <class T>
void FlowSolver<T>::extrapolate_convecting_velocity(double omega) {
  const T a = T(1 + omega), b = T(omega);
  for (int c = 0; c < case_.dims; ++c) {
    const std::size_t s = std::size_t(c);
    const T* un = u_n_[s].storage();
    const T* unm1 = u_nm1_[s].storage();
    T* out = u_conv_[s].storage();
    const int count = int(u_conv_[s].storage_size());
    for_each(device_, Box{{0, 0, 0}, {count - 1, 0, 0}},
             [=] GRIDSOLVE_HD(int i, int, int) { out[i] = a * un[i] - b * unm1[i]; });
  }
}

// Predictors: timed apart when profiling, their sweeps counted.
template <class T>
void FlowSolver<T>::solve_momentum(int sweeps, bool from_extrapolated) {
  predictor_sweeps_ +=
      profiled(predictor_seconds_, [&] { return run_predictors(sweeps, from_extrapolated); });
  predictor_solves_ += case_.dims;
}

// The pressure force joins b0, then red-black SOR sweeps (or BiCGStab), every component's.
// The components' rows were assembled before and each sweep reads its own component only,
// so their sweeps go side by side and the values they read back (the starts, and each
// round's residuals) are read for all of them at once: one wait on the host a round where
// one a component was. Each component's sweeps and tests are what it alone would do.
template <class T>
int FlowSolver<T>::run_predictors(int sweeps, bool from_extrapolated) {
  const int dims = case_.dims;
  const MacGeometry g = grid_.geometry();
  const bool red_black = momentum_row_->red_black;
  const double tolerance = case_.predictor_tolerance();
  const bool rows_omega = red_black && momentum_row_->reads.omega && case_.predictor_omega() <= 0;
  // A component's scalars read back: its start, then its residual each round.
  static_assert(sizeof(PredictorStart) % sizeof(double) == 0 &&
                sizeof(SumOfSquares) % sizeof(double) == 0);
  constexpr std::size_t slot = std::max(sizeof(PredictorStart), sizeof(SumOfSquares));
  if (predictor_results_.size() < 3 * slot / sizeof(double))
    predictor_results_ = Buffer<double>(device_, 3 * slot / sizeof(double));
  auto slot_of = [&](int c) { return predictor_results_.data() + c * (slot / sizeof(double)); };
  // Every component's slot read back with one wait; `as` a component's value from it.
  std::array<double, 3 * slot / sizeof(double)> held{};
  auto read_slots = [&] {
    read_results(device_, predictor_results_.data(), held.data(), dims * slot / sizeof(double));
  };
  auto as = [&]<class V>(int c, V& value) {
    static_assert(std::is_trivially_copyable_v<V>);
    std::memcpy(static_cast<void*>(&value), held.data() + c * (slot / sizeof(double)), sizeof(V));
  };
  std::array<double, 3> start{}, rho{};
  for (int comp = 0; comp < dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    StencilOperator<T>& op = mom_[c];
    const FieldView<const T> b0 = b0_[c].cview(), p = p_.cview();
    const FieldView<T> rhs = op.rhs.view();
    if (red_black && (tolerance > 0 || rows_omega)) {
      op.refresh_images(u_[c]);
      PredictorStartBody<T> body;
      body.a = op.view();
      body.a.rhs = FieldView<const T>{};
      body.a.find_shared_layout();
      body.g = g, body.c = comp, body.b0 = b0, body.p = p, body.u = u_[c].cview(), body.rhs = rhs;
      reduce_into<PredictorStart>(device_, op.active, body, PredictorStartOp{}, PredictorStart{},
                                  reinterpret_cast<PredictorStart*>(slot_of(comp)));
    } else {
      for_each(device_, op.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
        rhs(i, j, k) = predictor_rhs(g, comp, b0, p, i, j, k);
      });
    }
  }
  if (red_black && (tolerance > 0 || rows_omega)) {
    read_slots();
    for (int c = 0; c < dims; ++c) {
      PredictorStart s;
      as(c, s);
      start[std::size_t(c)] =
          (cell_parts_ ? Communicator::world().sum_in_rank_order(s.residual) : s.residual).norm();
      rho[std::size_t(c)] = max_over_ranks(s.rho);
    }
  }
  if (!red_black) {
    // A registry solver (BiCGStab, Jacobi-preconditioned, say): to the momentum tolerance
    // (default 1e-6 relative).
    int iterations = 0;
    for (std::size_t c = 0; c < std::size_t(dims); ++c) {
      Solver<T>& solver = *momentum_solvers_[c];
      solver.setup(mom_[c]);
      SolveOptions so;
      so.tolerance = case_.momentum_tolerance > 0 ? case_.momentum_tolerance : 1e-6;
      so.max_iterations = 200;
      so.progress_after = 1e30;
      iterations += solver.solve(u_[c], so).iterations;
    }
    return iterations;
  }
  // The solve layer's red-black iteration on the momentum operator: it refreshes the
  // periodic images before each colour (walls and inflows are folded into the rows, so
  // no other ghost is read); the velocity's other ghosts are refreshed once at the end.
  const bool wraps = periodic_[0] || periodic_[1] || periodic_[2];
  auto sweep = [&](int comp, int count) {
    const std::size_t c = std::size_t(comp);
    const T omega = T(momentum_row_->reads.omega ? predictor_omega(rho[c]) : 1.0);
    red_black_iterations(mom_[c], u_[c], omega, count, sweep_second_[c]);
    if (wraps) exchange_velocity_ghosts(comp, inflow_factor_);
  };
  if (tolerance <= 0) {
    for (int c = 0; c < dims; ++c) sweep(c, sweeps);
    return dims * sweeps;
  }
  // Residual control: one reduction after each block of sweeps. The target is the
  // residual fall from u^n (start), what measures how far the step moves the velocity.
  // Started from the BDF2 extrapolation (1 + omega) u^n - omega u^{n-1}, a step's change
  // nearer, the sweeps reach that same residual sooner.
  if (from_extrapolated) {
    for (int comp = 0; comp < dims; ++comp) {
      const std::size_t c = std::size_t(comp);
      const StencilView<T> a = mom_[c].view();
      const FieldView<const T> guess = u_conv_[c].cview();
      const FieldView<T> u = u_[c].view();
      for_each(device_, mom_[c].active, [=] GRIDSOLVE_HD(int i, int j, int k) {
        if (a.is_free(i, j, k)) u(i, j, k) = guess(i, j, k);
      });
      if (wraps) exchange_velocity_ghosts(comp, inflow_factor_);
    }
  }
  // A component's first block is what its last predictor took, less half a block, and the
  // blocks after it are half blocks: the count follows the step's needs to half a block
  // with about two checks a predictor (a check reads the rows as a sweep does), where
  // whole blocks from the start overshot by up to a block and checked after each. At most
  // 100 blocks' sweeps.
  const int half = std::max(1, sweeps / 2);
  std::array<int, 3> block{}, taken{};
  std::array<bool, 3> done{true, true, true};
  for (std::size_t c = 0; c < std::size_t(dims); ++c) {
    block[c] = std::max(sweeps, predictor_taken_[c] - half);
    done[c] = false;
  }
  while (!(done[0] && done[1] && done[2])) {
    for (int c = 0; c < dims; ++c) {
      if (done[std::size_t(c)]) continue;
      sweep(c, block[std::size_t(c)]);
      taken[std::size_t(c)] += block[std::size_t(c)];
      mom_[std::size_t(c)].residual_squares_into(nullptr, u_[std::size_t(c)],
                                                 reinterpret_cast<SumOfSquares*>(slot_of(c)));
    }
    read_slots();
    for (std::size_t c = 0; c < std::size_t(dims); ++c) {
      if (done[c]) continue;
      SumOfSquares r;
      as(int(c), r);
      const double residual =
          (mom_[c].parts ? Communicator::world().sum_in_rank_order(r) : r).norm();
      if (residual <= tolerance * start[c] || taken[c] >= 100 * sweeps)
        done[c] = true;
      else
        block[c] = half;
    }
  }
  int total = 0;
  for (std::size_t c = 0; c < std::size_t(dims); ++c) {
    predictor_taken_[c] = taken[c];
    total += taken[c];
  }
  return total;
}

// On fine grids a PISO step's momentum rows are diffusion-dominated (the time term,
// volume / dt ~ h at a fixed CFL number, fades against diffusion's ~1): Gauss-Seidel then
// needs many sweeps, and over-relaxation saves most of them; where the time term
// dominates, Gauss-Seidel is already best. rho, the largest sum |a_nb| / a_P, bounds
// the Jacobi iteration's spectral radius, and red-black ordering makes Young's
// optimal_omega(rho) the best factor for the symmetric (diffusion) part. It is
// capped at 1.3: convection makes the rows nonsymmetric, and on the 4096^2 cavity 1.5
// was no faster than 1.3 and 1.7 slower than 1.0. Recomputed every predictor, from the
// rows alone, so that a restarted run takes the same factors.
template <class T>
double FlowSolver<T>::predictor_omega(double rho) const {
  const double chosen = case_.predictor_omega();
  if (chosen > 0) return chosen;
  if (!(rho < 1)) return 1.0;  // no diagonal dominance (or NaN): no over-relaxation
  return std::clamp(optimal_omega(rho), 1.0, 1.3);
}

template MomentumAssembly<double> FlowSolver<double>::momentum_rows(int, bool) const;
template void FlowSolver<double>::assemble_momentum(int, const TimeWeights&, double, bool);
template void FlowSolver<double>::extrapolate_convecting_velocity(double);
template Box FlowSolver<double>::lean_faces(int, const Box&) const;
template LeanRow FlowSolver<double>::lean_row() const;
template void FlowSolver<double>::solve_momentum(int, bool);
template int FlowSolver<double>::run_predictors(int, bool);
template double FlowSolver<double>::predictor_omega(double) const;

}  // namespace gridsolve::flow
