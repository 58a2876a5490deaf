// Dormand-Prince RK45, Heun and RK4 steps of the LLG equation; relax and minimize.
#include "gridsolve/apps/micromag/llg_stepper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "gridsolve/core/error.hpp"

namespace gridsolve::micromag {

Method parse_method(const std::string& name) {
  if (name == "rk45" || name == "dormand-prince" || name == "dp45") return Method::rk45;
  if (name == "heun") return Method::heun;
  if (name == "rk4") return Method::rk4;
  throw Error(fmt::format("method must be rk45, heun or rk4, got '{}'", name));
}

std::string to_string(Method m) {
  switch (m) {
    case Method::rk45:
      return "rk45";
    case Method::heun:
      return "heun";
    case Method::rk4:
      return "rk4";
  }
  return "?";
}

namespace {

// Dormand & Prince (1980): stage coefficients, the 5th-order weights (the last stage's row,
// so its slope is the next step's first) and the error weights (5th minus 4th order).
constexpr double dp_c[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
constexpr double dp_a[7][6] = {
    {0, 0, 0, 0, 0, 0},
    {1.0 / 5, 0, 0, 0, 0, 0},
    {3.0 / 40, 9.0 / 40, 0, 0, 0, 0},
    {44.0 / 45, -56.0 / 15, 32.0 / 9, 0, 0, 0},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0, 0},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
constexpr double dp_e[7] = {71.0 / 57600,      0,          -71.0 / 16695, 71.0 / 1920,
                            -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

}  // namespace

template <class T>
LlgStepper<T>::LlgStepper(MicromagSystem<T>& sys, StepperOptions o) : sys_(sys), o_(o) {
  require(o.tolerance > 0, fmt::format("tolerance must be positive, got {}", o.tolerance));
  require(o.dt > 0, fmt::format("dt must be positive, got {}", o.dt));
  require(o.max_dt >= o.dt || o.method == Method::rk4,
          fmt::format("max_dt ({}) must not be below dt ({})", o.max_dt, o.dt));
  const int stages = o.method == Method::rk45 ? 7 : o.method == Method::rk4 ? 4 : 2;
  for (int s = 0; s < stages; ++s) k_.push_back(sys.vectors());
  stage_ = sys.vectors();
  next_ = sys.vectors();
  h_ = o.dt;
}

template <class T>
void LlgStepper<T>::evaluate(CellVectors<T>& at, CellVectors<T>& k, double t,
                             const FieldOfTime& b, Slope kind) {
  sys_.demag();
  sys_.slope(at, k, b(t), kind);
  ++evaluations_;
}

template <class T>
double LlgStepper<T>::step_rk45(double t, double h, const FieldOfTime& b, Slope kind) {
  const StageSum<T> none;
  for (int s = 1; s < 7; ++s) {
    StageSum<T> sum;
    for (int j = 0; j < s; ++j)
      if (dp_a[s][j] != 0) sum.add(k_[j], dp_a[s][j]);
    CellVectors<T>& out = s == 6 ? next_ : stage_;
    sys_.combine(sys_.m(), h, sum, out, none);
    evaluate(out, k_[s], t + dp_c[s] * h, b, kind);
  }
  StageSum<T> err;
  for (int j = 0; j < 7; ++j)
    if (dp_e[j] != 0) err.add(k_[j], dp_e[j]);
  return sys_.max_norm(h, err);
}

template <class T>
double LlgStepper<T>::step_heun(double t, double h, const FieldOfTime& b, Slope kind,
                                 bool estimate) {
  // The predictor is made where k1 is (heun_predict), unless k1 is older than this step
  // size (a rejected step's retry).
  if (predicted_h_ != h) {
    StageSum<T> euler, none;
    euler.add(k_[0], 1);
    sys_.combine(sys_.m(), h, euler, stage_, none);
  }
  predicted_h_ = -1;
  sys_.demag();
  ++evaluations_;
  return sys_.heun_correct(stage_, k_[0], b(t + h), kind, h, next_, estimate);
}

template <class T>
void LlgStepper<T>::step_rk4(double t, double h, const FieldOfTime& b, Slope kind) {
  const StageSum<T> none;
  const double c[3] = {0.5, 0.5, 1.0};
  for (int s = 1; s < 4; ++s) {
    StageSum<T> sum;
    sum.add(k_[s - 1], c[s - 1]);
    sys_.combine(sys_.m(), h, sum, stage_, none);
    evaluate(stage_, k_[s], t + c[s - 1] * h, b, kind);
  }
  StageSum<T> sum;
  sum.add(k_[0], 1.0 / 6);
  sum.add(k_[1], 2.0 / 6);
  sum.add(k_[2], 2.0 / 6);
  sum.add(k_[3], 1.0 / 6);
  sys_.combine(sys_.m(), h, sum, next_, none);
}

template <class T>
double LlgStepper<T>::step(double& t, double limit, const FieldOfTime& b, Slope kind) {
  require(limit > 0, "a step needs a positive time limit");
  // A temperature makes the step stochastic: fixed steps of dt, every step accepted, one
  // thermal draw per step that both of Heun's evaluations see (so k1 is evaluated anew).
  const bool thermal = kind == Slope::llg && sys_.has_temperature();
  if (thermal) {
    require(o_.method == Method::heun,
            "a temperature needs method = \"heun\" (fixed steps of solver.dt)");
    sys_.begin_thermal_step(std::min(o_.dt, limit));
    have_k1_ = false;
  }
  for (;;) {
    const bool fixed = o_.method == Method::rk4 || thermal;
    // fixed steps (the last before limit shorter), or the adaptive step clipped at limit
    const bool clipped = !fixed && limit < h_;
    const double h = fixed ? std::min(o_.dt, limit) : clipped ? limit : h_;
    if (!have_k1_) {
      if (!input_holds_m_) sys_.load_demag_input(sys_.m());
      if (o_.method == Method::heun) {
        // k1 and the predictor m + h k1 in one pass
        sys_.demag();
        sys_.heun_predict(k_[0], b(t), kind, h, stage_);
        ++evaluations_;
        predicted_h_ = h;
      } else {
        evaluate(sys_.m(), k_[0], t, b, kind);
      }
      have_k1_ = true;
    }
    if (fixed) {
      if (thermal)
        step_heun(t, h, b, kind, false);
      else
        step_rk4(t, h, b, kind);
      sys_.m().swap(next_);
      have_k1_ = false;
      input_holds_m_ = true;
      t += h;
      last_h_ = h;
      ++steps_;
      return h;
    }
    const double err =
        o_.method == Method::rk45 ? step_rk45(t, h, b, kind) : step_heun(t, h, b, kind);
    const double order = o_.method == Method::rk45 ? 5 : 2;
    const double factor = err > 0 ? 0.9 * std::pow(o_.tolerance / err, 1 / order) : 5.0;
    if (std::isfinite(err) && err <= o_.tolerance) {
      sys_.m().swap(next_);
      if (o_.method == Method::rk45) {
        std::swap(k_[0], k_[6]);  // first same as last
      } else {
        have_k1_ = false;
      }
      input_holds_m_ = true;
      t += h;
      last_h_ = h;
      ++steps_;
      const double grown = std::min(o_.max_dt, h * std::clamp(factor, 0.2, 5.0));
      h_ = clipped ? std::min(h_, std::max(grown, h)) : grown;
      return h;
    }
    ++rejected_;
    input_holds_m_ = false;
    h_ = h * (std::isfinite(err) ? std::clamp(factor, 0.1, 0.9) : 0.1);
    if (h_ < o_.min_dt)
      throw Error(fmt::format("the LLG step fell below {} s (error {} at t = {} s): the "
                              "magnetization did not stay finite or the tolerance is too tight",
                              o_.min_dt, err, t),
                  Error::Kind::runtime);
  }
}

template <class T>
RelaxReport relax(MicromagSystem<T>& sys, const std::array<double, 3>& b, StepperOptions o,
                  std::int64_t max_steps) {
  o.method = Method::rk45;
  LlgStepper<T> st(sys, o);
  const FieldOfTime field = [b](double) { return b; };
  const double final_tol = std::is_same_v<T, float> ? 1e-7 : 1e-9;
  // The largest torque falls by a few percent a check while m still relaxes, and jitters
  // by as much at the float noise floor: it has stopped falling when no check of the last
  // ten (200 steps) set a new low. One check that failed to (the rule before) stopped
  // SP4's float relaxation at 1.7e-5 T, 1.8e-4 short in <m_y>.
  constexpr int stall_checks = 10;
  double tol = o.tolerance, t = 0;
  double best = std::numeric_limits<double>::infinity();
  int stalled = 0;
  RelaxReport r;
  while (r.steps < max_steps) {
    for (int n = 0; n < 20 && r.steps < max_steps; ++n, ++r.steps)
      st.step(t, std::numeric_limits<double>::infinity(), field, Slope::damping);
    const double torque = sys.max_torque(b);
    st.invalidate();
    r.max_torque = torque;
    if (torque < best) {
      best = torque;
      stalled = 0;
      continue;
    }
    if (++stalled < stall_checks) continue;
    if (tol <= final_tol) {
      r.converged = true;
      break;
    }
    tol = std::max(final_tol, tol / 4);
    st.set_tolerance(tol);
    stalled = 0;
  }
  return r;
}

template <class T>
MinimizeReport minimize(MicromagSystem<T>& sys, const std::array<double, 3>& b, double stop,
                        std::int64_t max_iterations) {
  CellVectors<T> g = sys.vectors(), g_next = sys.vectors(), next = sys.vectors();
  const StageSum<T> none;
  sys.load_demag_input(sys.m());
  sys.demag();
  sys.slope(sys.m(), g, b, Slope::descent);
  StageSum<T> gs;
  gs.add(g, 1);
  const double gmax = sys.max_norm(1, gs);
  MinimizeReport r;
  if (gmax == 0) {
    r.converged = true;
    return r;
  }
  const double h0 = 0.01 / gmax;  // the first step turns m by at most 0.01 rad
  double h = h0;
  int quiet = 0;
  for (r.iterations = 1; r.iterations <= max_iterations; ++r.iterations) {
    StageSum<T> dir;
    dir.add(g, -1);
    sys.combine(sys.m(), h, dir, next, none);
    sys.demag();
    sys.slope(next, g_next, b, Slope::descent);
    StageSum<T> s, y;
    s.add(next, 1);
    s.add(sys.m(), -1);
    y.add(g_next, 1);
    y.add(g, -1);
    const double dm = sys.max_norm(1, s);
    const double ss = sys.dot(s, s), sy = sys.dot(s, y), yy = sys.dot(y, y);
    sys.m().swap(next);
    g.swap(g_next);
    quiet = dm < stop ? quiet + 1 : 0;
    if (quiet >= 3) {
      r.converged = true;
      break;
    }
    // Barzilai-Borwein: the two step lengths alternately.
    h = r.iterations % 2 ? ss / sy : sy / yy;
    if (!(h > 0) || !std::isfinite(h)) h = h0;
  }
  r.max_torque = sys.max_torque(b);
  return r;
}

template class LlgStepper<float>;
template class LlgStepper<double>;
template RelaxReport relax<float>(MicromagSystem<float>&, const std::array<double, 3>&,
                                  StepperOptions, std::int64_t);
template RelaxReport relax<double>(MicromagSystem<double>&, const std::array<double, 3>&,
                                   StepperOptions, std::int64_t);
template MinimizeReport minimize<float>(MicromagSystem<float>&, const std::array<double, 3>&,
                                        double, std::int64_t);
template MinimizeReport minimize<double>(MicromagSystem<double>&, const std::array<double, 3>&,
                                         double, std::int64_t);

}  // namespace gridsolve::micromag
