// The flow solver's projection: HbyA (the momentum equation's velocity without the
// pressure force), the pressure equation from continuity of HbyA + d grad p, its solve
// through the registry's solver (set up once, refreshed as the coefficients drift), and
// the velocity corrected with the new pressure.
#include <algorithm>
#include <cmath>
#include <span>

#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

using namespace detail;

namespace {

// The pressure source alone (the operator unchanged): the net outflow of HbyA per cell,
// times `scale`. Dims is a compile-time constant so that the index arrays stay in registers.
template <class T, int Dims>
struct ContinuitySource {
  MacGeometry g;
  FieldView<const T> h[3], op[3];
  FieldView<const std::uint8_t> pm;
  int wrap_at[3] = {-1, -1, -1};
  bool read_image = false;
  double scale = 1;
  FieldView<T> rhs;

  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    if (pm(i, j, k)) {
      rhs(i, j, k) = 0;
      return;
    }
    const int I[3] = {i, j, k};
    double b = 0;
    GRIDSOLVE_UNROLL
    for (int q = 0; q < Dims; ++q) {
      double area = 1;
      GRIDSOLVE_UNROLL
      for (int a = 0; a < Dims; ++a)
        if (a != q) area *= g.width(a, I[a]);
      GRIDSOLVE_UNROLL
      for (int side = 0; side < 2; ++side) {
        int R[3] = {i, j, k};
        R[q] += side;
        if (!read_image && R[q] == wrap_at[q]) R[q] = 0;  // face n is face 0
        b -= (side ? 1.0 : -1.0) * area * double(at(op[q], R)) * double(at(h[q], R));
      }
    }
    rhs(i, j, k) = T(b * scale);
  }
};

// u = HbyA + scale d (p_lo - p_hi) at every free face of every component, one launch over
// the union of their boxes (the component's offset and the dimension count compile-time
// constants). Where d is one number for a component (`d_uniform` > 0: 1 / h with the
// transform pressure) it is not read: a fifth of the words the loop moves.
template <class T, int Dims>
struct VelocityCorrection {
  T scale = 1;
  FieldView<const T> p, h[3], d[3];
  T d_uniform[3] = {0, 0, 0};
  FieldView<const std::uint8_t> held[3];  // empty: no face held
  FieldView<T> u[3];
  Box active[3];

  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    const T pc = p(i, j, k);
    GRIDSOLVE_UNROLL
    for (int c = 0; c < Dims; ++c) {
      if (!active[c].contains(i, j, k) || (held[c] && held[c](i, j, k))) continue;
      const T below = p(i - (c == 0), j - (c == 1), k - (c == 2));
      const T dc = d_uniform[c] > 0 ? d_uniform[c] : d[c](i, j, k);
      u[c](i, j, k) = h[c](i, j, k) + scale * dc * (below - pc);
    }
  }
};

}  // namespace

// Pressure equation from continuity of u = HbyA + d (p_lo - p_hi), solved, then the
// velocity corrected; `correctors` times (PISO 2, SIMPLE 1).
template <class T>
void FlowSolver<T>::project(int correctors, bool relax_pressure, StepReport& r, bool measure) {
  Field<T> p_prev;
  if (relax_pressure) p_prev = p_.copy_to(device_);
  for (int corr = 0; corr < correctors; ++corr) {
    apply_boundaries(inflow_factor_);
    compute_hbya();
    // The coefficients (open area times d) stay through a step's correctors: the later
    // ones assemble the source alone.
    const double rhs_sq = assemble_pressure(corr == 0);
    const double rms = std::sqrt(rhs_sq / double(pop_.unknowns));
    if (corr == 0) r.continuity = rms;
    SolveOptions so = pressure_options();
    if (!case_.steady()) {
      if (rms <= mass_imbalance_target()) continue;  // already balanced to it
      so.tolerance = relative_target(rms);
    }
    run_pressure_solve(so, r);
    correct_velocity();
  }
  if (relax_pressure) {
    const FieldView<T> p = p_.view();
    const FieldView<const T> po = p_prev.cview();
    const T ap = T(case_.relax_p);
    for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      p(i, j, k) = po(i, j, k) + ap * (p(i, j, k) - po(i, j, k));
    });
  }
  // Ghosts only: re-extrapolating the outflow now would undo the last cells' continuity.
  apply_boundaries(inflow_factor_, false);
  if (measure) r.divergence = max_divergence();
}

