// FlowCase: everything that defines an incompressible-flow run (domain, grid, fluid,
// boundaries, obstacles, schemes, time control), its checks, and the benchmark presets.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gridsolve/problem/expression.hpp"
#include "gridsolve/problem/mac_grid.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::flow {

// The largest velocity (or pressure) a case may give: squares and fluxes of larger
// values overflow double precision long before any physical flow gets there.
constexpr double k_largest_speed = 1e100;

enum class SideType {
  wall,      // no slip; moving with `velocity` (tangential components)
  velocity,  // every component given by formulas (an inflow profile)
  outflow,   // zero gradient, the outflow rescaled to the inflow (global mass balance)
  symmetry,  // no normal flow, zero tangential stress
  periodic,  // joined to the opposite side
};
SideType parse_side_type(const std::string& text);
std::string to_string(SideType t);

struct SideCondition {
  SideType type = SideType::wall;
  std::array<double, 3> velocity{0, 0, 0};  // wall: its velocity (the normal part must be 0)
  std::array<Expression, 3> profile{Expression::value(0), Expression::value(0),
                                    Expression::value(0)};  // velocity sides: u, v, w(x, y, z)
};

struct Obstacle {
  enum class Shape { circle, rectangle, polygon };
  Shape shape = Shape::circle;
  std::array<double, 2> centre{0, 0};  // circle
  double radius = 0;
  std::array<double, 2> lo{0, 0}, hi{0, 0};     // rectangle
  std::vector<std::array<double, 2>> vertices;  // polygon: simple, either orientation
  // Closed shapes: a point on the outline is inside (as for the rectangle).
  bool contains(double x, double y) const;
  // Inside and not on the outline (a point on a body's surface is not strictly inside).
  bool strictly_contains(double x, double y) const;
  std::string describe() const;
};

// How obstacles meet the MAC grid: `immersed` (velocity faces inside a shape are fixed,
// the faces beside them see the wall at its true distance along the grid line; second
// order) or `staircase` (cells whose centre lies inside are solid; first order).
enum class ObstacleTreatment { immersed, staircase };
ObstacleTreatment parse_obstacle_treatment(const std::string& text);
std::string to_string(ObstacleTreatment t);

// tvd, quick and central are upwind plus a deferred correction toward a higher-order
// face value: van Leer's limited one (bounded), QUICK's, or linear interpolation.
// The momentum assembly takes the values as its scheme codes: keep the order.
enum class Convection { upwind, hybrid, tvd, quick, central };
// piso: implicit momentum, pressure correctors (any step, steady problems too).
// projection: the fractional-step scheme, explicit momentum in Runge-Kutta stages, one
// pressure projection a stage (small steps, fast ones).
enum class Coupling { simple, simplec, piso, projection };
// euler and bdf2 go with piso; rk3 (low-storage, third order) with projection.
enum class TimeScheme { euler, bdf2, rk3 };
// The momentum predictor's solver: red-black SOR sweeps, or BiCGStab.
// The momentum predictor's solver: a row of the solver registry that takes nonsymmetric,
// variable-coefficient rows. A red-black row (sor, rb-gs) runs the predictor's own sweeps
// (to the momentum tolerance, over-relaxed by the rows' factor); any other (bicgstab,
// jacobi, ...) solves the rows to the momentum tolerance. Throws Error naming the reason.
const SolverInfo& momentum_solver_row(const std::string& name);
Convection parse_convection(const std::string& text);
Coupling parse_coupling(const std::string& text);
TimeScheme parse_time_scheme(const std::string& text);
std::string to_string(Convection c);
std::string to_string(Coupling c);
std::string to_string(TimeScheme t);

// Which benchmark a case is, so the run knows what to measure and compare.
enum class Benchmark { none, cavity, dfg };

