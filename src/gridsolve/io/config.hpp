// Run configuration: a user problem and solver settings loaded from a TOML file.
#pragma once
#include <string>
#include <string_view>

#include "gridsolve/problem/problem_spec.hpp"
#include "gridsolve/solve/solve_settings.hpp"

namespace gridsolve {

struct RunConfig {
  ProblemSpec spec;
  SolveSettings solve;  // [solver]: name, device, precision, tolerance, rule, multigrid, ...
  std::string out;      // [output] dir; empty when the file names none
};

// Loads and checks a configuration file (schema: docs/config.md). Every problem —
// unreadable file, TOML syntax, unknown or misspelt keys, wrong types or lengths,
// malformed formulas, values the problem or solver rejects — throws Error
// (invalid_input) whose message names the file, the key and, where known, the line.
RunConfig load_config(const std::string& path);

// The same from TOML text; `source_name` stands for the file name in messages.
RunConfig parse_config(std::string_view toml_text, const std::string& source_name);

}  // namespace gridsolve
