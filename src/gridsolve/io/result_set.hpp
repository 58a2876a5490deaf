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
// Every file that can hold it records run_id(), as the manifest does. Symbolic links in
// the folder are kept and the files they point to replaced (output_file_of), the
// manifest's included.
class ResultSet {
 public:
  // Creates `dir` when missing and checks it can be written (Error otherwise). `run_id`
  // continues a run (a restart from its checkpoint); empty: a new id.
  explicit ResultSet(std::string dir, std::string run_id = {});
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

  // A file of the previous set (`name` relative to dir: "frames/fields_0003.h5") that
  // this run does not write: removed at commit, after the old manifest, so that nothing
  // of the previous run stays beside the new manifest.
  void retire(const std::string& name);

  // For a set whose files are partly written while the run goes on (a time series of
  // frames): removes the old `manifest`, then each of `names` (relative to dir) that
  // exists, before the first of those files is written. An interrupted run then leaves
  // its own partial files and no manifest, never another run's manifest beside them.
  void clear_previous(const std::string& manifest, const std::vector<std::string>& names);

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
  std::vector<std::string> retired_;
};

// A fresh run id (see ResultSet::run_id).
std::string make_run_id();

// CSV text (a header line, then rows) with a last column "run_id" holding `run_id` on
// every row: the run is recorded in the file while every reader that takes the first
// line as the header (pandas, gnuplot, a spreadsheet) reads it as before.
std::string with_run_id_column(std::string_view csv, const std::string& run_id);

}  // namespace gridsolve
