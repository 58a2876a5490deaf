// Gnuplot as a plotting back end: found on PATH, run as a child process with a time limit.
#include "gridsolve/io/gnuplot.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

namespace gridsolve {

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path p = std::filesystem::path(dir) / "gnuplot";
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0)
      return p.string();
  }
  return {};
}

std::string run_gnuplot(const std::string& dir, const std::string& script, double timeout_seconds) {
  const std::string exe = find_gnuplot();
  if (exe.empty()) return "gnuplot is not installed (Debian package gnuplot-nox)";
  // A script name that starts with '-' would read as an option.
  const std::string script_arg = script.find('/') == std::string::npos ? "./" + script : script;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return fmt::format("cannot run gnuplot: {}", std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) {
    const int err = errno;
    ::close(out[0]);
    ::close(out[1]);
    return fmt::format("cannot run gnuplot: {}", std::strerror(err));
  }
  if (child == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int in = ::open("/dev/null", O_RDONLY);  // never an interactive session
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    if (::chdir(dir.c_str()) != 0) {
      const char msg[] = "cannot enter the plot folder\n";
      (void)!::write(2, msg, sizeof msg - 1);
      ::_exit(126);
    }
    const char* argv[] = {"gnuplot", script_arg.c_str(), nullptr};
    ::execv(exe.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(out[1]);

  // Collect its messages until it closes its output or the time is up.
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(timeout_seconds));
  std::string messages;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int r = ::poll(&p, 1, int(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of output: gnuplot is finishing
    if (messages.size() < 4000) messages.append(buf, std::size_t(n));
  }
  ::close(out[0]);
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(child, &status, WNOHANG);
    if (w == child) break;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;
    // Still running at the deadline (it may have closed its output and hung): stop it.
    if (timed_out || clock::now() >= deadline) {
      timed_out = true;
      ::kill(child, SIGKILL);
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (timed_out)
    return fmt::format("gnuplot on {} did not finish within {:g} s and was stopped", script,
                       timeout_seconds);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string why = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                              : fmt::format("exit status {}", WEXITSTATUS(status));
  return fmt::format("gnuplot failed on {} ({}): {}", script, why,
                     messages.empty() ? "no message" : messages.substr(0, 2000));
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace gridsolve
