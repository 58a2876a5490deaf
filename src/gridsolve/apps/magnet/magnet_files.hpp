// A design's files: summary.json, CSVs of dPhi, wires and the axial field, Phi as HDF5 +
// XDMF. Each file is written atomically.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/magnet/magnet_run.hpp"

namespace gridsolve::magnet {

// The summary as JSON (design, grid, solve, current, wires, field quality).
nlohmann::json summary_json(const MagnetResult& r);

// Writes the CSVs and phi.h5 + phi.xdmf into `dir` (created if needed); returns the names.
std::vector<std::string> write_magnet_data(const std::string& dir, const MagnetResult& r);

// Writes dir/summary.json: summary_json(r) with `extra`'s keys merged in (files, plots).
void write_magnet_summary(const std::string& dir, const MagnetResult& r,
                          const nlohmann::json& extra);

}  // namespace gridsolve::magnet
