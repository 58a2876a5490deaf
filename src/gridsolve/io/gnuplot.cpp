#include "gridsolve/io/gnuplot.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gridsolve {

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path p = std::filesystem::path(dir) / "gnuplot";
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

std::string run_gnuplot(const std::string& dir, const std::string& script) {
  const std::string exe = find_gnuplot();
  if (exe.empty()) return "gnuplot is not installed (Debian package gnuplot-nox)";
  // Absolute, because the command changes into `dir` before the redirection opens it.
  std::error_code abs_ec;
  const std::filesystem::path where = std::filesystem::absolute(dir, abs_ec);
  const std::string log =
      ((abs_ec ? std::filesystem::path(dir) : where) / ".gnuplot-errors.txt").string();
  const std::string cmd = fmt::format("cd {} && {} {} > /dev/null 2> {}", shell_quote(dir),
                                      shell_quote(exe), shell_quote(script), shell_quote(log));
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream errors;
  errors << in.rdbuf();
  std::error_code ec;
  std::filesystem::remove(log, ec);
  if (rc == 0) return {};
  const std::string e = errors.str();
  return fmt::format("gnuplot failed on {}: {}", script,
                     e.empty() ? "no message" : e.substr(0, 2000));
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace gridsolve
