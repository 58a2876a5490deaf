// Result files of a flow run: HDF5 + XDMF fields (a time series for transient runs),
// centreline, force and history CSV, and summary.json.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/io/result_set.hpp"

namespace gridsolve::flow {

// The result files of one run in --out, one run id in all of them. Frames (and
// series.xdmf) are written while the run goes on; the rest is staged and published at
// its end (io/result_set.hpp): fields, CSVs, then plots, summary.json last.
class FlowOutput {
 public:
  // Creates the folder (and frames/) and checks every result file's place now, before
  // the run: a folder or a device where summary.json belongs would otherwise cost the
  // whole run's work. `run_id`: the run a restart continues; empty: a new one.
  FlowOutput(const std::string& dir, const std::string& run_id);
  const std::string& dir() const { return set_.dir(); }
  const std::string& run_id() const { return set_.run_id(); }

  // Before the first step. `first_frame`: the frames already written by the run a
  // restart continues (kept); the previous run's later frames are never listed again.
  // A run that writes frames removes the previous set now, summary.json first, so that
  // its partial series, if it is interrupted, never sits beside another run's summary;
  // one that writes none leaves the previous set in place until its own is published.
  // A restart keeps only the earlier frames of its own run (an HDF5 run_id of another
  // run is removed; files without one, from older versions, are kept) and rewrites
  // series.xdmf for them. Returns a note on what was removed, or an empty string.
  std::string start(bool writes_frames, int first_frame, const MacGrid& grid,
                    const std::vector<double>& times);
  // Writes frame `index` of the series (frames/fields_NNNN.h5) and rewrites series.xdmf
  // to list every frame so far, frame k at times[k] (ParaView opens it as a time series);
  // times holds index + 1 entries.
  void write_frame(const FlowSnapshot& snap, int index, const std::vector<double>& times);
  // Publishes the final fields (fields.h5 + fields.xdmf) and the CSV files, removing
  // what the previous set had and this one lacks; summary.json stays absent until
  // write_summary(). Adds the paths to r.files.
  void write_results(const FlowSnapshot& snap, FlowResult& r);
  // summary.json (r.summary with the run id), the last file of the set.
  void write_summary(FlowResult& r);

 private:
  ResultSet set_;
  int frames_end_ = 0;  // frames 0 .. frames_end_ - 1 belong to this run
};

// summary.json's content: case, grid, device, method, what was measured.
nlohmann::json summary_json(const FlowResult& r);
// PNG figures (vorticity with streamlines, centrelines against Ghia, force coefficients
// over time); returns what went wrong, empty on success.
std::string write_plots(const std::string& dir, const FlowSnapshot& snap, FlowResult& r);

}  // namespace gridsolve::flow
