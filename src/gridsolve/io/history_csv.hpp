// Convergence history as CSV: one row per convergence check.
#pragma once
#include <string>

#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// The column name of the quantity `rule` watches: relative_residual or max_update.
std::string history_column_name(StopRule rule);

// The CSV text: header "iteration,<history_column_name(rule)>", then one row per entry
// of report.history, values at full (round-trip) precision.
std::string history_csv(const SolveReport& report, StopRule rule);

// Writes history_csv(report, rule) to `path` atomically.
void write_history_csv(const std::string& path, const SolveReport& report, StopRule rule);

}  // namespace gridsolve
