// Atomic file output: temporary sibling files, fsync and rename.
#include "gridsolve/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) {
  return std::generic_category().message(err);
}

// Makes a file's contents durable before the rename publishes it; without this a
// power loss right after the rename could leave a complete-looking but empty file.
void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;  // best effort: the rename below still guards against torn files
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void create_output_directory(const std::string& dir) {
  require(!dir.empty(), "output directory must not be empty (use \".\" for the current one)");
  std::error_code ec;
  const fs::path p(dir);
  if (fs::exists(p, ec) && !fs::is_directory(p, ec))
    throw Error(
        fmt::format("cannot use output directory '{}': it exists and is not a directory", dir));
  fs::create_directories(p, ec);
  if (ec) throw Error(fmt::format("cannot create output directory '{}': {}", dir, ec.message()));
  // access() answers for the real user; that is who writes the results.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("cannot write into output directory '{}': {}", dir, errno_text(errno)));
}

AtomicOutput::AtomicOutput(std::string target) : target_(std::move(target)) {
  require(!target_.empty(), "output file name must not be empty");
  std::vector<char> name(target_.begin(), target_.end());
  const char suffix[] = ".tmp-XXXXXX";
  name.insert(name.end(), suffix, suffix + sizeof(suffix));  // includes the terminating 0
  // mkstemp picks a name no concurrent writer holds, so two runs writing the same
  // target never interleave their bytes.
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw Error(fmt::format("cannot write '{}': {}", target_, errno_text(errno)));
  // mkstemp creates the file 0600; results are meant to be read by others too.
  ::fchmod(fd, 0644);
  ::close(fd);
  temp_ = name.data();
}

AtomicOutput::~AtomicOutput() {
  if (!committed_ && !temp_.empty()) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
  require(!committed_, fmt::format("'{}' was already committed", target_));
  sync_file(temp_);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    throw Error(fmt::format("cannot write '{}': renaming '{}' failed: {}", target_, temp_,
                            errno_text(err)));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicOutput out(path);
  const int fd = ::open(out.temp_path().c_str(), O_WRONLY | O_TRUNC);
  if (fd < 0) throw Error(fmt::format("cannot write '{}': {}", path, errno_text(errno)));
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw Error(fmt::format("cannot write '{}': {}", path, errno_text(err)));
    }
    p += n;
    left -= std::size_t(n);
  }
  // fsync and close can report deferred write errors (full disk, NFS); ignoring them
  // would publish a short file.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    throw Error(fmt::format("cannot write '{}': {}", path, errno_text(err)));
  }
  if (::close(fd) != 0) throw Error(fmt::format("cannot write '{}': {}", path, errno_text(errno)));
  out.commit();
}

}  // namespace gridsolve