// The transient target of a pressure solve: an absolute mass imbalance (the tolerance
// times the flux of one face at the reference velocity), so that a nearly balanced source
// (PISO's second corrector, a late Runge-Kutta stage) does not chase round-off relative to
// its own tiny size; and that target relative to a source of rms `rms`.
template <class T>
double FlowSolver<T>::mass_imbalance_target() const {
  double face = case_.u_ref;
  for (int q = 1; q < case_.dims; ++q) face *= grid_.min_width(q);
  return case_.pressure_tolerance * face;
}
template <class T>
double FlowSolver<T>::relative_target(double rms) const {
  return std::clamp(mass_imbalance_target() / std::max(rms, 1e-300), 1e-12, 0.5);
}

template <class T>
SolveOptions FlowSolver<T>::pressure_options() const {
  SolveOptions so;
  so.tolerance = case_.pressure_tolerance;
  so.max_iterations = 500;
  so.progress_after = 1e30;
  return so;
}

// One pressure solve: timed apart when profiling, the ghosts the correction reads
// exchanged (across periodic sides and the parts' cuts), counted; a measured residual that
// is not finite ends the run (a direct solve asked not to verify reports -1).
template <class T>
void FlowSolver<T>::run_pressure_solve(const SolveOptions& so, StepReport& r) {
  const SolveReport sr = profiled(pressure_seconds_, [&] {
    const SolveReport s = solve_pressure(so);
    if (pop_.periodic || cell_parts_) exchange_pressure_ghosts();
    return s;
  });
  ++pressure_solves_;
  pressure_iterations_ += sr.iterations;
  r.pressure_iterations += sr.iterations;
  if (sr.relative_residual < 0) return;  // not measured
  r.pressure_residual = sr.relative_residual;
  r.pressure_converged = r.pressure_converged && sr.converged;
  if (!std::isfinite(sr.relative_residual))
    throw Error("the pressure solve produced a non-finite value: the flow diverged",
                Error::Kind::runtime);
}

namespace {

// HbyA at one face of component c: (b0 + sum a_nb u_nb) / a_P, SIMPLEC's pressure term
// added; faces that are not unknowns keep their velocity.
template <class T>
struct HbyABody {
  // At most 64 registers (it took 75, three blocks an SM: under half the copy bandwidth at
  // 4096^2 on an H200).
  static constexpr int min_blocks = 4;
  StencilView<T> a;
  FieldView<const T> u, b0, d, p;
  FieldView<T> h;
  MacGeometry g;
  int c = 0;
  bool simplec = false;
  GRIDSOLVE_HD void operator()(int i, int j, int k) const {
    if (!a.active.contains(i, j, k)) {
      h(i, j, k) = u(i, j, k);
      return;
    }
    const typename StencilView<T>::Row r = a.row(i, j, k);
    if (!r.free) {
      h(i, j, k) = u(i, j, k);
      return;
    }
    T v = (b0(i, j, k) + a.neighbours(r, u, i, j, k)) / r.diag;
    if (simplec) {
      const int I[3] = {i, j, k};
      int L[3] = {i, j, k};
      L[c] -= 1;
      v += (T(face_area(g, c, I)) / r.diag - d(i, j, k)) * (at(p, L) - p(i, j, k));
    }
    h(i, j, k) = v;
  }
};

}  // namespace

// HbyA at every face (boundary faces and faces a body holds keep their value).
template <class T>
void FlowSolver<T>::compute_hbya() {
  for (int comp = 0; comp < case_.dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    HbyABody<T> body;
    body.a = mom_[c].view();
    body.u = u_[c].cview(), body.b0 = b0_[c].cview(), body.d = d_[c].cview();
    body.p = p_.cview();
    body.h = hbya_[c].view();
    body.g = grid_.geometry();
    body.c = comp;
    body.simplec = case_.coupling == Coupling::simplec;
    for_each(device_, hbya_[c].interior(), body);
    share_ghosts(hbya_[c]);  // the pressure equation reads HbyA on the faces beside its cells
  }
}

