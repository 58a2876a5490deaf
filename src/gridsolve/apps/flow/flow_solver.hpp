// FlowSolver: incompressible Navier-Stokes on a MAC grid by finite volumes; SIMPLE /
// SIMPLEC outer iterations (steady) and PISO time steps (transient), every loop on the
// solver's device through for_each / reduce, every ghost filled by exchange_ghosts. The
// steps live one file each: flow_state (setup), flow_boundaries, flow_momentum,
// flow_projection, flow_diagnostics; flow_solver.cpp holds the loops and checkpoints.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/flow/flow_checkpoint.hpp"
#include "gridsolve/apps/flow/flow_fields.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/launch_recording.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/mac_grid.hpp"
#include "gridsolve/problem/stencil_operator.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::flow {

namespace detail {
template <class T>
struct MomentumAssembly;
struct LeanRow;
}  // namespace detail

// What one iteration or step measured (filled only when asked, so the device is not
// waited on every step).
struct StepReport {
  bool measured = false;
  double continuity = 0;  // ||div u*||_2 before the last projection, per unit volume
  double divergence = 0;  // max |div u| after it, per unit volume
  double change = 0;      // max |u_new - u_old| over the faces (steady: per iteration)
  int pressure_iterations = 0;
  double pressure_residual = 0;  // relative residual of the last pressure solve
  bool pressure_converged = true;
};

struct Forces {
  double fx = 0, fy = 0;  // on all obstacles, per unit depth
};

template <class T>
class FlowSolver {
 public:
  // Under mpirun the solver splits over the run's ranks (every rank constructs it alike):
  // the cells as the ranks' boxes (Decomposition), each velocity component's faces by the
  // same cuts (a face on a cut held by the part on its high side: Decomposition::
  // staggered), every field and operator that rank's part, every ghost between the parts
  // through exchange_ghosts, every measurement summed or maximized over the ranks, the
  // pressure solved by the solver's ranks path. The state is built whole on each host and
  // cut. Unless `whole` asks for all of it on this rank alone. Periodic sides are not split
  // yet (refused on several ranks).
  FlowSolver(const FlowCase& c, Device d, bool whole = false);
  ~FlowSolver();
  // The cells' decomposition over the ranks, and component c's faces' (null: whole).
  const std::shared_ptr<const Decomposition>& cell_parts() const { return cell_parts_; }
  const std::shared_ptr<const Decomposition>& face_parts(int c) const {
    return face_parts_[std::size_t(c)];
  }

  const FlowCase& flow_case() const { return case_; }
  const MacGrid& grid() const { return grid_; }
  Device device() const { return device_; }
  double time() const { return time_; }
  std::int64_t steps() const { return steps_; }

  // Sets the velocity component c at every face from f(x, y, z) (tests, initial fields),
  // and the pressure from g when given.
  void set_velocity(int c, const std::function<double(double, double, double)>& f);
  void set_pressure(const std::function<double(double, double, double)>& g);

  // One time step of size dt by the case's transient coupling (piso_step or
  // runge_kutta_step).
  StepReport time_step(double dt, bool measure);
  // One PISO step of size dt (implicit Euler or BDF2, `correctors` pressure solves).
  StepReport piso_step(double dt, bool measure);
  // One step of the projection scheme: three Runge-Kutta stages, each explicit momentum
  // and one pressure projection (flow_runge_kutta.cpp).
  StepReport runge_kutta_step(double dt, bool measure);
  // One SIMPLE / SIMPLEC outer iteration.
  StepReport simple_iteration(bool measure);
  // The time step that keeps the CFL number at `cfl` (one reduction); for the projection
  // scheme no longer than its explicit diffusion allows (max_diffusion_number).
  double cfl_time_step(double cfl) const;

