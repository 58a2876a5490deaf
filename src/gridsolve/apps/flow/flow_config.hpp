// Reading a flow case from TOML (docs/flow.md lists every key).
#pragma once
#include <string>
#include <string_view>

#include "gridsolve/apps/flow/flow_case.hpp"

namespace gridsolve::flow {

struct FlowConfig {
  FlowCase flow_case;
  std::string device = "auto";
  std::string out;
  int frames = 10;
  int checkpoint_every = 0;     // [output] checkpoint_every: steps between checkpoints
  std::string checkpoint_file;  // [output] checkpoint_file: where (default OUT/checkpoint.gsflow)
};

// Parses TOML text; unknown keys and wrong types throw Error naming the key and the file.
FlowConfig parse_flow_config(std::string_view text, const std::string& source);
FlowConfig load_flow_config(const std::string& path);

}  // namespace gridsolve::flow
