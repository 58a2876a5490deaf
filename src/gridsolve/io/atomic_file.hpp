// Atomic file output: write beside the target under a temporary name, then rename over it.
#pragma once
#include <string>
#include <string_view>

namespace gridsolve {

// Creates `dir` (and its parents) when missing and checks that files can be written
// there. Throws Error (invalid_input) naming the folder when it cannot be used.
void create_output_directory(const std::string& dir);

// A temporary sibling of `target` ("target.tmp-XXXXXX", same folder, so the final
// rename never crosses file systems and is atomic). commit() renames it over the
// target; if commit() never runs (an exception unwinds), the temporary is removed, so
// readers see either the old file or the complete new one, never a torn one.
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string target);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& target() const { return target_; }
  // Where to write; the file already exists (empty) and belongs to this object.
  const std::string& temp_path() const { return temp_; }
  // Flushes the temporary to disk and renames it to the target.
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

// Writes `contents` to `path` atomically. Throws Error naming the path on failure.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace gridsolve
