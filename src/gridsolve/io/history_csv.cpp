// Convergence history as CSV.
#include "gridsolve/io/history_csv.hpp"

#include <fmt/format.h>

#include "gridsolve/io/atomic_file.hpp"

namespace gridsolve {

std::string history_column_name(StopRule rule) {
  switch (rule) {
    case StopRule::residual:
      return "relative_residual";
    case StopRule::update:
      return "max_update";
  }
  return "value";
}

std::string history_csv(const SolveReport& report, StopRule rule) {
  std::string text = fmt::format("iteration,{}\n", history_column_name(rule));
  // fmt's default float format is the shortest text that reads back to the same
  // double, so plots and post-processing see exactly what the solver saw.
  for (const auto& [iteration, value] : report.history)
    text += fmt::format("{},{}\n", iteration, value);
  return text;
}

void write_history_csv(const std::string& path, const SolveReport& report, StopRule rule) {
  write_file_atomically(path, history_csv(report, rule));
}

}  // namespace gridsolve
