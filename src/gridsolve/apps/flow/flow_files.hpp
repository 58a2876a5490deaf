// Result files of a flow run: HDF5 + XDMF fields (a time series for transient runs),
// centreline, force and history CSV, and summary.json.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/flow/flow_post.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"

namespace gridsolve::flow {

// Creates the output folder (and its frames/ subfolder).
void prepare_output(const std::string& dir);
// Writes frame `index` of the series (dir/frames/fields_NNNN.h5) and rewrites
// dir/series.xdmf to list every frame so far, frame k at times[k] (ParaView opens it as
// a time series); times holds index + 1 entries.
void write_frame(const std::string& dir, const FlowSolver<double>& s, int index,
                 const std::vector<double>& times);
// The final fields (fields.h5 + fields.xdmf), the CSV files and summary.json; adds the
// paths to r.files.
void write_results(const std::string& dir, const FlowSolver<double>& s, const FlowSnapshot& snap,
                   FlowResult& r);
// summary.json's content: case, grid, device, method, what was measured.
nlohmann::json summary_json(const FlowResult& r);
// PNG figures (vorticity with streamlines, centrelines against Ghia, force coefficients
// over time); returns what went wrong, empty on success.
std::string write_plots(const std::string& dir, const FlowSnapshot& snap, FlowResult& r);

}  // namespace gridsolve::flow
