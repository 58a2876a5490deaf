// The data files `gridsolve tridiag` and `gridsolve sort` read: opened without blocking and
// checked before a byte is read to be a regular file of a size the format can have. A FIFO
// with no writer would block the command forever, /dev/zero would never end, a directory
// or a device is a slip of the path: each is refused with exit 2, naming the file.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"

namespace gridsolve::cli {

class InputFile {
 public:
  // Opens `path`, a `what` ("system file", "key file"), of at most `limit` bytes;
  // `limit_reason` says where the limit comes from.
  InputFile(const std::string& path, std::uintmax_t limit, std::string_view what,
            std::string_view limit_reason = {})
      : path_(path), what_(what) {
    if (path.empty()) throw Error(fmt::format("the {} path is empty; name a file", what));
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) fail_os(errno);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail_os(errno);
    if (S_ISDIR(st.st_mode))
      fail(fmt::format("cannot read {} '{}': it is a directory, not a file", what_,
                       printable(path_)));
    if (!S_ISREG(st.st_mode))
      fail(fmt::format("cannot read {} '{}': it is {}; give a regular file", what_,
                       printable(path_), kind_of(st.st_mode)));
    size_ = std::uintmax_t(st.st_size);
    if (size_ > limit)
      fail(fmt::format("{} '{}' has {} bytes, more than the {} bytes such a file can have{}{}",
                       what_, printable(path_), size_, limit, limit_reason.empty() ? "" : ": ",
                       limit_reason));
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  const std::string& path() const { return path_; }
  // The size when opened.
  std::uintmax_t size() const { return size_; }

  // Up to `n` bytes into `buffer`; 0 at the end of the file.
  std::size_t read(char* buffer, std::size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, buffer, n);
      if (got >= 0) return std::size_t(got);
      if (errno != EINTR) throw Error(read_error(errno), Error::Kind::runtime);
    }
  }

  // The whole file, as large as it was when opened (a file that grew since is refused).
  std::string read_all() {
    std::string bytes(std::size_t(size_), '\0');
    std::size_t at = 0;
    while (at < bytes.size()) {
      const std::size_t got = read(bytes.data() + at, bytes.size() - at);
      if (got == 0)
        throw Error(
            fmt::format("{} '{}' became shorter while it was read", what_, printable(path_)),
            Error::Kind::runtime);
      at += got;
    }
    char extra = 0;
    if (read(&extra, 1) != 0)
      throw Error(fmt::format("{} '{}' grew while it was read", what_, printable(path_)),
                  Error::Kind::runtime);
    return bytes;
  }

 private:
  static const char* kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
  }
  std::string read_error(int err) const {
    return fmt::format("cannot read {} '{}': {}", what_, printable(path_),
                       std::generic_category().message(err));
  }
  [[noreturn]] void fail_os(int err) { fail(read_error(err)); }
  [[noreturn]] void fail(const std::string& message) {
    if (fd_ >= 0) ::close(fd_), fd_ = -1;
    throw Error(message);
  }

  std::string path_;
  std::string what_;
  int fd_ = -1;
  std::uintmax_t size_ = 0;
};

}  // namespace gridsolve::cli