struct FlowCase {
  std::string name = "flow";
  Benchmark benchmark = Benchmark::none;
  int dims = 2;
  std::array<int, 3> cells{64, 64, 1};
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};
  std::array<AxisSpacing, 3> spacing{};
  double nu = 0.01;                      // kinematic viscosity (density 1)
  std::array<SideCondition, 6> sides{};  // x_low, x_high, y_low, y_high, z_low, z_high
  std::vector<Obstacle> obstacles;
  // The state at t = 0 (formulas of x, y, z); without it the fluid starts at rest.
  bool has_initial = false;
  std::array<Expression, 3> initial_velocity{Expression::value(0), Expression::value(0),
                                             Expression::value(0)};
  Expression initial_pressure = Expression::value(0);
  ObstacleTreatment obstacle_treatment = ObstacleTreatment::immersed;

  Convection convection = Convection::tvd;
  Coupling coupling = Coupling::piso;
  TimeScheme time_scheme = TimeScheme::bdf2;
  // Steady (SIMPLE / SIMPLEC): under-relaxation, iteration cap, convergence on the
  // largest velocity change per iteration relative to the reference velocity.
  double relax_u = 0.7, relax_p = 0.3;
  int max_iterations = 20000;
  double steady_tolerance = 1e-6;
  // Transient (PISO): end time, CFL target (0: fixed dt), fixed dt, pressure correctors.
  double t_end = 1;
  double cfl = 0.5;
  double dt = 0;
  int correctors = 2;
  // Inflow in time: sides of type velocity are multiplied by sin(pi t / inflow_period)
  // when inflow_period > 0 (DFG 2D-3), else constant.
  double inflow_period = 0;
  // Linear solvers: momentum sweeps of red-black SOR per predictor, pressure tolerance
  // (relative residual), the pressure solver's name.
  std::string momentum_solver = "sor";  // a registry row: sor (red-black sweeps), bicgstab, ...
  int momentum_sweeps = 4;
  double momentum_omega = -1;  // SOR factor; negative (the default): see predictor_omega()
  // When positive, the predictor sweeps on (momentum_sweeps at a time, at most 100 times)
  // until the momentum residual falls below this fraction of its start; 0: exactly
  // momentum_sweeps sweeps. Negative (the default): see predictor_tolerance().
  double momentum_tolerance = -1;
  double pressure_tolerance = 1e-8;
  std::string pressure_solver = "mg";  // mg: multigrid, hierarchy kept between solves
  // On several ranks, a pressure problem of at most this many nodes is solved whole on
  // every rank (WholeOnEveryRank); negative: the device's default (split_level_nodes),
  // 0: always split.
  std::int64_t pressure_whole_nodes = -1;
  int check_every = 10;  // steps between residual checks (scalars back from the device)

  // Reference scales for coefficients (drag and lift: 2 F / (U^2 D), in 3D 2 F / (U^2 D H)
  // with H the z extent the bodies span).
  double u_ref = 1, length_ref = 1;
  // Pressure probes (dp = p(a) - p(b)); used when `has_probes`.
  bool has_probes = false;
  std::array<double, 3> probe_a{0, 0, 0}, probe_b{0, 0, 0};

  bool steady() const { return coupling == Coupling::simple || coupling == Coupling::simplec; }
  // What turns a force on the bodies into its coefficient: 2 / (u_ref^2 length_ref), divided
  // in 3D by the z extent (every body spans it).
  double force_scale() const {
    return 2.0 / (u_ref * u_ref * length_ref * (dims == 3 ? hi[2] - lo[2] : 1.0));
  }
  // The time scheme the coupling steps with when none was named: rk3 for projection, the
  // scheme as it is (bdf2 unless named) for piso.
  void default_time_scheme() {
    if (coupling == Coupling::projection)
      time_scheme = TimeScheme::rk3;
    else if (time_scheme == TimeScheme::rk3)
      time_scheme = TimeScheme::bdf2;
  }
  // Whether the pressure solver is a direct one (the registry's constant-coefficient rows:
  // fft, buneman), which take only the plain Laplacian.
  bool direct_pressure() const;
  // Whether the pressure equation is the plain Laplacian on a uniform grid with every
  // side periodic and no obstacle: the transform solver (fft) takes it.
  bool pressure_is_periodic_laplacian() const;
  bool periodic(int axis) const { return sides[std::size_t(2 * axis)].type == SideType::periodic; }
  // Whether some side is an outflow (which carries away what the inflows bring).
  bool has_outflow() const {
    for (int s = 0; s < 2 * dims; ++s)
      if (sides[std::size_t(s)].type == SideType::outflow) return true;
    return false;
  }
  // The largest CFL number the transient schemes are allowed to run at.
  static constexpr double max_cfl = 1.0;
  // The projection scheme's explicit diffusion: dt * nu * sum_a 4 / h_a^2 must stay inside
  // the third-order Runge-Kutta's stability interval on the negative axis (2.51), with a
  // margin.
  static constexpr double max_diffusion_number = 2.0;
  // Throws Error naming what is wrong and what would be valid.
  void validate() const;
  // The residual fall the SOR predictor sweeps to. Unless set, a transient (PISO) step
  // solves its momentum equations to 1e-4: a fixed count of sweeps converges less as the
  // grid is refined (the time term, ~h / dt ~ h, weakens against diffusion, ~1), and the
  // error left acts every step (DFG 2D-3's c_L,max went from 0.477 to 0.504 between 64 and
  // 128 cells per diameter with 4 sweeps). Steady couplings keep the fixed count: their
  // outer iteration converges to the same state however inexact each predictor is.
  double predictor_tolerance() const {
    if (momentum_tolerance >= 0) return momentum_tolerance;
    return coupling == Coupling::piso ? 1e-4 : 0.0;
  }
  // The predictor's SOR factor: momentum_omega when set; otherwise 1.0 (Gauss-Seidel)
  // for the steady couplings, which run a fixed count of sweeps on momentum made
  // diagonally dominant by relax_u, and 0 for PISO: the solver then derives it from the
  // momentum rows of each step (FlowSolver::predictor_omega).
  double predictor_omega() const {
    if (momentum_omega > 0) return momentum_omega;
    return coupling == Coupling::piso ? 0.0 : 1.0;
  }
  std::string describe() const;
};

// The lid-driven cavity: unit square, lid y = 1 moving at u = 1, nu = 1 / re.
FlowCase cavity_case(double re, int n);
// Schaefer-Turek DFG 2D-1, 2D-2, 2D-3: channel 2.2 x 0.41, cylinder D = 0.1 at (0.2, 0.2).
// `cells_per_diameter` sets the grid (x and y spacing equal).
FlowCase dfg_case(const std::string& which, int cells_per_diameter);

}  // namespace gridsolve::flow
