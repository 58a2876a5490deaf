// gridsolve tridiag: reads "n count" and then a b c d per row, solves every system on the
// chosen device, writes x (one value per line) and reports the residual.
#include "gridsolve/cli/tridiag_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gridsolve/cli/commands.hpp"
#include "gridsolve/io/input_file.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/solve/tridiag/solution_check.hpp"
#include "gridsolve/solve/tridiag/tridiagonal.hpp"

namespace gridsolve::cli {

CLI::App* add_tridiag_command(CLI::App& app, TridiagSettings& s) {
  CLI::App* t = app.add_subcommand(
      "tridiag", "solve tridiagonal systems from a file (diagonally dominant or SPD; no pivoting)");
  t->add_option("input", s.input,
                "the systems: 'n count', then 'a b c d' per row (docs/tridiag.md)")
      ->required();
  t->add_option("-o,--out", s.output, "file for the solutions (default: standard output)");
  t->add_option("--method", s.method, "auto | thomas | cr | pcr | cr-pcr (GPU) | partitioned")
      ->capture_default_str();
  t->add_option("--device", s.device, "cpu | cuda | auto")->capture_default_str();
  t->add_option("--precision", s.precision, "double | float")->capture_default_str();
  t->add_flag("-q,--quiet", s.quiet, "print nothing but errors");
  return t;
}

namespace {

struct Systems {
  int n = 0, count = 0;
  std::vector<double> a, b, c, d;
};

// Numbers from a text file, whitespace separated, '#' to the end of a line a comment.
// Lines are read into a fixed buffer, so a line without end fails at its first megabyte
// instead of filling memory, and no more than a set number of bytes is read.
class NumberReader {
 public:
  explicit NumberReader(InputFile& file) : file_(file) {}
  // The next token, or false at the end of the file.
  bool next(std::string_view& token) {
    for (;;) {
      while (pos_ < len_ && std::isspace((unsigned char)line_[pos_])) ++pos_;
      if (pos_ < len_) {
        const std::size_t from = pos_;
        while (pos_ < len_ && !std::isspace((unsigned char)line_[pos_])) ++pos_;
        token = std::string_view(line_.data() + from, pos_ - from);
        return true;
      }
      if (!read_line()) return false;
    }
  }
  std::size_t line() const { return line_no_; }
  // Whether the current line holds nothing more (past its comment, if any).
  bool line_is_done() const {
    for (std::size_t p = pos_; p < len_; ++p)
      if (!std::isspace((unsigned char)line_[p])) return false;
    return true;
  }
  // No line may start past byte `bytes`; `why` says what that means for the file.
  void limit(std::uint64_t bytes, std::string why) {
    limit_ = bytes;
    limit_why_ = std::move(why);
  }

