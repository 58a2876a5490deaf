// Safe file output: temporary siblings, checked writes, fsync and rename; devices and FIFOs in
// place.
#include "gridsolve/io/atomic_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) {
  return std::generic_category().message(err);
}

// Closes a descriptor on every exit path; close() proper is called (and checked) by
// the code that wants its result.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  // Closes now; close can report a deferred write error (NFS, some full disks).
  int close() {
    const int r = ::close(fd_);
    fd_ = -1;
    return r;
  }

 private:
  int fd_;
};

// Temporaries not yet committed, for the signal handler. Fixed-size storage and
// lock-free flags, because a handler may neither allocate nor take locks.
constexpr int pending_slots = 64;
constexpr std::size_t pending_path_bytes = 4096;
struct PendingTemporary {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path to remove
  char path[pending_path_bytes];
};
PendingTemporary pending[pending_slots];

int remember_temporary(const std::string& path) {
  if (path.size() >= pending_path_bytes) return -1;
  for (int s = 0; s < pending_slots; ++s) {
    int expected = 0;
    if (!pending[s].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(pending[s].path, path.c_str(), path.size() + 1);
    pending[s].state.store(2);
    return s;
  }
  return -1;  // more than 64 open at once: still removed on errors, not on signals
}

void forget_temporary(int slot) {
  if (slot >= 0) pending[slot].state.store(0);
}

const char* kind_of_file(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// The folder a new file at `path` goes into must exist and be writable (rename needs it).
void check_parent_writable(const std::string& link, const std::string& resolved) {
  // Messages name the file as given, and where its link leads.
  const std::string what = link == resolved
                               ? fmt::format("'{}'", link)
                               : fmt::format("'{}' (a symbolic link to '{}')", link, resolved);
  fs::path parent = fs::path(resolved).parent_path();
  if (parent.empty()) parent = ".";
  struct stat st {};
  if (::stat(parent.c_str(), &st) != 0)
    throw Error(
        fmt::format("cannot write {}: folder '{}': {}", what, parent.string(), errno_text(errno)));
  if (!S_ISDIR(st.st_mode))
    throw Error(fmt::format("cannot write {}: '{}' is not a directory", what, parent.string()));
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw Error(
        fmt::format("cannot write {}: folder '{}': {}", what, parent.string(), errno_text(errno)));
}

// A FIFO opened for writing without a reader either blocks forever or fails; a reader
// started just before gridsolve may not have opened it yet, so wait a little for one.
int open_stream(const std::string& path) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (;;) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      // Blocking from here on: a slow reader must not turn into EAGAIN.
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      return fd;
    }
    const int err = errno;
    if (err == EINTR) continue;
    if (err == ENXIO && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (err == ENXIO)
      throw Error(fmt::format(
          "cannot write '{}': it is a FIFO and no process opened it for reading within 3 s", path));
    throw Error(fmt::format("cannot write '{}': {}", path, errno_text(err)));
  }
}

// The file `path` names after following symbolic links, one hop at a time (a relative
// link is relative to its own folder). The links are kept: a link to a results file
// still points at the new results. A dangling link names the file it points to, which
// is then created; a loop is refused.
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40)
      throw Error(fmt::format("cannot write '{}': too many levels of symbolic links", path));
    std::error_code ec;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw Error(fmt::format("cannot write '{}': {}", path, ec.message()));
    // Not normalized: "dir/../x" must go through dir as the kernel does (dir may be a link).
    p = to.is_absolute() ? to.string() : (fs::path(p).parent_path() / to).string();
  }
}

