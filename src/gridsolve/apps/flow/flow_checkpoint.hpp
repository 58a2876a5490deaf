// Checkpoint files of a flow run: a JSON header (the case it belongs to, the scalars of
// the solver and the run loop) and named binary blocks (raw field storage, histories),
// written atomically and checked on reading (truncation, damage, another case).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/flow/flow_case.hpp"

namespace gridsolve::flow {

// What a checkpoint holds. Blocks are bytes in the machine's order (little-endian on
// every platform the project builds for); their meaning is the writer's (FlowSolver's
// save_state, the run loop's histories).
struct Checkpoint {
  nlohmann::json header;                                     // scalars, case identity
  std::map<std::string, std::vector<unsigned char>> blocks;  // raw arrays by name

  template <class T>
  void put(const std::string& name, const T* data, std::size_t count) {
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    blocks[name].assign(p, p + count * sizeof(T));
  }
  // The block `name` as `count` values of T; throws Error when absent or of another size.
  template <class T>
  std::vector<T> get(const std::string& name) const;
  const std::vector<unsigned char>& bytes(const std::string& name) const;
  std::string source;  // the file it was read from (for messages)
};

// The file format (docs/flow.md "Checkpoint and restart"):
//   8 bytes "GSFLOWCK", u32 version (1), u64 header length H, H bytes of JSON,
//   then for each block listed in the header's "blocks" array ({name, bytes}) its bytes,
//   then u64 FNV-1a hash of everything before it, then 8 bytes "GSFLOWND".
// Written through AtomicOutput: a reader sees the previous checkpoint or the new one.
void write_checkpoint(const std::string& path, const Checkpoint& c);
// The most bytes a checkpoint of case `c` can plausibly hold: a larger file is refused
// before it is read.
std::uintmax_t checkpoint_size_limit(const FlowCase& c);
// Throws Error (invalid input) naming the file when it is missing, not a regular file,
// larger than `limit`, not a flow checkpoint, of another version, truncated or damaged.
Checkpoint read_checkpoint(const std::string& path,
                           std::uintmax_t limit = std::uintmax_t(1) << 40);

// The settings a checkpoint must share with the case that restarts from it: grid,
// fluid, boundaries, obstacles and every method setting the steps depend on. t_end,
// max_iterations, the tolerance of steady runs and the output options may change.
nlohmann::json case_identity(const FlowCase& c);
// Throws Error (invalid input) naming the first setting that differs, both values, and
// the checkpoint's file.
void require_same_case(const Checkpoint& ck, const FlowCase& c);

}  // namespace gridsolve::flow
