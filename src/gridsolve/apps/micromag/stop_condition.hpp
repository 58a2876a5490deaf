// StopCondition: when a `run` stage with `until` ends, a formula in the state of the run
// (simulated time, <m>, the largest torque) that turns true.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace gridsolve::micromag {

// The values a condition may name.
struct RunState {
  double t = 0;                   // simulated time, s
  double t_stage = 0;             // time since the stage began, s
  double mx = 0, my = 0, mz = 0;  // <m>
  double max_torque = 0;          // max |m x B_eff|, T
};

class StopCondition {
 public:
  // muParser syntax with comparisons and && ||, e.g. "mx < 0" or
  // "max_torque < 1e-4 && t_stage > 1e-10"; throws Error naming what is wrong.
  explicit StopCondition(const std::string& formula);

  // The variable names a condition may use.
  static const std::vector<std::string>& variables();

  // Whether the formula names max_torque (which costs a field evaluation to know).
  bool needs_torque() const;
  bool holds(const RunState& s) const;
  const std::string& formula() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace gridsolve::micromag
