// Checkpoint files of a flow run: the documented binary format, its checks, and the case
// identity a restart must match.
#include "gridsolve/apps/flow/flow_checkpoint.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/boundary.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/input_file.hpp"

namespace gridsolve::flow {

namespace {

constexpr char k_magic[8] = {'G', 'S', 'F', 'L', 'O', 'W', 'C', 'K'};
constexpr char k_end[8] = {'G', 'S', 'F', 'L', 'O', 'W', 'N', 'D'};
constexpr std::uint32_t k_version = 2;  // 2: the previous step length (variable-step BDF2)

// FNV-1a, 64 bits: enough to tell a damaged file from a whole one (not a defence against
// someone forging a file).
std::uint64_t fnv1a(const unsigned char* p, std::size_t n,
                    std::uint64_t h = 1469598103934665603ull) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void append_pod(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  s.append(b, sizeof(T));
}

template <class T>
T read_pod(const std::string& s, std::size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof(T));
  return v;
}

[[noreturn]] void damaged(const std::string& path, const std::string& why) {
  throw Error(
      fmt::format("'{}' is not a usable flow checkpoint: {}; restart from a complete "
                  "checkpoint written by --checkpoint-every",
                  path, why));
}

std::string expression_text(const Expression& e) {
  return e.text.empty() ? fmt::format("{:.17g}", e.constant) : e.text;
}

}  // namespace

const std::vector<unsigned char>& Checkpoint::bytes(const std::string& name) const {
  const auto it = blocks.find(name);
  if (it == blocks.end())
    throw Error(
        fmt::format("checkpoint '{}' has no block '{}'; it was written by another version "
                    "of the program or for another kind of run",
                    source, name));
  return it->second;
}

template <class T>
std::vector<T> Checkpoint::get(const std::string& name) const {
  const std::vector<unsigned char>& b = bytes(name);
  if (b.size() % sizeof(T) != 0)
    throw Error(
        fmt::format("checkpoint '{}': block '{}' has {} bytes, not a whole number of values",
                    source, name, b.size()));
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), b.size());
  return out;
}

template std::vector<double> Checkpoint::get<double>(const std::string&) const;
template std::vector<long long> Checkpoint::get<long long>(const std::string&) const;

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  nlohmann::json header = c.header;
  header["blocks"] = nlohmann::json::array();
  std::size_t total = 0;
  for (const auto& [name, data] : c.blocks) {
    header["blocks"].push_back({{"name", name}, {"bytes", data.size()}});
    total += data.size();
  }
  const std::string h = header.dump();
  std::string s;
  s.reserve(8 + 4 + 8 + h.size() + total + 16);
  s.append(k_magic, 8);
  append_pod<std::uint32_t>(s, k_version);
  append_pod<std::uint64_t>(s, h.size());
  s += h;
  for (const auto& [name, data] : c.blocks)
    s.append(reinterpret_cast<const char*>(data.data()), data.size());
  append_pod<std::uint64_t>(s, fnv1a(reinterpret_cast<const unsigned char*>(s.data()), s.size()));
  s.append(k_end, 8);
  write_file_atomically(path, s);
}

std::uintmax_t checkpoint_size_limit(const FlowCase& c) {
  // Every field the solver keeps (three time levels of each velocity component, the
  // pressure, the pressure solver's coefficients) with generous room for ghosts and
  // padding, and a gigabyte for the run's histories (80 bytes a step).
  std::uintmax_t values = 1;
  for (int a = 0; a < c.dims; ++a) values *= std::uintmax_t(c.cells[std::size_t(a)]) + 8;
  return 64 * sizeof(double) * values + (std::uintmax_t(1) << 30);
}

Checkpoint read_checkpoint(const std::string& path, std::uintmax_t limit) {
  const std::string s = read_input_file(path, limit, "checkpoint");
  if (s.size() < 8 || std::memcmp(s.data(), k_magic, 8) != 0)
    damaged(path, "it does not begin with the flow checkpoint mark GSFLOWCK");
  if (s.size() < 20) damaged(path, fmt::format("it is truncated ({} bytes)", s.size()));
  const auto version = read_pod<std::uint32_t>(s, 8);
  if (version != k_version)
    damaged(path,
            fmt::format("format version {}, this program reads version {}", version, k_version));
  const auto hlen = read_pod<std::uint64_t>(s, 12);
  if (hlen > s.size() - 20)
    damaged(path, fmt::format("it is truncated ({} bytes; the header alone needs {})", s.size(),
                              20 + hlen));
  Checkpoint c;
  c.source = path;
  try {
    c.header = nlohmann::json::parse(s.begin() + 20, s.begin() + 20 + std::ptrdiff_t(hlen));
  } catch (const nlohmann::json::exception&) {
    damaged(path, "its header is not valid JSON");
  }
  if (!c.header.contains("blocks") || !c.header["blocks"].is_array())
    damaged(path, "its header lists no blocks");
  std::size_t at = 20 + hlen, need = at;
  std::set<std::string> names;
  for (const auto& b : c.header["blocks"]) {
    if (!b.contains("bytes") || !b["bytes"].is_number_unsigned() || !b.contains("name") ||
        !b["name"].is_string())
      damaged(path, "its header's block list is malformed");
    if (!names.insert(b["name"].get<std::string>()).second)
      damaged(path, fmt::format("its header lists block '{}' twice", b["name"].get<std::string>()));
    const std::size_t bytes = b["bytes"].get<std::size_t>();
    if (bytes > s.size() - need)  // also keeps the sum from wrapping
      damaged(path, fmt::format("it is truncated (a block announces {} bytes, more than the "
                                "rest of the file holds)",
                                bytes));
    need += bytes;
  }
  if (s.size() != need + 16)
    damaged(path, fmt::format("it has {} bytes where its header announces {}{}", s.size(),
                              need + 16, s.size() < need + 16 ? " (truncated)" : ""));
  if (std::memcmp(s.data() + need + 8, k_end, 8) != 0) damaged(path, "its end mark is missing");
  const auto hash = read_pod<std::uint64_t>(s, need);
  if (hash != fnv1a(reinterpret_cast<const unsigned char*>(s.data()), need))
    damaged(path, "its checksum does not match (the file was damaged)");
  for (const auto& b : c.header["blocks"]) {
    const std::size_t n = b["bytes"].get<std::size_t>();
    auto& dst = c.blocks[b["name"].get<std::string>()];
    dst.assign(reinterpret_cast<const unsigned char*>(s.data()) + at,
               reinterpret_cast<const unsigned char*>(s.data()) + at + n);
    at += n;
  }
  return c;
}

