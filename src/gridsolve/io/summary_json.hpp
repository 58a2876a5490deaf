// Run summaries as JSON: a SolveReport in JSON form and an atomic, pretty-printed writer.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solve_options.hpp"

namespace gridsolve {

// solver, kernel, converged, reason, iterations, relative_residual, last_update,
// seconds, omega. Non-finite numbers (a diverged solve) become null: JSON has no NaN.
nlohmann::json to_json(const SolveReport& report);

// Where a solve ran, into `j`: ranks, ranks_grid, devices (one entry, `device`, on one
// rank), and on several ranks device_link (where device buffers travelled) and
// unknowns_per_rank.
void add_ranks_json(const RanksUsed& used, const std::string& device, nlohmann::json& j);

// A number, or null when it is NaN or infinite.
nlohmann::json json_number(double value);

// `j` as written to files: indented by two spaces, non-UTF-8 bytes replaced, final newline.
std::string json_text(const nlohmann::json& j);

// Writes `j` to `path` atomically, indented by two spaces, with a final newline.
void write_json_file(const std::string& path, const nlohmann::json& j);

}  // namespace gridsolve
