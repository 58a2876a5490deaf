// A set of result files published together: staged under temporary names, manifest last.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gridsolve {

class AtomicOutput;

// The files one run leaves in a folder (summary.json, solution.h5, ...) must never be a
// mix of two runs. Each file is written to a temporary sibling; commit() removes the old
// manifest (summary.json) first, renames the other files into place and the manifest
// last. A run killed before commit() leaves the old set untouched; one killed during it
// leaves a set without a manifest, which says "incomplete" rather than mixing silently.
// Every file that can hold it records run_id(), as the manifest does.
class ResultSet {
 public:
  // Creates `dir` when missing and checks it can be written (Error otherwise).
  explicit ResultSet(std::string dir);
  ~ResultSet();
  ResultSet(const ResultSet&) = delete;
  ResultSet& operator=(const ResultSet&) = delete;

  const std::string& dir() const { return dir_; }
  // Unique per run: UTC time, process id and random bits ("20261124T011502Z-4242-9f3a...").
  const std::string& run_id() const { return run_id_; }
  // dir/name, the final path of a staged file.
  std::string path_of(const std::string& name) const;

  // A temporary file that becomes dir/name at commit(); the caller writes it (checked).
  // `name` is a plain file name; an existing dir/name that is not a regular file is
  // refused before anything is written.
  const std::string& stage(const std::string& name);
  // Stages `name` with `contents` (every write, fsync and close checked).
  void stage_text(const std::string& name, std::string_view contents);

  // Publishes the staged files, `manifest` (one of them) last. Throws Error on failure;
  // temporaries not yet renamed are removed.
  void commit(const std::string& manifest);

  // For a manifest written later by other code (with write_file_atomically, after the
  // work that follows these files): removes the old `manifest` first, then publishes
  // the staged files. Until the new manifest lands, the folder has none.
  void commit_before_manifest(const std::string& manifest);

 private:
  std::string dir_;
  std::string run_id_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<AtomicOutput>> files_;
};

// A fresh run id (see ResultSet::run_id).
std::string make_run_id();

}  // namespace gridsolve
