// Reading a flow case from TOML (docs/flow.md lists every key).
#pragma once
#include <string>
#include <string_view>

#include <vector>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/apps/parameters.hpp"

namespace gridsolve::flow {

struct FlowConfig {
  FlowCase flow_case;
  std::string device = "auto";
  std::string out;
  int frames = 10;
  int checkpoint_every = 0;     // [output] checkpoint_every: steps between checkpoints
  std::string checkpoint_file;  // [output] checkpoint_file: where (default OUT/checkpoint.gsflow)
};

// The [method] numbers of a case, declared once: the reader takes them from here.
const std::vector<Parameter<FlowCase>>& flow_method_parameters();

// Parses TOML text through the shared reader (size and nesting bounds, finite numbers,
// "did you mean"); a table written as an array of tables, or the reverse, is refused;
// unknown keys and wrong types throw Error naming the key, the file and the line.
FlowConfig parse_flow_config(std::string_view text, const std::string& source);
FlowConfig load_flow_config(const std::string& path);

}  // namespace gridsolve::flow
