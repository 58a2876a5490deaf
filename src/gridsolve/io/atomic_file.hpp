// Safe file output: temporary sibling + checked writes + rename, special files written in place.
#pragma once
#include <string>
#include <string_view>

namespace gridsolve {

// Creates `dir` (and its parents) when missing and checks that files can be written
// there. Throws Error (invalid_input) naming the folder when it cannot be used.
void create_output_directory(const std::string& dir);

// How an output path will be written.
enum class OutputTarget {
  replace,  // absent or a regular file: a temporary sibling renamed over it
  stream,   // an existing character device or FIFO (/dev/null, a pipe): written in place
};

// Checks, before any work is done, that `path` can be written: its folder exists and is
// writable, and the path is absent, a regular file, or (when `allow_stream`) a character
// device or a FIFO with a reader. A directory, block device, socket or a FIFO nobody
// reads is refused (Error, invalid_input), never replaced. Symbolic links are followed.
OutputTarget check_output_path(const std::string& path, bool allow_stream = true);

// Symbolic links, one rule for every writer: a link in an output path is kept and the
// file it points to is replaced (renamed over, in that file's own folder, so the
// replacement is still atomic). A dangling link is followed too: the file it points to
// is created, as a shell's `>` would (its folder must exist: Error otherwise). A chain
// of links is followed to its end; a loop (40 hops) is refused.
//
// The file that writing `path` replaces: `path` itself, or where its links lead.
std::string output_file_of(const std::string& path);
// Removes the file `path` names (a link's target; the link is kept). Absent is fine; any
// other failure throws Error (runtime) naming the file and the OS error.
void remove_output_file(const std::string& path);
// Renames the finished file `finished` (written by another program, a plot) over the
// file `path` names, following links as above.
void publish_file(const std::string& finished, const std::string& path);

// A file another program writes for us (a plot gnuplot draws before we rename it):
// removed when this object goes away without release(), and by
// remove_pending_temporaries() when a signal ends the process meanwhile.
class TemporaryPath {
 public:
  explicit TemporaryPath(std::string path);
  ~TemporaryPath();
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  const std::string& path() const { return path_; }
  // The file is no longer ours to remove (renamed into place).
  void release() noexcept;

 private:
  std::string path_;
  int slot_ = -1;
};

// Creates `dir` when missing and checks that dir/name can be written (check_output_path,
// regular files only); returns dir/name. Call it before the work whose result goes there,
// so an unusable output path is reported before minutes of work, not after.
std::string prepare_output_file(const std::string& dir, const std::string& name);

// A temporary sibling of `target` ("target.tmp-XXXXXX", same folder, so the final
// rename never crosses file systems and is atomic). commit() renames it over the
// target; if commit() never runs (an exception unwinds, or SIGINT/SIGTERM arrives and
// remove_pending_temporaries() runs), the temporary is removed, so readers see either
// the old file or the complete new one, never a torn one. A target that exists and is
// not a regular file is refused; a symbolic link is kept and its target replaced
// (output_file_of).
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string target);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& target() const { return target_; }
  // Where to write; the file already exists (empty) and belongs to this object.
  const std::string& temp_path() const { return temp_; }
  // Flushes the temporary to disk; a failing fsync (a deferred write error) throws.
  void sync() const;
  // sync(), then renames the temporary to the target.
  void commit();
  // Removes the temporary now (the destructor would); the target stays untouched.
  void abandon() noexcept;

 private:
  std::string target_;
  std::string temp_;
  int slot_ = -1;  // entry in the table the signal handler cleans up
  bool committed_ = false;
};

// Writes `contents` to `path`: atomically for a regular file, in place for a character
// device or FIFO (check_output_path). Every write, fsync and close is checked; on
// failure the temporary is removed, the old file left as it was, and Error (runtime)
// names the path and the OS error.
void write_file_atomically(const std::string& path, std::string_view contents);

// Writes `contents` into the existing temporary file `temp` (of an AtomicOutput), every
// write, fsync and close checked; `label` names the final file in messages.
void write_to_temporary(const std::string& temp, const std::string& label,
                        std::string_view contents);

// Writes all of `contents` to the open descriptor `fd` (EINTR and short writes
// retried). Throws Error (runtime) naming `what` and the OS error.
void write_all(int fd, std::string_view contents, const std::string& what);

// Removes the temporaries of every AtomicOutput not yet committed or destroyed. Only
// async-signal-safe calls: meant for a SIGINT/SIGTERM handler before the process ends.
void remove_pending_temporaries() noexcept;

// Installs handlers for SIGINT, SIGTERM and SIGHUP (those not ignored by whoever started
// the process) that call remove_pending_temporaries() and then end the process as the
// signal would have, with the same status.
void remove_temporaries_on_termination_signals();

}  // namespace gridsolve
