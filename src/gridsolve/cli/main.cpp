// gridsolve: the command line front end; what every command shares at the process level
// (signals, standard output, allocation failures) is set up here.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "gridsolve/cli/commands.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"

// Every allocation in the program reports its size when it fails, and large ones are
// checked against the memory actually available before the kernel's overcommit grants
// them (gridsolve::allocate_host_checked). The matching deletes stay the library's,
// which free() what malloc and posix_memalign returned.
void* operator new(std::size_t bytes) {
  return gridsolve::allocate_host_checked(bytes);
}
void* operator new[](std::size_t bytes) {
  return gridsolve::allocate_host_checked(bytes);
}
void* operator new(std::size_t bytes, std::align_val_t a) {
  return gridsolve::allocate_host_checked(bytes, std::size_t(a));
}
void* operator new[](std::size_t bytes, std::align_val_t a) {
  return gridsolve::allocate_host_checked(bytes, std::size_t(a));
}

namespace {

void install_signal_handlers() {
  // SIGINT, SIGTERM, SIGHUP: remove the temporaries of files being written first.
  gridsolve::remove_temporaries_on_termination_signals();
  // A reader that went away (gridsolve ... | head) is a write error with a message, not
  // a silent death by SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

// A closed standard stream would hand its number to the next file opened, and text
// meant for standard output would land in a result file. Read-only /dev/null keeps the
// number taken while writes to it still fail, as writes to a closed stream should.
void occupy_closed_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int n = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (n >= 0 && n != fd) {
      ::dup2(n, fd);
      ::close(n);
    }
  }
}

// Output that never arrived (a full disk, a closed stream) is a failure, whatever the
// command thought of its result.
int check_standard_output(int code) {
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return code;
  const int err = errno;
  std::fprintf(stderr, "gridsolve: error: cannot write standard output: %s\n",
               err ? std::strerror(err) : "a write failed");
  return code == 0 ? gridsolve::cli::exit_failure : code;
}

}  // namespace

int main(int argc, char** argv) {
  occupy_closed_standard_streams();
  install_signal_handlers();
  // MPI only under a launcher: a plain `gridsolve ...` stays the one-process program.
  gridsolve::MpiSession mpi(argc, argv, gridsolve::launched_by_mpi());
  const int code = check_standard_output(gridsolve::cli::run(argc, argv));
  // A failure (its message printed by the command) may have struck this rank alone while
  // the others wait for it in a collective: end them all with its code rather than hang.
  // Not converging is every rank's shared verdict, so those ranks finish normally.
  const gridsolve::Communicator& world = gridsolve::Communicator::world();
  if (world.size() > 1 && code != 0 && code != gridsolve::cli::exit_not_converged)
    world.abort("stopping every rank", code);
  return code;
}
