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
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

InputFile::InputFile(const std::string& path, std::uintmax_t limit, std::string_view what,
                     std::string_view limit_reason)
    : path_(path), what_(what) {
  if (path.empty()) throw Error(fmt::format("the {} path is empty; name a file", what));
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail(read_error(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail(read_error(errno));
  if (S_ISDIR(st.st_mode))
    fail(fmt::format("cannot read {} '{}': it is a directory, not a file", what_,
                     printable(path_)));
  if (!S_ISREG(st.st_mode))
    fail(fmt::format("cannot read {} '{}': it is {}; give a regular file", what_, printable(path_),
                     kind_of(st.st_mode)));
  size_ = std::uintmax_t(st.st_size);
  if (size_ > limit)
    fail(fmt::format("{} '{}' has {} bytes, more than the {} bytes such a file can have{}{}", what_,
                     printable(path_), size_, limit, limit_reason.empty() ? "" : ": ",
                     limit_reason));
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read(char* buffer, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, buffer, n);
    if (got >= 0) return std::size_t(got);
    if (errno != EINTR) throw Error(read_error(errno), Error::Kind::runtime);
  }
}

std::string InputFile::read_all() {
  std::string bytes(std::size_t(size_), '\0');
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t got = read(bytes.data() + at, bytes.size() - at);
    if (got == 0)
      throw Error(fmt::format("{} '{}' became shorter while it was read", what_, printable(path_)),
                  Error::Kind::runtime);
    at += got;
  }
  char extra = 0;
  if (read(&extra, 1) != 0)
    throw Error(fmt::format("{} '{}' grew while it was read", what_, printable(path_)),
                Error::Kind::runtime);
  return bytes;
}

std::string InputFile::read_error(int err) const {
  return fmt::format("cannot read {} '{}': {}", what_, printable(path_),
                     std::generic_category().message(err));
}

void InputFile::fail(const std::string& message) {
  if (fd_ >= 0) ::close(fd_), fd_ = -1;
  throw Error(message);
}

std::string read_input_file(const std::string& path, std::uintmax_t limit, std::string_view what) {
  return InputFile(path, limit, what).read_all();
}

}  // namespace gridsolve
