#include "gridsolve/solve/convergence_monitor.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <cmath>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

Precision parse_precision(std::string_view name) {
  if (name == "double" || name == "fp64") return Precision::fp64;
  if (name == "float" || name == "fp32" || name == "single") return Precision::fp32;
  throw Error(fmt::format("precision must be double or float, got '{}'", name));
}

const char* to_string(Precision p) {
  return p == Precision::fp64 ? "double" : "float";
}

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::none:
      return "none";
    case StopReason::converged:
      return "converged";
    case StopReason::direct:
      return "direct";
    case StopReason::iteration_cap:
      return "iteration-cap";
    case StopReason::stagnation:
      return "stagnation";
    case StopReason::divergence:
      return "divergence";
    case StopReason::not_a_number:
      return "not-a-number";
    case StopReason::true_residual_above:
      return "true-residual-above-tolerance";
  }
  return "none";
}

void confirm_finite_result(SolveReport& report) {
  if (std::isfinite(report.relative_residual)) return;
  // A max-update rule cannot see NaN (max(a, NaN) drops it), and a direct solve of
  // non-finite data returns non-finite values: neither is a result.
  report.converged = false;
  report.stop = StopReason::not_a_number;
  report.reason = fmt::format(
      "not a number: the final relative residual is {} (the solution holds "
      "NaN or infinite values)",
      report.relative_residual);
}

void SolveOptions::validate() const {
  require(tolerance > 0 && std::isfinite(tolerance),
          fmt::format("tolerance must be positive, got {}", tolerance));
  require(max_iterations >= 1,
          fmt::format("max iterations must be at least 1, got {}", max_iterations));
  require(check_every >= 0, fmt::format("check interval must be >= 0, got {}", check_every));
  require(omega == 0 || (omega > 0 && omega < 2),
          fmt::format("omega must be in (0, 2), got {}", omega));
  require(weight > 0 && weight <= 1,
          fmt::format("Jacobi weight must be in (0, 1], got {}", weight));
}

ConvergenceMonitor::ConvergenceMonitor(const SolveOptions& options, SolveReport& report)
    : options_(options), report_(report), start_(std::chrono::steady_clock::now()) {
  options.validate();
  next_progress_ = options.progress_after;
  every_ = options.check_every > 0 ? options.check_every : 1;
}

double ConvergenceMonitor::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool ConvergenceMonitor::check(int iteration, double watched) {
  report_.iterations = iteration;
  report_.history.emplace_back(iteration, watched);
  const double t = seconds();
  if (options_.on_progress && t >= next_progress_) {
    options_.on_progress(ProgressInfo{iteration, watched, t});
    next_progress_ = t + 1.0;
  }
  if (!std::isfinite(watched)) {
    report_.stop = StopReason::not_a_number;
    report_.reason = fmt::format("diverged: the {} became {} at iteration {}",
                                 options_.rule == StopRule::residual ? "residual" : "update",
                                 std::isnan(watched) ? "NaN" : "infinite", iteration);
    return true;
  }
  if (watched < options_.tolerance) {
    report_.converged = true;
    report_.stop = StopReason::converged;
    report_.reason =
        fmt::format("converged: {} {:.3e} < {:.3e}",
                    options_.rule == StopRule::residual ? "relative residual" : "max update",
                    watched, options_.tolerance);
    return true;
  }
  if (first_ < 0) {
    first_ = best_ = watched;
  }
  // Divergence: far above where it started, or growing at every check for a long time.
  growing_ = (!report_.history.empty() && report_.history.size() > 1 &&
              watched > report_.history[report_.history.size() - 2].second)
                 ? growing_ + 1
                 : 0;
  if (watched > 1e6 * std::max(first_, 1e-300) || growing_ >= 50) {
    report_.stop = StopReason::divergence;
    report_.reason =
        fmt::format("diverged: {} grew from {:.3e} to {:.3e} by iteration {}",
                    options_.rule == StopRule::residual ? "relative residual" : "update", first_,
                    watched, iteration);
    return true;
  }
  // Stagnation: no new best value in 200 checks (a non-monotone method: in as many checks
  // as it took to reach the best, if more). A slow steady decrease never trips this; noise
  // at the rounding floor does.
  ++checks_;
  if (watched < best_) {
    best_ = watched;
    best_at_ = checks_;
    checks_since_best_ = 0;
  } else if (++checks_since_best_ >= (non_monotone_ ? std::max(200, best_at_) : 200)) {
    report_.stop = StopReason::stagnation;
    report_.reason = fmt::format(
        "stagnated: {} stuck near {:.3e} for {} iterations (tolerance below this precision's "
        "rounding floor?)",
        options_.rule == StopRule::residual ? "relative residual" : "update", best_,
        checks_since_best_ * every_);
    return true;
  }
  if (iteration >= options_.max_iterations) {
    report_.stop = StopReason::iteration_cap;
    report_.reason = fmt::format("not converged: reached the iteration cap {} at {:.3e}",
                                 options_.max_iterations, watched);
    return true;
  }
  return false;
}

}  // namespace gridsolve