nlohmann::json case_identity(const FlowCase& c) {
  nlohmann::json j;
  j["dims"] = c.dims;
  j["cells"] = std::vector<int>(c.cells.begin(), c.cells.begin() + c.dims);
  j["lo"] = std::vector<double>(c.lo.begin(), c.lo.begin() + c.dims);
  j["hi"] = std::vector<double>(c.hi.begin(), c.hi.begin() + c.dims);
  std::vector<std::string> spacing;
  for (int a = 0; a < c.dims; ++a) spacing.push_back(c.spacing[std::size_t(a)].describe());
  j["spacing"] = spacing;
  j["nu"] = c.nu;
  for (int s = 0; s < 2 * c.dims; ++s) {
    const SideCondition& sc = c.sides[std::size_t(s)];
    nlohmann::json side;
    side["type"] = to_string(sc.type);
    if (sc.type == SideType::wall)
      side["velocity"] = std::vector<double>(sc.velocity.begin(), sc.velocity.begin() + c.dims);
    if (sc.type == SideType::velocity)
      for (int q = 0; q < c.dims; ++q)
        side[std::string(1, "uvw"[q])] = expression_text(sc.profile[std::size_t(q)]);
    j["boundary." + face_name(s)] = side;
  }
  std::vector<std::string> obstacles;
  for (const Obstacle& o : c.obstacles) obstacles.push_back(o.describe());
  j["obstacles"] = obstacles;
  j["obstacle_treatment"] = to_string(c.obstacle_treatment);
  if (c.has_initial) {
    std::vector<std::string> init;
    for (int q = 0; q < c.dims; ++q)
      init.push_back(expression_text(c.initial_velocity[std::size_t(q)]));
    init.push_back(expression_text(c.initial_pressure));
    j["initial"] = init;
  }
  j["coupling"] = to_string(c.coupling);
  j["convection"] = to_string(c.convection);
  j["time"] = to_string(c.time_scheme);
  j["relax_u"] = c.relax_u;
  j["relax_p"] = c.relax_p;
  j["cfl"] = c.cfl;
  j["dt"] = c.dt;
  j["correctors"] = c.correctors;
  j["inflow_period"] = c.inflow_period;
  j["momentum_solver"] = c.momentum_solver;
  j["momentum_sweeps"] = c.momentum_sweeps;
  j["momentum_omega"] = c.momentum_omega;
  j["momentum_tolerance"] = c.momentum_tolerance;
  j["pressure_tolerance"] = c.pressure_tolerance;
  j["pressure_solver"] = c.pressure_solver;
  j["check_every"] = c.check_every;
  j["u_ref"] = c.u_ref;
  j["length_ref"] = c.length_ref;
  return j;
}

void require_same_case(const Checkpoint& ck, const FlowCase& c) {
  if (!ck.header.contains("case") || !ck.header["case"].is_object())
    damaged(ck.source, "its header holds no case description");
  const nlohmann::json& was = ck.header["case"];
  const nlohmann::json now = case_identity(c);
  for (const auto& [key, value] : now.items()) {
    const bool present = was.contains(key);
    if (present && was[key] == value) continue;
    throw Error(fmt::format(
        "checkpoint '{}' belongs to another case: {} is {} there and {} here; restart with the "
        "case (grid, boundaries, obstacles, method) that wrote it, or start a new run",
        ck.source, key, present ? was[key].dump() : "absent", value.dump()));
  }
  for (const auto& [key, value] : was.items())
    if (!now.contains(key))
      throw Error(
          fmt::format("checkpoint '{}' belongs to another case: it has {} = {}, this case "
                      "has none",
                      ck.source, key, value.dump()));
  // A transient run restarted past its end would stop at once and report "converged".
  const nlohmann::json* run = ck.header.contains("run") ? &ck.header["run"] : nullptr;
  if (!c.steady() && run && run->contains("time") && (*run)["time"].is_number()) {
    const double t = (*run)["time"].get<double>();
    if (t > c.t_end)
      throw Error(fmt::format("checkpoint '{}' is at t = {:.6g}, past this run's end t_end = "
                              "{:.6g}; give a later --t-end (or t_end) to go on from it",
                              ck.source, t, c.t_end));
  }
}

}  // namespace gridsolve::flow