 private:
  bool read_line() {
    len_ = pos_ = 0;
    bool any = false;
    for (;;) {
      if (chunk_pos_ == chunk_len_) {
        chunk_len_ = file_.read(chunk_.data(), chunk_.size());
        chunk_pos_ = 0;
        if (chunk_len_ == 0) break;  // the end of the file
      }
      if (!any) require(consumed_ <= limit_, limit_why_);
      any = true;
      const char* from = chunk_.data() + chunk_pos_;
      const std::size_t left = chunk_len_ - chunk_pos_;
      const char* newline = static_cast<const char*>(std::memchr(from, '\n', left));
      const std::size_t take = newline ? std::size_t(newline - from) : left;
      require(len_ + take <= line_.size(),
              fmt::format("'{}' line {} is longer than {} bytes; is it the right file?",
                          file_.path(), line_no_ + 1, line_.size()));
      std::memcpy(line_.data() + len_, from, take);
      len_ += take;
      const std::size_t step = take + (newline ? 1 : 0);
      chunk_pos_ += step;
      consumed_ += step;
      if (newline) break;
    }
    if (!any) return false;
    ++line_no_;
    const char* hash = static_cast<const char*>(std::memchr(line_.data(), '#', len_));
    if (hash) len_ = std::size_t(hash - line_.data());
    return true;
  }
  InputFile& file_;
  std::vector<char> chunk_ = std::vector<char>(std::size_t(1) << 16);
  std::size_t chunk_len_ = 0, chunk_pos_ = 0;
  std::vector<char> line_ = std::vector<char>((std::size_t(1) << 20) - 1);
  std::size_t len_ = 0, pos_ = 0, line_no_ = 0;
  std::uint64_t consumed_ = 0, limit_ = std::numeric_limits<std::uint64_t>::max();
  std::string limit_why_;
};

long long parse_count(std::string_view t, const std::string& path, const char* what) {
  long long v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  require(r.ec == std::errc() && r.ptr == t.data() + t.size(),
          fmt::format("'{}' must start with two integers, rows per system and number of systems; "
                      "the {} is '{}'",
                      path, what, t));
  return v;
}

// Whether `v` can be a coefficient in T. Past the largest value the conversion gives
// inf; below the smallest normal number a value keeps fewer bits than the precision has,
// and far enough below none (1e-300 in float is 0). Either way the system solved would
// not be the one in the file.
enum class Fit { fits, too_large, too_small };

template <class T>
Fit fit_of(double v) {
  if (v == 0) return Fit::fits;
  const T t = T(v);
  if (std::isinf(t)) return Fit::too_large;
  if (std::abs(t) < std::numeric_limits<T>::min()) return Fit::too_small;
  return Fit::fits;
}

template <class T>
void require_fit(double v, std::string_view text, const std::string& path, std::size_t line,
                 char column, std::size_t row, std::size_t system) {
  const Fit fit = fit_of<T>(v);
  if (fit == Fit::fits) return;
  const bool single = std::is_same_v<T, float>;
  const char* type = single ? "float" : "double";
  const std::string bound =
      fit == Fit::too_large
          ? fmt::format("larger than {} holds (at most {})", type, std::numeric_limits<T>::max())
          : fmt::format("smaller than {} holds to full precision (at least {})", type,
                        std::numeric_limits<T>::min());
  throw Error(fmt::format("'{}' line {}: {} = {} (row {} of system {}) is {}; {}scale the system",
                          path, line, column, text, row, system, bound,
                          single ? "use --precision double or " : ""));
}

// A plausible file of systems: up to 1 MiB of comments (before the header or anywhere)
// and up to 1 KiB a row (four numbers of 17 digits take under 100 bytes). Larger is not
// a file of the systems its header declares: it is refused before it is read.
constexpr std::uint64_t comment_bytes = std::uint64_t(1) << 20;
constexpr std::uint64_t row_bytes = 1024;

Systems read_systems(const std::string& path, bool single) {
  // The bound depends on the header: any regular file may be opened, and is measured
  // once its header is read.
  InputFile file(path, std::numeric_limits<std::uintmax_t>::max(), "system file");
  NumberReader in(file);
  in.limit(comment_bytes,
           fmt::format("'{}' has no header 'n count' in its first {} bytes; is it a file of "
                       "systems?",
                       path, comment_bytes));
  std::string_view t;
  const char* header = "'{}' must start with two integers: rows per system and number of systems";
  require(in.next(t), fmt::format(fmt::runtime(header), path));
  const long long n = parse_count(t, path, "row count");
  require(in.next(t), fmt::format(fmt::runtime(header), path));
  const long long count = parse_count(t, path, "system count");
  require(n >= 1 && count >= 1,
          fmt::format("'{}': rows and systems must be positive, got {} and {}", path, n, count));
  const long long int_max = std::numeric_limits<int>::max();
  require(n <= int_max && count <= int_max && n <= int_max * 64 / count,
          fmt::format("'{}': {} systems of {} rows is more than gridsolve tridiag handles "
                      "(at most {} rows in all)",
                      path, count, n, int_max * 64));
  const std::size_t size = std::size_t(n) * std::size_t(count);
  // Every row is at least "a b c d" and a separator: a short file cannot hold what its
  // header declares, whatever that asks of memory. A long one is not these rows either.
  const std::uint64_t bytes = file.size();
  require(bytes + 1 >= 8 * std::uint64_t(size),
          fmt::format("'{}' declares {} rows of 'a b c d' (at least 8 bytes each), but the file "
                      "has only {} bytes",
                      path, size, bytes));
  const std::uint64_t most = comment_bytes + row_bytes * std::uint64_t(size);
  const std::string too_long = fmt::format(
      "'{}' has {} bytes, more than {} rows of 'a b c d' can take ({} bytes: {} a "
      "row and {} of comments); is it the right file?",
      path, bytes, size, most, row_bytes, comment_bytes);
  require(bytes <= most, too_long);
  in.limit(most, too_long);  // and if it grows while it is read
  // Four coefficient arrays in double, their copies in the solve's precision, the
  // solution and its text: about 100 bytes a row on the host.
  require_memory(Device::cpu, size * 100, fmt::format("reading {} tridiagonal rows", size));
  Systems s;
  s.n = int(n);
  s.count = int(count);
  s.a.resize(size), s.b.resize(size), s.c.resize(size), s.d.resize(size);
  std::vector<double>* columns[4] = {&s.a, &s.b, &s.c, &s.d};
  for (std::size_t k = 0; k < size; ++k) {
    std::size_t row_line = 0;
    for (int q = 0; q < 4; ++q) {
      require(in.next(t),
              fmt::format("'{}': expected {} rows of 'a b c d', the file ends at row {} of "
                          "system {}",
                          path, size, k % s.n, k / s.n));
      // A row is one line: a row of three or five values would otherwise shift every
      // later value into the wrong column without a word.
      if (q == 0) row_line = in.line();
      require(in.line() == row_line,
              fmt::format("'{}' line {}: row {} of system {} has {} value{} where 'a b c d' "
                          "takes 4 on one line",
                          path, row_line, k % s.n, k / s.n, q, q == 1 ? "" : "s"));
      double v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      require(r.ec != std::errc::result_out_of_range,
              fmt::format("'{}' line {}: '{}' is out of the range of double (row {} of system {})",
                          path, in.line(), t, k % s.n, k / s.n));
      require(r.ec == std::errc() && r.ptr == t.data() + t.size() && std::isfinite(v),
              fmt::format("'{}' line {}: '{}' is not a finite number (row {} of system {})", path,
                          in.line(), t, k % s.n, k / s.n));
      // a of a first row and c of a last row are never read: their size does not matter.
      const bool used = !(q == 0 && k % s.n == 0) && !(q == 2 && k % s.n == std::size_t(s.n) - 1);
      if (used) {
        if (single)
          require_fit<float>(v, t, path, in.line(), "abcd"[q], k % s.n, k / s.n);
        else
          require_fit<double>(v, t, path, in.line(), "abcd"[q], k % s.n, k / s.n);
      }
      (*columns[q])[k] = v;
    }
    // And no fifth value on the row's line.
    require(in.line_is_done(),
            fmt::format("'{}' line {}: row {} of system {} has more than the 4 values 'a b c d'",
                        path, row_line, k % s.n, k / s.n));
  }
  require(!in.next(t),
          fmt::format("'{}' has values after the last row (line {}: '{}')", path, in.line(), t));
  return s;
}

template <class T>
std::vector<double> solve_as(const Systems& s, Device device, tridiag::Method method) {
  const std::size_t size = s.d.size();
  std::vector<T> h[4];
  const std::vector<double>* src[4] = {&s.a, &s.b, &s.c, &s.d};
  Buffer<T> dev[4];
  for (int q = 0; q < 4; ++q) {
    h[q].assign(src[q]->begin(), src[q]->end());
    dev[q] = Buffer<T>(device, size);
    copy_bytes(dev[q].data(), device, h[q].data(), Device::cpu, size * sizeof(T));
  }
  tridiag::solve(device,
                 tridiag::Batch<T>{dev[0].data(), dev[1].data(), dev[2].data(), dev[3].data(), s.n,
                                   s.count, tridiag::Layout::strided},
                 {method});
  copy_bytes(h[3].data(), Device::cpu, dev[3].data(), device, size * sizeof(T));
  return std::vector<double>(h[3].begin(), h[3].end());
}

}  // namespace

int tridiag_command(const TridiagSettings& st) {
  const tridiag::Method method = tridiag::parse_method(st.method);
  const Device device = select_device(st.device);
  const bool single = st.precision == "float" || st.precision == "fp32";
  require(single || st.precision == "double" || st.precision == "fp64",
          fmt::format("precision must be double or float, got '{}'", st.precision));
  // Before the work: a result that cannot be written is known now, not after the solve.
  if (!st.output.empty()) check_output_path(st.output);
  const Systems s = read_systems(st.input, single);
  if (device == Device::cuda)
    require_memory(device, s.d.size() * 4 * (single ? 4 : 8),
                   fmt::format("solving {} tridiagonal rows", s.d.size()));
  const std::vector<double> x =
      single ? solve_as<float>(s, device, method) : solve_as<double>(s, device, method);

  // A solution is handed out only if it solves the systems in the file (docs/tridiag.md):
  // finite, and a relative residual within the precision's limit. Otherwise nothing is
  // written and the exit code is 3, as for a solve that did not converge.
  const tridiag::SolutionCheck check = tridiag::check_solution(s.a.data(), s.b.data(), s.c.data(),
                                                               s.d.data(), x.data(), s.n, s.count);
  const double limit =
      single ? tridiag::residual_limit<float>() : tridiag::residual_limit<double>();
  const char* hint = single ? "; --precision double may solve it" : "";
  if (!check.finite) {
    const std::size_t k = std::size_t(check.bad_system) * s.n + check.bad_row;
    std::fprintf(stderr,
                 "gridsolve tridiag: error: x = %s at row %d of system %d: the solution is not "
                 "finite in %s (the system is singular or nearly so, or its solution is beyond "
                 "the precision's range)%s; nothing written\n",
                 fmt::format("{}", x[k]).c_str(), check.bad_row, check.bad_system,
                 single ? "float" : "double", hint);
    return exit_not_converged;
  }
  if (!(check.residual <= limit)) {
    std::fprintf(stderr,
                 "gridsolve tridiag: error: relative residual %.3e in system %d (largest at row "
                 "%d) is above the limit %.1e for %s: the solution is not accurate (a system "
                 "that needs pivoting, or values the precision cannot resolve)%s; nothing "
                 "written\n",
                 check.residual, check.system, check.row, limit, single ? "float" : "double", hint);
    return exit_not_converged;
  }

  std::string text;
  text.reserve(x.size() * 24);
  for (double v : x) text += fmt::format("{:.17g}\n", v);
  if (st.output.empty()) {
    // Checked: a full disk or a closed standard output is an error, not a silent loss.
    if (std::fflush(stdout) != 0)
      throw Error(fmt::format("cannot write standard output: {}", std::strerror(errno)),
                  Error::Kind::runtime);
    write_all(STDOUT_FILENO, text, "standard output");
  } else
    write_file_atomically(st.output, text);
  if (!st.quiet)
    std::fprintf(stderr,
                 "gridsolve tridiag: %d system(s) of %d rows, %s on %s, relative residual %.3e "
                 "(limit %.1e)\n",
                 s.count, s.n, single ? "float" : "double", to_string(device).c_str(),
                 check.residual, limit);
  return exit_ok;
}

}  // namespace gridsolve::cli
