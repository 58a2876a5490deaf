// LlgStepper<T>: time integration of the Landau-Lifshitz-Gilbert equation with adaptive
// Dormand-Prince RK45 (default), Heun (adaptive, RK12) or classic RK4 (fixed step); the
// stages run on the system's device, only the error estimate crosses to the host.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridsolve/apps/micromag/micromag_system.hpp"

namespace gridsolve::micromag {

enum class Method { rk45, heun, rk4 };
Method parse_method(const std::string& name);  // rk45 | dormand-prince | heun | rk4
std::string to_string(Method m);

struct StepperOptions {
  Method method = Method::rk45;
  double tolerance = 1e-5;  // largest |error of m| per step (adaptive methods)
  double dt = 1e-13;        // the fixed step of rk4; the first step of the others, s
  double max_dt = 1e-10;
  double min_dt = 1e-20;
};

// The external field (T) at time t (s).
using FieldOfTime = std::function<std::array<double, 3>(double)>;

template <class T>
class LlgStepper {
 public:
  LlgStepper(MicromagSystem<T>& sys, StepperOptions o);

  // One accepted step of at most `limit` seconds from t (t advances); returns its size.
  // Throws Error when the step falls below min_dt (the solution blew up).
  double step(double& t, double limit, const FieldOfTime& b, Slope kind = Slope::llg);

  // m changed, or the field jumped: the stored slope at m is stale.
  void invalidate() { have_k1_ = false; }

  const StepperOptions& options() const { return o_; }
  void set_tolerance(double tol) { o_.tolerance = tol; }
  double next_dt() const { return h_; }
  double last_dt() const { return last_h_; }
  std::int64_t steps() const { return steps_; }
  std::int64_t rejected() const { return rejected_; }
  std::int64_t evaluations() const { return evaluations_; }

 private:
  void evaluate(CellVectors<T>& at, CellVectors<T>& k, double t, const FieldOfTime& b,
                Slope kind);
  double step_rk45(double t, double h, const FieldOfTime& b, Slope kind);
  // Returns the error estimate, or 0 without one (fixed steps need none: no reduction).
  double step_heun(double t, double h, const FieldOfTime& b, Slope kind, bool estimate = true);
  void step_rk4(double t, double h, const FieldOfTime& b, Slope kind);

  MicromagSystem<T>& sys_;
  StepperOptions o_;
  std::vector<CellVectors<T>> k_;
  CellVectors<T> stage_, next_;
  bool have_k1_ = false;        // k_[0] holds the slope at m (first same as last)
  bool input_holds_m_ = false;  // the demag input holds m
  double predicted_h_ = -1;     // stage_ holds Heun's predictor m + h k1 for this h (-1: none)
  double h_ = 0, last_h_ = 0;
  std::int64_t steps_ = 0, rejected_ = 0, evaluations_ = 0;
};

// Relaxes m to a minimum with the damping term alone: steps until the largest torque
// stops decreasing, then lowers the error tolerance and goes on, down to `final_tol`.
// Returns true when it ended that way, false when max_steps ran out.
struct RelaxReport {
  bool converged = false;
  std::int64_t steps = 0;
  double max_torque = 0;
};
template <class T>
RelaxReport relax(MicromagSystem<T>& sys, const std::array<double, 3>& b, StepperOptions o,
                  std::int64_t max_steps);

// Steepest descent with Barzilai-Borwein steps, stopping when the largest change of m per
// iteration stays below `stop` for several iterations.
struct MinimizeReport {
  bool converged = false;
  std::int64_t iterations = 0;
  double max_torque = 0;
};
template <class T>
MinimizeReport minimize(MicromagSystem<T>& sys, const std::array<double, 3>& b, double stop,
                        std::int64_t max_iterations);

}  // namespace gridsolve::micromag
