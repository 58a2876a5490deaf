// The projection (fractional-step) scheme, as CaNS and jax-cfd step: Wray's low-storage
// third-order Runge-Kutta, convection and diffusion explicit (the implicit assembly's own
// discretization, applied rather than stored), one pressure projection a stage. Per stage:
//   u* = u + dt (gamma R(u) + rho R_previous),  div(grad p) = div u* / (alpha dt),
//   u = u* - alpha dt grad p,  alpha = gamma + rho.
// The pressure operator never changes, so it is assembled once; on a uniform periodic grid
// the transform solver solves it directly.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include "gridsolve/apps/flow/flow_central_rates.hpp"
#include "gridsolve/apps/flow/flow_loop_helpers.hpp"
#include "gridsolve/apps/flow/flow_momentum_assembly.hpp"
#include "gridsolve/apps/flow/flow_solver.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::flow {

using namespace detail;

namespace {

// Wray's coefficients (Spalart, Moser and Rogers 1991): stage s adds gamma_s R(u_s) +
// rho_s R(u_{s-1}); the stages end at t + (8/15, 2/3, 1) dt.
constexpr double k_gamma[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
constexpr double k_rho[3] = {0.0, -17.0 / 60.0, -5.0 / 12.0};

}  // namespace

template <class T>
StepReport FlowSolver<T>::time_step(double dt, bool measure) {
  return case_.coupling == Coupling::projection ? runge_kutta_step(dt, measure)
                                                : piso_step(dt, measure);
}

template <class T>
void FlowSolver<T>::build_projection_operator() {
  const int dims = case_.dims;
  const MacGeometry g = grid_.geometry();
  for (int comp = 0; comp < dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    rate_[c] = state_field(comp);
    // u = u* + d (psi_lo - psi_hi): d is one over the distance between the centres.
    const FieldView<T> d = d_[c].view();
    for_each(device_, d_[c].interior(), [=] GRIDSOLVE_HD(int i, int j, int k) {
      const int I[3] = {i, j, k};
      d(i, j, k) = T(1.0 / (g.xc(comp, I[comp]) - g.xc(comp, I[comp] - 1)));
    });
    share_ghosts(d_[c]);
  }
  assemble_pressure(true, false);
  if (case_.direct_pressure()) {
    // Checked by FlowCase::validate: uniform, periodic, no obstacle. The coefficients are
    // then area / distance = k prod_{b != a} h_b / h_a with k = 1, as the transform
    // solver's operator.
    const MacGeometry hg = grid_.host_geometry();
    pop_.k_constant = 1;
    for (int a = 0; a < dims; ++a) {
      pop_.grid.spacing[std::size_t(a)] = hg.width(a, 0);
      pop_.sides[std::size_t(2 * a)] = pop_.sides[std::size_t(2 * a + 1)] = BoundaryKind::periodic;
    }
    direct_pressure_ = true;
  }
  pressure_fixed_ = true;
}

// u* of every component at every face of its storage's interior: the explicit momentum
// (MomentumRate) where the face is an unknown, its present value elsewhere. On a uniform
// grid without obstacles the faces two or more from every edge take the lean rows (in 2D
// with central convection on the GPU, both components at once through shared memory), the
// frame the general row.
template <class T>
void FlowSolver<T>::explicit_momentum(double gamma_dt, double rho_dt) {
  const int dims = case_.dims;
  std::array<MomentumRate<T>, 3> rows;
  std::array<LeanMomentumRate<T>, 3> lean;
  std::array<Box, 3> inner;
  bool all_lean = true;
  for (int comp = 0; comp < dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    MomentumRate<T>& k = rows[c];
    k.m = momentum_rows(comp, false);
    k.active = mom_[c].active;
    k.gamma_dt = gamma_dt;
    k.rho_dt = rho_dt;
    k.star = hbya_[c].view();
    k.rate = rate_[c].view();
    lean[c].base = k;
    lean[c].lean = lean_row();
    inner[c] = lean_faces(comp, hbya_[c].interior());
    all_lean = all_lean && !inner[c].empty();
  }
  bool tuned = false;
#if GRIDSOLVE_HAVE_CUDA
  if (all_lean && tuned_rows_ && dims == 2 && device_ == Device::cuda &&
      case_.convection == Convection::central && std::is_same_v<T, double>) {
    CentralRates2d t;
    t.u = u_[0].cview();
    t.v = u_[1].cview();
    for (int c = 0; c < 2; ++c) {
      t.star[c] = hbya_[std::size_t(c)].view();
      t.rate[c] = rate_[std::size_t(c)].view();
      t.inner[c] = inner[std::size_t(c)];
      t.half_area[c] = 0.5 * lean[0].lean.area[c];
      t.diffusion[c] = lean[0].lean.diffusion[c];
    }
    t.inv_volume = lean[0].lean.inv_volume;
    t.gamma_dt = gamma_dt;
    t.rho_dt = rho_dt;
    central_rates_2d(t);
    tuned = true;
  }
#endif
  // The lean rows where they apply and their frames in one launch; a component without lean
  // rows (a part too thin for them, or cells not uniform) takes the general row everywhere.
  std::array<Box, 3> outer;  // empty: that component has no frame
  bool frames = false;
  for (int comp = 0; comp < dims; ++comp) {
    const std::size_t c = std::size_t(comp);
    if (!inner[c].empty()) {
      if (!tuned) for_each_fixed(device_, inner[c], dims, comp, lean[c]);
      outer[c] = hbya_[c].interior();
      frames = true;
    } else {
      for_each_fixed(device_, hbya_[c].interior(), dims, comp, rows[c]);
    }
  }
  if (frames) for_each_frame(device_, outer, inner, dims, rows);
  // The pressure source reads u* on the faces beside its cells.
  for (int comp = 0; comp < dims; ++comp) share_ghosts(hbya_[std::size_t(comp)]);
}

// The projection of one stage: the source div u* / (alpha dt), the pressure from the
// operator (its first guess for an iterative solver: the last stage's), and the velocity
// corrected by alpha dt grad p.
template <class T>
void FlowSolver<T>::project_stage(double alpha_dt, StepReport& r, bool measure) {
  // A direct solve drops the source's mean itself; an iterative one needs it removed.
  const bool full = measure || !direct_pressure_;
  const double rhs_sq = assemble_pressure(false, full, 1.0 / alpha_dt);
  const double rms = std::sqrt(rhs_sq / double(pop_.unknowns)) * alpha_dt;  // of div u*
  if (measure) r.continuity = rms;
  SolveOptions so = pressure_options();
  if (!direct_pressure_) so.tolerance = relative_target(rms);
  so.verify = measure;
  run_pressure_solve(so, r);
  correct_velocity(alpha_dt);
}

template <class T>
void FlowSolver<T>::runge_kutta_stages(double dt, StepReport& r, bool measure) {
  double reached = 0;  // the stage's end, in steps
  for (int s = 0; s < 3; ++s) {
    const double alpha = k_gamma[s] + k_rho[s];
    reached += alpha;
    // The boundary values of the stage's end, which its projection balances the mass of
    // (a ramped inflow then enters the rate a stage early: first order in time there).
    ramp_inflow(time_ + reached * dt);
    // The pressure's ghosts are the last projection's (the stages do not read them before).
    apply_boundaries(inflow_factor_, true, s == 0);
    explicit_momentum(k_gamma[s] * dt, k_rho[s] * dt);
    project_stage(alpha * dt, r, measure && s == 2);
  }
  // Ghosts only: re-extrapolating the outflow now would undo the last cells' continuity.
  apply_boundaries(inflow_factor_, false);
}

// A step's stages read back nothing when the transform solver takes the pressure (no
// residual checks) and nothing is measured; the inflow must not ramp (its factor would be
// recorded), and the first step runs directly (it makes the solvers' work arrays).
template <class T>
bool FlowSolver<T>::step_recordable(bool measure) const {
  return record_steps_ && device_ == Device::cuda && direct_pressure_ && !measure && !profiling_ &&
         !cell_parts_ && case_.inflow_period <= 0 && steps_ > 0;
}

template <class T>
StepReport FlowSolver<T>::runge_kutta_step(double dt, bool measure) {
  require(dt > 0 && std::isfinite(dt), fmt::format("time step {} is not positive", dt));
  const int dims = case_.dims;
  StepReport r;
  r.measured = measure;
  if (measure)
    for (int c = 0; c < dims; ++c) u_n_[std::size_t(c)].copy_from(u_[std::size_t(c)]);
  if (step_recordable(measure)) {
    // Every launch is recorded with its step length: another one records again.
    if (dt != recorded_dt_) step_recording_.reset();
    recorded_dt_ = dt;
    const long long solves = pressure_solves_, iterations = pressure_iterations_;
    bool ran = false;
    step_recording_.run(device_, u_[0].storage(), p_.storage(), [&] {
      ran = true;
      runge_kutta_stages(dt, r, false);
    });
    if (ran) {
      recorded_solves_ = pressure_solves_ - solves;
      recorded_iterations_ = pressure_iterations_ - iterations;
      recorded_report_iterations_ = r.pressure_iterations;
    } else {
      pressure_solves_ += recorded_solves_;
      pressure_iterations_ += recorded_iterations_;
      r.pressure_iterations = recorded_report_iterations_;
      ++replayed_steps_;
    }
  } else {
    runge_kutta_stages(dt, r, measure);
  }
  if (measure) r.divergence = max_divergence();
  time_ += dt;
  dt_previous_ = dt;
  ++steps_;
  if (measure) r.change = std::max(r.change, velocity_change());
  return r;
}

template StepReport FlowSolver<double>::time_step(double, bool);
template StepReport FlowSolver<double>::runge_kutta_step(double, bool);
template void FlowSolver<double>::build_projection_operator();
template void FlowSolver<double>::explicit_momentum(double, double);
template void FlowSolver<double>::project_stage(double, StepReport&, bool);
template void FlowSolver<double>::runge_kutta_stages(double, StepReport&, bool);
template bool FlowSolver<double>::step_recordable(bool) const;

}  // namespace gridsolve::flow