// Makes a file's contents durable before the rename publishes it; without this a
// power loss right after the rename could leave a complete-looking but empty file.
// fsync also reports deferred write errors (a full disk seen only at writeback).
void sync_file(const std::string& path, const std::string& target) {
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw Error(
        fmt::format("cannot write '{}': reopening '{}': {}", target, path, errno_text(errno)),
        Error::Kind::runtime);
  if (::fsync(fd.get()) != 0 && errno != EINVAL && errno != EROFS)
    throw Error(fmt::format("cannot write '{}': {}", target, errno_text(errno)),
                Error::Kind::runtime);
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

OutputTarget check_output_path(const std::string& path, bool allow_stream) {
  require(!path.empty(), "output file name must not be empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw Error(fmt::format("cannot write '{}': {}", path, errno_text(errno)));
    check_parent_writable(path, resolve_links(path));
    return OutputTarget::replace;
  }
  if (S_ISREG(st.st_mode)) {
    check_parent_writable(path, resolve_links(path));
    return OutputTarget::replace;
  }
  const bool stream = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
  if (!stream || !allow_stream)
    throw Error(fmt::format(
        "cannot write '{}': it is {}; give the path of a regular file (it is never replaced)", path,
        kind_of_file(st.st_mode)));
  // A FIFO is not opened here: closing it again would end the reader's input.
  if (S_ISCHR(st.st_mode)) {
    Descriptor fd(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) throw Error(fmt::format("cannot write '{}': {}", path, errno_text(errno)));
  }
  return OutputTarget::stream;
}

std::string output_file_of(const std::string& path) {
  return resolve_links(path);
}

void remove_output_file(const std::string& path) {
  const std::string target = resolve_links(path);
  if (::unlink(target.c_str()) != 0 && errno != ENOENT)
    throw Error(fmt::format("cannot remove '{}'{}: {}", target,
                            target == path ? std::string() : fmt::format(" (through '{}')", path),
                            errno_text(errno)),
                Error::Kind::runtime);
}

void publish_file(const std::string& finished, const std::string& path) {
  const std::string target = resolve_links(path);
  if (std::rename(finished.c_str(), target.c_str()) == 0) return;
  const int err = errno;
  if (err != EXDEV)
    throw Error(fmt::format("cannot write '{}': renaming '{}' failed: {}", target, finished,
                            errno_text(err)),
                Error::Kind::runtime);
  // The link leads to another file system: copied next to the target, then renamed there.
  std::ifstream in(finished, std::ios::binary);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    throw Error(fmt::format("cannot read '{}' to write '{}'", finished, target),
                Error::Kind::runtime);
  write_file_atomically(target, contents);
  ::unlink(finished.c_str());
}

TemporaryPath::TemporaryPath(std::string path)
    : path_(std::move(path)), slot_(remember_temporary(path_)) {}

TemporaryPath::~TemporaryPath() {
  if (!path_.empty()) ::unlink(path_.c_str());
  release();
}

void TemporaryPath::release() noexcept {
  forget_temporary(slot_);
  slot_ = -1;
  path_.clear();
}

std::string prepare_output_file(const std::string& dir, const std::string& name) {
  create_output_directory(dir);
  const std::string path = (fs::path(dir) / name).string();
  check_output_path(path, false);
  return path;
}

AtomicOutput::AtomicOutput(std::string target) : target_(resolve_links(target)) {
  require(!target_.empty(), "output file name must not be empty");
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(fmt::format(
        "cannot write '{}': it is {}; give the path of a regular file (it is never replaced)",
        target_, kind_of_file(st.st_mode)));
  std::vector<char> name(target_.begin(), target_.end());
  const char suffix[] = ".tmp-XXXXXX";
  name.insert(name.end(), suffix, suffix + sizeof(suffix));  // includes the terminating 0
  // mkstemp picks a name no concurrent writer holds, so two runs writing the same
  // target never interleave their bytes.
  // A termination signal between creating the temporary and recording it for the handler
  // would leave it behind: those signals are held back for the two steps (and arrive
  // right after, when the handler knows the file).
  sigset_t hold, previous;
  sigemptyset(&hold);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&hold, sig);
  ::pthread_sigmask(SIG_BLOCK, &hold, &previous);
  const int fd = ::mkstemp(name.data());
  const int err = errno;
  if (fd >= 0) {
    temp_ = name.data();
    slot_ = remember_temporary(temp_);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0) throw Error(fmt::format("cannot write '{}': {}", target_, errno_text(err)));
  // mkstemp creates the file 0600; results are meant to be read by others too.
  ::fchmod(fd, 0644);
  ::close(fd);
}

AtomicOutput::~AtomicOutput() {
  abandon();
}

void AtomicOutput::abandon() noexcept {
  if (!committed_ && !temp_.empty()) {
    ::unlink(temp_.c_str());
    forget_temporary(slot_);
    slot_ = -1;
    temp_.clear();
  }
}

void AtomicOutput::sync() const {
  require(!committed_ && !temp_.empty(),
          fmt::format("'{}' was already committed or abandoned", target_));
  sync_file(temp_, target_);
}

void AtomicOutput::commit() {
  sync();
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    throw Error(
        fmt::format("cannot write '{}': renaming '{}' failed: {}", target_, temp_, errno_text(err)),
        Error::Kind::runtime);
  }
  committed_ = true;
  forget_temporary(slot_);
  slot_ = -1;
}

void write_all(int fd, std::string_view contents, const std::string& what) {
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot write {}: {}", what, errno_text(errno)),
                  Error::Kind::runtime);
    }
    if (n == 0)
      throw Error(fmt::format("cannot write {}: the write made no progress", what),
                  Error::Kind::runtime);
    p += n;
    left -= std::size_t(n);
  }
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string what = fmt::format("'{}'", path);
  if (check_output_path(path) == OutputTarget::stream) {
    Descriptor fd(open_stream(path));
    write_all(fd.get(), contents, what);
    if (fd.close() != 0)
      throw Error(fmt::format("cannot write {}: {}", what, errno_text(errno)),
                  Error::Kind::runtime);
    return;
  }
  AtomicOutput out(path);
  write_to_temporary(out.temp_path(), path, contents);
  out.commit();
}

void write_to_temporary(const std::string& temp, const std::string& label,
                        std::string_view contents) {
  const std::string what = fmt::format("'{}'", label);
  Descriptor fd(::open(temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (fd.get() < 0)
    throw Error(fmt::format("cannot write {}: {}", what, errno_text(errno)), Error::Kind::runtime);
  write_all(fd.get(), contents, what);
  // fsync and close can report deferred write errors (full disk, NFS); ignoring them
  // would publish a short file.
  if (::fsync(fd.get()) != 0 && errno != EINVAL)
    throw Error(fmt::format("cannot write {}: {}", what, errno_text(errno)), Error::Kind::runtime);
  if (fd.close() != 0)
    throw Error(fmt::format("cannot write {}: {}", what, errno_text(errno)), Error::Kind::runtime);
}

void remove_pending_temporaries() noexcept {
  for (int s = 0; s < pending_slots; ++s)
    if (pending[s].state.load() == 2) ::unlink(pending[s].path);
}

namespace {
void on_termination_signal(int sig) {
  remove_pending_temporaries();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
}  // namespace

void remove_temporaries_on_termination_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_termination_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal ignored by whoever started us (nohup) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace gridsolve