// The pressure operator (when `coefficients`) and its right-hand side (the net outflow of
// HbyA per cell, its mean removed when `measure`); returns the sum of the source's squares
// (0 unless `measure`).
template <class T>
double FlowSolver<T>::assemble_pressure(bool coefficients, bool measure, double source_scale) {
  const int dims = case_.dims;
  const auto& n = grid_.cells();
  const MacGeometry g = grid_.geometry();
  FieldView<const T> h[3], dd[3], op[3];
  FieldView<const std::uint8_t> fm[3];
  Box act[3];
  // Face n of a periodic axis is face 0: whether it is free is face 0's to say; its values
  // are read there on one process, at the image face n (kept equal to face 0 by
  // share_ghosts) on ranks, whose part may not hold face 0.
  int wrap_at[3] = {-1, -1, -1};
  for (int q = 0; q < dims; ++q)
    if (periodic_[std::size_t(q)]) wrap_at[q] = n[q];
  const bool read_image = cell_parts_ != nullptr;
  for (int q = 0; q < dims; ++q) {
    op[q] = open_[std::size_t(q)].cview();
    h[q] = hbya_[std::size_t(q)].cview();
    dd[q] = d_[std::size_t(q)].cview();
    fm[q] = mom_[std::size_t(q)].mask.cview();
    act[q] = whole_active(mom_[std::size_t(q)]);
  }
  const FieldView<const std::uint8_t> pm = pop_.mask.cview();
  const FieldView<T> ap = pop_.ap.view(), rhs = pop_.rhs.view();
  FieldView<T> nb[6] = {pop_.aw.view(), pop_.ae.view(), pop_.as.view(),
                        pop_.an.view(), FieldView<T>{}, FieldView<T>{}};
  if (dims == 3) nb[4] = pop_.ab.view(), nb[5] = pop_.at.view();
  if (!coefficients) {
    auto source = [&](auto body) {
      for (int q = 0; q < 3; ++q)
        body.h[q] = h[q], body.op[q] = op[q], body.wrap_at[q] = wrap_at[q];
      body.g = g;
      body.pm = pm;
      body.read_image = read_image;
      body.scale = source_scale;
      body.rhs = rhs;
      for_each(device_, pop_.active, body);
    };
    if (dims == 2)
      source(ContinuitySource<T, 2>{});
    else
      source(ContinuitySource<T, 3>{});
  } else {
    for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const int I[3] = {i, j, k};
      if (pm(i, j, k)) {
        if (coefficients) {
          ap(i, j, k) = 1;
          for (int f = 0; f < 2 * g.dims; ++f) nb[f](i, j, k) = 0;
        }
        rhs(i, j, k) = 0;
        return;
      }
      double sum = 0, b = 0;
      for (int q = 0; q < g.dims; ++q) {
        const double area = face_area(g, q, I);
        for (int side = 0; side < 2; ++side) {
          int F[3] = {i, j, k};
          F[q] += side;
          int W[3] = {F[0], F[1], F[2]};  // the unknown face (wrapped)
          if (W[q] == wrap_at[q]) W[q] = 0;
          const int* R = read_image ? F : W;  // where its values are read
          const bool free_face = act[q].contains(W[0], W[1], W[2]) && !at(fm[q], R);
          const double open_area = area * double(at(op[q], R));
          if (coefficients) {
            const double coef = free_face ? open_area * double(at(dd[q], R)) : 0.0;
            nb[2 * q + side](i, j, k) = T(coef);
            sum += coef;
          }
          b -= (side ? 1.0 : -1.0) * open_area * double(at(h[q], R));
        }
      }
      if (coefficients) ap(i, j, k) = T(sum);
      rhs(i, j, k) = T(b * source_scale);
    });
  }
  if (!measure) return 0;
  // Continuity of HbyA is solvable only with zero net source: remove the round-off.
  const FieldView<const T> rc = pop_.rhs.cview();
  SumPair sc = reduce<SumPair>(
      device_, pop_.active,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> SumPair {
        if (pm(i, j, k)) return SumPair{};
        const double v = rc(i, j, k);
        return SumPair{v, v * v};
      },
      SumOp{}, SumPair{});
  sc = detail::sum_over_ranks(sc, cell_parts_ != nullptr);
  const T mean = T(sc.first / double(pop_.unknowns));
  for_each(device_, pop_.active, [=] GRIDSOLVE_HD(int i, int j, int k) {
    if (!pm(i, j, k)) rhs(i, j, k) -= mean;
  });
  return sc.second;
}

