// Helpers for the output and resource tests: scratch folders, shell runs of the CLI, files.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gridsolve::output_testing {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
class Scratch {
 public:
  explicit Scratch(const std::string& tag = "") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::random_device rd;
    path_ = fs::temp_directory_path() / (std::string("gridsolve_out_") + info->test_suite_name() +
                                         "_" + info->name() + tag + "_" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& leaf) const { return (path_ / leaf).string(); }

 private:
  fs::path path_;
};

struct Outcome {
  int code = -1;  // exit status, or 128 + signal
  std::string output;
};

// Runs `script` with sh -c, "$GS" being the gridsolve command; stdout and stderr together
// unless the script redirects them itself.
inline Outcome shell(const std::string& script) {
  std::string quoted;
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string cmd = std::string("GS='") + GRIDSOLVE_CLI + "' sh -c '" + quoted + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  Outcome o;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) o.output += buf;
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return o;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().filename().string().find(".tmp-") != std::string::npos)
      found.push_back(e.path().string());
  return found;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace gridsolve::output_testing
