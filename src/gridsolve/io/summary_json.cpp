// Run summaries as JSON.
#include "gridsolve/io/summary_json.hpp"

#include <cmath>

#include "gridsolve/io/atomic_file.hpp"

namespace gridsolve {

nlohmann::json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

void add_ranks_json(const RanksUsed& used, const std::string& device, nlohmann::json& j) {
  j["ranks"] = used.ranks;
  j["ranks_grid"] = used.grid;
  j["devices"] =
      used.devices.empty() ? nlohmann::json::array({device}) : nlohmann::json(used.devices);
  if (!used.device_link.empty()) j["device_link"] = used.device_link;
  if (!used.unknowns_per_rank.empty()) j["unknowns_per_rank"] = used.unknowns_per_rank;
}

nlohmann::json to_json(const SolveReport& r) {
  return nlohmann::json{
      {"solver", r.solver},
      {"kernel", r.kernel},
      {"converged", r.converged},
      {"stop", to_string(r.stop)},
      {"reason", r.reason},
      {"notes", r.notes},
      {"iterations", r.iterations},
      {"relative_residual", json_number(r.relative_residual)},
      {"last_update", json_number(r.last_update)},
      {"seconds", json_number(r.seconds)},
      {"setup_seconds", json_number(r.setup_seconds)},
      {"omega", json_number(r.omega)},
  };
}

std::string json_text(const nlohmann::json& j) {
  // replace: a stray non-UTF-8 byte (a path or formula in the report) must not make the
  // whole summary unwritable. nlohmann already writes non-finite floats as null.
  std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  return text;
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
  write_file_atomically(path, json_text(j));
}

}  // namespace gridsolve