// The velocity corrected with the new pressure at every free face.
template <class T>
void FlowSolver<T>::correct_velocity(double scale) {
  auto correct = [&](auto k) {
    k.scale = T(scale);
    k.p = p_.cview();
    Box all = mom_[0].active;
    const MacGeometry hg = grid_.host_geometry();
    for (int comp = 0; comp < case_.dims; ++comp) {
      const std::size_t c = std::size_t(comp);
      k.active[c] = mom_[c].active;
      k.held[c] = mom_[c].mask.cview();
      k.h[c] = hbya_[c].cview();
      k.d[c] = d_[c].cview();
      // The transform pressure's operator is the plain Laplacian of spacing h
      // (build_projection_operator): its correction is by 1 / h, one number.
      if (direct_pressure_) k.d_uniform[c] = T(1.0 / hg.width(comp, 0));
      k.u[c] = u_[c].view();
      all = all.hull(k.active[c]);
    }
    for_each(device_, all, k);
  };
  if (case_.dims == 2)
    correct(VelocityCorrection<T, 2>{});
  else
    correct(VelocityCorrection<T, 3>{});
}

template <class T>
SolveReport FlowSolver<T>::solve_pressure(const SolveOptions& options) {
  // Set up once; the coefficients change every iteration but slowly, so the hierarchy
  // (or preconditioner) of an earlier setup still makes a convergent cycle: it is
  // refreshed with update() every `lifetime` solves, and at once when a solve misses.
  constexpr int lifetime = 25;
  // The projection scheme's operator never changes: set up once, never refreshed.
  if (!pressure_ready_ || (!pressure_fixed_ && pressure_age_ >= lifetime)) {
    setup_pressure(!pressure_ready_);
    pressure_ready_ = true;
    pressure_age_ = 0;
  }
  ++pressure_age_;
  auto solve = [&] { return pressure_solver_->solve(p_, options); };
  SolveReport r = solve();
  if (!r.converged && !pressure_fixed_ && pressure_age_ > 1) {
    setup_pressure(false);
    pressure_age_ = 1;
    const SolveReport again = solve();
    const int before = r.iterations;
    r = again;
    r.iterations += before;
  }
  return r;
}

template <class T>
void FlowSolver<T>::setup_pressure(bool fresh) {
  // update() keeps the hierarchy's storage and recomputes its coarse operators: the
  // same arithmetic as setup(), so a restart that sets up afresh continues bit for bit.
  // A recorded step points at the solver's work arrays, which a setup may remake.
  step_recording_.reset();
  if (fresh)
    pressure_solver_->setup(pop_);
  else
    pressure_solver_->update(pop_);
  // A checkpoint must rebuild the same hierarchy: keep what it was built from.
  if (!keep_setup_) return;
  const std::vector<Field<T>*> arrays = pressure_arrays();
  setup_coefficients_.resize(arrays.size());
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    if (setup_coefficients_[a].empty())
      setup_coefficients_[a] = arrays[a]->copy_to(device_);
    else
      setup_coefficients_[a].copy_from(*arrays[a]);
  }
}

template <class T>
std::vector<Field<T>*> FlowSolver<T>::pressure_arrays() {
  std::vector<Field<T>*> a{&pop_.ap, &pop_.aw, &pop_.ae, &pop_.as, &pop_.an, &pop_.rhs};
  if (case_.dims == 3) a.push_back(&pop_.ab), a.push_back(&pop_.at);
  return a;
}

template void FlowSolver<double>::project(int, bool, StepReport&, bool);
template void FlowSolver<double>::compute_hbya();
template double FlowSolver<double>::assemble_pressure(bool, bool, double);
template void FlowSolver<double>::correct_velocity(double);
template double FlowSolver<double>::mass_imbalance_target() const;
template double FlowSolver<double>::relative_target(double) const;
template SolveOptions FlowSolver<double>::pressure_options() const;
template void FlowSolver<double>::run_pressure_solve(const SolveOptions&, StepReport&);
template SolveReport FlowSolver<double>::solve_pressure(const SolveOptions&);
template void FlowSolver<double>::setup_pressure(bool);
template std::vector<Field<double>*> FlowSolver<double>::pressure_arrays();

}  // namespace gridsolve::flow
