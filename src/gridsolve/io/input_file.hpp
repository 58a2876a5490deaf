// Input files: every file a command reads (settings, checkpoints, states, systems, keys)
// is opened here, so one rule holds for all of them: a regular file of a size its format
// can plausibly have. Anything else is refused at once, before a byte is read: a FIFO
// without a writer would block forever, /dev/zero would never end, a directory is a slip.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridsolve {

// Checks that `path` names a regular file of at most `limit` bytes and returns its size.
// Throws Error (bad input) naming `what` ("config", "checkpoint", ...) and the path: an
// empty path, a missing or unreadable file, a directory, a FIFO, a device or a socket,
// a file larger than `limit`. Opens without blocking, so a FIFO is refused, not waited on.
std::uintmax_t require_input_file(const std::string& path, std::uintmax_t limit,
                                  std::string_view what);

// The whole file, after require_input_file's checks; reads at most `limit` bytes even if
// the file grows meanwhile.
std::string read_input_file(const std::string& path, std::size_t limit, std::string_view what);

}  // namespace gridsolve