  Forces forces() const;
  // Profiling: when on, the device is waited for around each pressure solve and each
  // momentum predictor so that their time can be told apart (benchmarks only; it costs two
  // synchronizations a solve).
  void set_profiling(bool on) { profiling_ = on; }
  double pressure_seconds() const { return pressure_seconds_; }
  double predictor_seconds() const { return predictor_seconds_; }
  // The momentum predictors solved (one per component and step) and the red-black sweeps
  // they took in all.
  long long predictor_solves() const { return predictor_solves_; }
  long long predictor_sweeps() const { return predictor_sweeps_; }
  // The sweeps each component's last predictor took (where the next one starts).
  const std::array<int, 3>& predictor_counts() const { return predictor_taken_; }
  // The momentum rows' lean form (LeanRow) on uniform grids without obstacles, in the
  // implicit assembly and the explicit rate (on by default); off, the general row runs
  // everywhere (what the tests compare the lean rows with).
  void set_lean_rows(bool on) {
    lean_rows_ = on;
    step_recording_.reset();
  }
  // The shared-memory kernel for the lean rows (2D, central convection, GPU; on by
  // default); off, the generic lean rows run there (what the tests compare it with).
  void set_tuned_rows(bool on) {
    tuned_rows_ = on;
    step_recording_.reset();
  }
  // The projection scheme's unmeasured steps with the transform pressure ask the host
  // nothing: on the GPU, on one process, they are recorded once per step length and
  // replayed as one CUDA graph (on by default; off, every step launches its loops, what
  // the tests compare the replay with).
  void set_recorded_steps(bool on) {
    record_steps_ = on;
    step_recording_.reset();
  }
  // Steps that were replayed from a recording.
  long long replayed_steps() const { return replayed_steps_; }
  long long pressure_solves() const { return pressure_solves_; }
  long long pressure_iterations() const { return pressure_iterations_; }
  // Max |div u| per unit volume over fluid cells (fluxes through the faces' open parts).
  double max_divergence() const;

  // Checkpoints: save_state stores every array and scalar a later step or iteration reads
  // (the velocities of this and the two previous time levels and the pressure, ghosts
  // included; time, step, BDF2 start; the pressure operator the solver's hierarchy was
  // last built from, and its age), so that restore_state on a solver of the same case
  // continues bit for bit. That operator is kept only after keep_pressure_setup(true),
  // called before the first step of a run that writes checkpoints.
  void keep_pressure_setup(bool on) { keep_setup_ = on; }
  void save_state(Checkpoint& c) const;
  void restore_state(const Checkpoint& c);

  // The whole state in host memory, as one process holds it (ghosts included: walls
  // mirrored about their values): on ranks gathered from every part onto every rank (every
  // rank calls it), else copied. What post-processing and the result files read.
  struct WholeState {
    std::array<Field<T>, 3> u;
    Field<T> p;
    Field<std::uint8_t> solid;
  };
  WholeState whole_state() const;

  // Fields: velocity component c on its faces, pressure at cell centres (on ranks, this
  // rank's parts).
  const StaggeredField<T>& velocity(int c) const { return u_[std::size_t(c)]; }
  const StaggeredField<T>& pressure() const { return p_; }
  const Field<std::uint8_t>& solid() const { return solid_; }

  // The pieces of an iteration, one file per step (public only because CUDA's device
  // lambdas may not live in private member functions; callers use the two methods above).
  // The time derivative of a step as now u^{n+1} - previous u^n + before u^{n-1} (all zero:
  // steady).
  struct TimeWeights {
    double now = 0, previous = 0, before = 0;
  };

  // flow_boundaries.cpp: the ghost rules of every field, built once from the sides;
  // boundary faces (with `set_faces`) and every ghost layer for the inflow scaled by
  // `factor`; the ghosts of one velocity component, and of the pressure.
  void build_ghost_rules();
  // The inflow's factor at time t: sin(pi t / inflow_period) when the case ramps it, else 1.
  void ramp_inflow(double t);
  void apply_boundaries(double factor, bool set_faces = true, bool pressure = true);
  void exchange_velocity_ghosts(int comp, double factor);
  void exchange_pressure_ghosts();

