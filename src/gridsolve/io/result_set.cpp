// A set of result files published together: staged under temporary names, manifest last.
#include "gridsolve/io/result_set.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/io/atomic_file.hpp"

namespace gridsolve {

std::string make_run_id() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::random_device rd;
  return fmt::format("{}-{}-{:08x}", stamp, long(::getpid()), rd());
}

std::string with_run_id_column(std::string_view csv, const std::string& run_id) {
  std::string out;
  out.reserve(csv.size() +
              (run_id.size() + 1) * std::size_t(std::count(csv.begin(), csv.end(), '\n')));
  bool header = true;
  while (!csv.empty()) {
    const std::size_t end = csv.find('\n');
    const std::string_view line = csv.substr(0, end);
    csv.remove_prefix(end == std::string_view::npos ? csv.size() : end + 1);
    if (line.empty()) continue;
    out.append(line);
    out += ',';
    out += header ? std::string_view("run_id") : std::string_view(run_id);
    out += '\n';
    header = false;
  }
  return out;
}

ResultSet::ResultSet(std::string dir, std::string run_id)
    : dir_(std::move(dir)), run_id_(run_id.empty() ? make_run_id() : std::move(run_id)) {
  create_output_directory(dir_);
}

ResultSet::~ResultSet() = default;

std::string ResultSet::path_of(const std::string& name) const {
  return dir_ + "/" + name;
}

const std::string& ResultSet::stage(const std::string& name) {
  require(!name.empty() && name.find('/') == std::string::npos && name != "." && name != "..",
          fmt::format("result file name '{}' must be a plain file name", name));
  for (const std::string& n : names_)
    require(n != name, fmt::format("result file '{}' was staged twice", name));
  const std::string path = path_of(name);
  check_output_path(path, false);
  files_.push_back(std::make_unique<AtomicOutput>(path));
  names_.push_back(name);
  return files_.back()->temp_path();
}

void ResultSet::stage_text(const std::string& name, std::string_view contents) {
  const std::string& temp = stage(name);
  write_to_temporary(temp, path_of(name), contents);
}

namespace {
void check_relative(const std::string& name) {
  require(!name.empty() && name.front() != '/' && name.find("..") == std::string::npos,
          fmt::format("result file name '{}' must name a file inside the result folder", name));
}
}  // namespace

void ResultSet::retire(const std::string& name) {
  check_relative(name);
  retired_.push_back(name);
}

void ResultSet::clear_previous(const std::string& manifest, const std::vector<std::string>& names) {
  remove_output_file(path_of(manifest));
  for (const std::string& n : names) {
    check_relative(n);
    remove_output_file(path_of(n));
  }
}

void ResultSet::commit_before_manifest(const std::string& manifest) {
  for (const std::string& n : names_)
    require(n != manifest, fmt::format("the manifest '{}' is written later, not staged", manifest));
  for (const auto& f : files_) f->sync();
  remove_output_file(path_of(manifest));
  for (const auto& f : files_) f->commit();
  for (const std::string& n : retired_) remove_output_file(path_of(n));
}

void ResultSet::commit(const std::string& manifest) {
  std::size_t m = names_.size();
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == manifest) m = i;
  require(m < names_.size(), fmt::format("the manifest '{}' was not staged", manifest));
  // Everything on disk (and every deferred write error seen) before anything is renamed.
  for (const auto& f : files_) f->sync();
  // The old manifest goes first (through a link: the file it points to, the link kept):
  // from here until the new one lands, the folder says that its set is incomplete.
  remove_output_file(files_[m]->target());
  for (std::size_t i = 0; i < files_.size(); ++i)
    if (i != m) files_[i]->commit();
  for (const std::string& n : retired_) remove_output_file(path_of(n));
  files_[m]->commit();
}

}  // namespace gridsolve
