// Input files: opened without blocking, checked to be regular and bounded, then read.
#include "gridsolve/io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <system_error>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// An open descriptor that closes itself.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void refuse_os(std::string_view what, const std::string& path, int err) {
  throw Error(fmt::format("cannot read {} '{}': {}", what, printable(path),
                          std::generic_category().message(err)));
}

// Opens `path` for reading and checks it; the descriptor is left blocking again.
std::uintmax_t open_checked(const std::string& path, std::uintmax_t limit, std::string_view what,
                            Descriptor& d) {
  if (path.empty()) throw Error(fmt::format("the {} path is empty; name a file", what));
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  d.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (d.fd < 0) refuse_os(what, path, errno);
  struct stat st {};
  if (::fstat(d.fd, &st) != 0) refuse_os(what, path, errno);
  if (S_ISDIR(st.st_mode))
    throw Error(
        fmt::format("cannot read {} '{}': it is a directory, not a file", what, printable(path)));
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("cannot read {} '{}': it is {}; give a regular file", what,
                            printable(path), kind_of(st.st_mode)));
  const auto size = std::uintmax_t(st.st_size);
  if (size > limit)
    throw Error(fmt::format("{} '{}' is larger than {} bytes ({} bytes); that is not a {} this "
                            "program wrote or could use",
                            what, printable(path), limit, size, what));
  const int flags = ::fcntl(d.fd, F_GETFL);
  if (flags >= 0) ::fcntl(d.fd, F_SETFL, flags & ~O_NONBLOCK);
  return size;
}

}  // namespace

std::uintmax_t require_input_file(const std::string& path, std::uintmax_t limit,
                                  std::string_view what) {
  Descriptor d;
  return open_checked(path, limit, what, d);
}

std::string read_input_file(const std::string& path, std::size_t limit, std::string_view what) {
  Descriptor d;
  const std::uintmax_t size = open_checked(path, limit, what, d);
  std::string text;
  text.reserve(std::size_t(size));
  char buffer[65536];
  // Read at most one byte past the limit: a file that grew since the check is refused
  // without reading all of it.
  while (text.size() <= limit) {
    const ssize_t got = ::read(d.fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      refuse_os(what, path, errno);
    }
    if (got == 0) break;
    text.append(buffer, std::size_t(got));
  }
  if (text.size() > limit)
    throw Error(fmt::format("{} '{}' is larger than {} bytes; that is not a {} this program "
                            "wrote or could use",
                            what, printable(path), limit, what));
  return text;
}

}  // namespace gridsolve