  // flow_momentum.cpp. extrapolated: linearize about u_conv_ (set by
  // extrapolate_convecting_velocity) rather than the current velocity. momentum_rows: the
  // steady rows' inputs, which the implicit assembly and the explicit rate share.
  detail::MomentumAssembly<T> momentum_rows(int comp, bool extrapolated) const;
  void assemble_momentum(int c, const TimeWeights& w, double relax, bool extrapolated = false);
  void extrapolate_convecting_velocity(double omega);
  // The predictors of every component: the pressure force joins b0, then the case's
  // momentum solver (timed and counted). from_extrapolated: the sweeps start from u_conv_
  // (the BDF2 step's extrapolation of the new velocity) instead of u^n, and stop at the
  // same residual.
  void solve_momentum(int sweeps, bool from_extrapolated = false);
  // body(), with its time added to `seconds` when profiling (the device waited for before
  // and after it).
  template <class F>
  auto profiled(double& seconds, F&& body) {
    const auto t0 = std::chrono::steady_clock::now();
    if (profiling_) synchronize(device_);
    auto result = body();
    if (profiling_) {
      synchronize(device_);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return result;
  }
  // The predictors' solves themselves; returns the sweeps (or iterations) they took.
  int run_predictors(int sweeps, bool from_extrapolated);
  // The SOR factor of a predictor: the case's, or (when it leaves the choice to the
  // system) Young's optimum for rho, the largest sum |a_nb| / a_P of its rows.
  double predictor_omega(double rho) const;

  // flow_projection.cpp: `correctors` rounds of HbyA, the pressure equation, its solve and
  // the velocity correction (PISO 2, SIMPLE 1).
  void project(int correctors, bool relax_pressure, StepReport& r, bool measure);
  void compute_hbya();
  // Assembles the pressure operator (unless `coefficients` is false: the source only) and
  // its source, times `source_scale`; returns the sum of the squared source when `measure`
  // (else 0, and the source's mean is left to a solver that drops it).
  double assemble_pressure(bool coefficients = true, bool measure = true, double source_scale = 1);
  // u = HbyA + scale d (p_lo - p_hi) at every free face.
  void correct_velocity(double scale = 1);
  // The pressure solve through the registry's solver (mg by default), set up once.
  SolveReport solve_pressure(const SolveOptions& options);
  // A projection's pressure solve: the options, the transient target (absolute, and
  // relative to a source of rms `rms`), the solve timed, counted and checked into r.
  SolveOptions pressure_options() const;
  double mass_imbalance_target() const;
  double relative_target(double rms) const;
  void run_pressure_solve(const SolveOptions& options, StepReport& r);
  // Builds (fresh) or refreshes the pressure solver's hierarchy from pop_ as it is now.
  void setup_pressure(bool fresh);
  // The pressure operator's arrays (coefficients and source), in a fixed order.
  std::vector<Field<T>*> pressure_arrays();

  // flow_runge_kutta.cpp: a stage's explicit momentum of every component (u* into hbya_,
  // the rate kept in rate_), and its projection (u = u* - alpha dt grad p).
  void explicit_momentum(double gamma_dt, double rho_dt);
  // The faces of component comp within `within` that take the lean rows (LeanRow): those
  // two or more from every edge, on a uniform grid without bodies while lean rows are on;
  // else none (an empty box).
  Box lean_faces(int comp, const Box& within) const;
  // The lean row of this grid's widths.
  detail::LeanRow lean_row() const;
  void project_stage(double alpha_dt, StepReport& r, bool measure);
  // The three stages of a Runge-Kutta step and the ghosts after them.
  void runge_kutta_stages(double dt, StepReport& r, bool measure);
  // Whether this step may be replayed from (or recorded into) step_recording_.
  bool step_recordable(bool measure) const;
  // The projection scheme's fixed pressure operator (d = 1 / distance between centres)
  // and, where the transform solver takes it, its constant-coefficient description.
  void build_projection_operator();

  // flow_state.cpp: the fields, operators, masks and wall values of the case.
  void build_momentum_operator(int comp, std::array<Field<std::uint8_t>, 3>& fixed,
                               double& net_inflow, double& total_inflow);
  void build_pressure_operator(const std::array<Field<std::uint8_t>, 3>& fixed);

 private:
  // The largest change of any velocity face since u_n_ was saved.
  double velocity_change() const;
  // On ranks: a rank's largest or summed value made the run's (itself when whole).
  double max_over_ranks(double v) const;
  double sum_over_ranks(double v) const;
  // On ranks: the faces and cells of the other parts beside this one's (no rule on the
  // physical sides); nothing when whole.
  void share_ghosts(Field<T>& f) const;
  // A field of velocity component comp (-1: the pressure's cells) with `ghost` layers:
  // whole, or on ranks this rank's part; and a field made whole (wall values, bodies' faces)
  // as such a field on the run's device.
  Field<T> state_field(int comp, int ghost = 1) const;
  // On ranks: the decomposition of component comp's faces (-1: the cells).
  const std::shared_ptr<const Decomposition>& parts_of(int comp) const;
  Field<T> to_state(const Field<T>& whole, int comp) const;
  // The coefficient and source fields of component comp's operator (-1: the pressure's).
  void make_coefficient_fields(StencilOperator<T>& m, int comp) const;
  // On ranks: the operators, described whole with their masks, cut into this rank's parts
  // on the run's device, their coefficient fields made there.
  void cut_operators_into_parts();
  // Throws unless the fluid cells (pmask 0) form one region through the free faces.
  void require_connected_fluid(const Field<std::uint8_t>& pmask,
                               const std::array<Field<std::uint8_t>, 3>& fixed) const;
  FlowCase case_;
  Device device_;
  std::shared_ptr<const Decomposition> cell_parts_;
  std::array<std::shared_ptr<const Decomposition>, 3> face_parts_;
  int rank_ = 0;
  // On ranks: the wall values whole on the host (the ghosts of a gathered velocity are
  // mirrored about them), and the solid cells (they never change): the only state held
  // whole; the rest is this rank's part.
  std::array<Field<T>, 3> wall_whole_;
  Field<std::uint8_t> solid_whole_;
  MacGrid grid_;
  std::array<StaggeredField<T>, 3> u_, u_n_, u_nm1_, hbya_, b0_, d_, wall_;
  // The convecting velocity of a BDF2 step (2 u^n - u^{n-1}); scratch, rebuilt every step.
  std::array<StaggeredField<T>, 3> u_conv_;
  // The predictor's second field: its sweeps go in pairs through it where both colours
  // fit one pass (red_black_iterations); made at the first predictor that needs it.
  std::array<StaggeredField<T>, 3> sweep_second_;
  // Per face: area / distance to a body's wall, summed over the links to fixed faces.
  std::array<StaggeredField<T>, 3> body_;
  // The projection scheme: each component's momentum rate of the previous stage.
  std::array<StaggeredField<T>, 3> rate_;
  // Per face: the fraction open to the fluid (continuity counts only that part).
  std::array<StaggeredField<T>, 3> open_;
  std::array<StencilOperator<T>, 3> mom_;
  // The momentum predictor's registry row, found once from the case, and the solver of
  // each component when the row is not a red-black relaxation.
  const SolverInfo* momentum_row_ = nullptr;
  std::array<std::unique_ptr<Solver<T>>, 3> momentum_solvers_;
  StaggeredField<T> p_;
  Field<std::uint8_t> solid_;
  StencilOperator<T> pop_;
  std::unique_ptr<Solver<T>> pressure_solver_;
  std::array<bool, 3> periodic_{false, false, false};  // per axis
  // The ghost rules of each velocity component and of the pressure (build_ghost_rules);
  // the inflow sides' mirror factor is set per fill.
  std::array<GhostSides, 3> velocity_ghosts_;
  GhostSides pressure_ghosts_;
  bool pressure_ready_ = false;
  bool direct_pressure_ = false;  // the projection's pressure by the transform solver
  bool pressure_fixed_ = false;   // the operator never changes (projection): no refresh
  bool lean_rows_ = true;
  bool tuned_rows_ = true;
  bool keep_setup_ = false;
  std::vector<Field<T>> setup_coefficients_;  // pop_'s arrays at the last setup / update
  int pressure_age_ = 0;
  double time_ = 0;
  std::int64_t steps_ = 0;
  bool have_previous_ = false;  // u^{n-1} holds a step (BDF2 may start)
  double dt_previous_ = 0;      // the step that took u^{n-1} to u^n
  double inflow_factor_ = 1;
  bool profiling_ = false;
  double pressure_seconds_ = 0, predictor_seconds_ = 0;
  long long predictor_solves_ = 0, predictor_sweeps_ = 0;
  // The sweeps each component's last predictor took (the next one's first block starts
  // from it; kept in checkpoints so that a restarted run sweeps alike).
  std::array<int, 3> predictor_taken_{0, 0, 0};
  // The predictors' scalars, a slot a component (memory of the device): read back together.
  Buffer<double> predictor_results_;
  long long pressure_solves_ = 0, pressure_iterations_ = 0;
  // The recorded projection step: its length, and what its stages count on the host (a
  // replay adds it without running them).
  bool record_steps_ = true;
  LaunchRecording step_recording_;
  double recorded_dt_ = 0;
  long long recorded_solves_ = 0, recorded_iterations_ = 0, replayed_steps_ = 0;
  int recorded_report_iterations_ = 0;
};

}  // namespace gridsolve::flow
