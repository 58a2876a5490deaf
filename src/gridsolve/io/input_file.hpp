// Input files: every file a command reads (settings, checkpoints, states, systems, keys,
// reference tables) is opened here, so one rule holds for all of them: a regular file of
// a size its format can plausibly have. Anything else is refused at once, before a byte
// is read, with exit 2 naming the file: a FIFO without a writer would block forever,
// /dev/zero would never end, a directory or a device is a slip of the path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridsolve {

class InputFile {
 public:
  // Opens `path`, a `what` ("config", "checkpoint", "system file"), of at most `limit`
  // bytes; `limit_reason` says where the limit comes from. Opens without blocking, so a
  // FIFO is refused, not waited on. Throws Error (bad input) on an empty path, a missing
  // or unreadable file, a directory, a FIFO, a device, a socket, a file over the limit.
  InputFile(const std::string& path, std::uintmax_t limit, std::string_view what,
            std::string_view limit_reason = {});
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  const std::string& path() const { return path_; }
  // The size when opened.
  std::uintmax_t size() const { return size_; }

  // Up to `n` bytes into `buffer`; 0 at the end of the file.
  std::size_t read(char* buffer, std::size_t n);
  // The whole file, as large as it was when opened (a file that grew or shrank since is
  // refused).
  std::string read_all();

 private:
  [[noreturn]] void fail(const std::string& message);
  std::string read_error(int err) const;

  std::string path_;
  std::string what_;
  int fd_ = -1;
  std::uintmax_t size_ = 0;
};

// The whole of a file of at most `limit` bytes, after InputFile's checks.
std::string read_input_file(const std::string& path, std::uintmax_t limit, std::string_view what);

}  // namespace gridsolve
