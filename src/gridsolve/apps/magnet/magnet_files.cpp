#include "gridsolve/apps/magnet/magnet_files.hpp"

#include "gridsolve/apps/magnet/magnet_config.hpp"

#include <fmt/format.h>

#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::magnet {

nlohmann::json summary_json(const MagnetResult& r) {
  const MagnetDesign& d = r.design;
  const Grid& g = r.field.grid;
  nlohmann::json wires = nlohmann::json::array();
  for (const Wire& w : r.wires)
    wires.push_back({{"index", w.index},
                     {"surface", w.surface},
                     {"r", w.r},
                     {"z", w.z},
                     {"level", w.level},
                     {"current", w.current}});
  nlohmann::json j;
  j["command"] = "magnet";
  // The declared parameters, under the keys [magnet] takes (wires: per half).
  j["design"] = parameters_json(magnet_parameters(), d);
  j["design"]["mu0"] = mu0;
  j["grid"] = {{"nodes", {g.n[0], g.n[1]}},
               {"unknowns", r.field.unknowns},
               {"spacing", {g.spacing[0], g.spacing[1]}}};
  j["solve"] = to_json(r.field.report);
  j["solve"]["device"] = r.field.device;
  add_ranks_json(r.field.ranks, r.field.device, j["solve"]);
  j["solve"]["precision"] = r.field.precision;
  j["solve"]["assembly_seconds"] = r.field.assembly_seconds;
  j["solve"]["readback_seconds"] = r.field.readback_seconds;
  j["solve"]["setup_seconds"] = r.field.report.setup_seconds;
  if (r.field.ranks.ranks > 1) j["solve"]["gather_seconds"] = r.field.gather_seconds;
  j["solve"]["device_start_seconds"] = r.field.device_start_seconds;
  j["solve"]["rule"] = r.field.residual == "diagonal"
                           ? "relative residual ||D^-1 (b - Au)|| / ||D^-1 b||, D = diag(A)"
                           : "relative residual ||b - Au|| / ||b||";
  j["post_processing_seconds"] = r.post_seconds;
  j["total_current"] = r.jump.total_current;
  j["wire_current"] = r.quality.wire_current;
  j["wires"] = wires;
  j["field"] = {{"b0", r.quality.b0},
                {"b0_relative_to_target", r.quality.b0 / d.B - 1},
                {"efficiency_T_per_A", r.quality.efficiency},
                {"axis_span", r.quality.axis_span},
                {"axis_peak_to_peak_ppm", r.quality.axis_ppm},
                {"sphere_radius", r.quality.sphere_radius},
                {"sphere_peak_to_peak_ppm", r.quality.sphere_ppm}};
  return j;
}

std::vector<std::string> write_magnet_data(const std::string& dir, const MagnetResult& r) {
  // Published together, the old summary.json removed first: until write_magnet_summary
  // writes the new one, the folder says its set is incomplete, never mixing two runs.
  ResultSet set(dir);
  std::vector<std::string> names;
  auto csv = [&](const std::string& name, std::string text) {
    set.stage_text(name, text);
    names.push_back(name);
  };
  std::string body = "z,dphi\n", cap = "r,dphi\n";
  for (std::size_t k = 0; k < r.jump.body.size(); ++k)
    body += fmt::format("{},{}\n", r.jump.body_z[k], r.jump.body[k]);
  for (std::size_t k = 0; k < r.jump.cap.size(); ++k)
    cap += fmt::format("{},{}\n", r.jump.cap_r[k], r.jump.cap[k]);
  csv("dphi_body.csv", body);
  csv("dphi_cap.csv", cap);
  std::string wires = "index,half,surface,r,z,current,level\n";
  for (const Wire& w : r.wires)
    wires +=
        fmt::format("{},upper,{},{},{},{},{}\n", w.index, w.surface, w.r, w.z, w.current, w.level);
  for (const Wire& w : r.wires)
    wires += fmt::format("{},lower,{},{},{},{},{}\n", w.index, w.surface, w.r, -w.z, w.current,
                         -w.level);
  csv("wires.csv", wires);
  std::string axis = "z,bz,deviation_ppm\n";
  for (const AxisSample& s : r.axis) axis += fmt::format("{},{},{}\n", s.z, s.bz, s.ppm);
  csv("field_axis.csv", axis);

  const Grid& g = r.field.grid;
  Field<double> phi(g, Device::cpu);
  const FieldView<double> v = phi.view();
#pragma omp parallel for schedule(static) if (g.node_count() >= 32768)
  for (int j = 0; j < g.n[1]; ++j)
    for (int i = 0; i < g.n[0]; ++i) v(i, j, 0) = r.field.at(i, j);
  FieldFileWriter(g).add("phi", phi).stage(set, "phi");
  names.push_back("phi.h5");
  names.push_back("phi.xdmf");
  set.commit_before_manifest("summary.json");
  return names;
}

void write_magnet_summary(const std::string& dir, const MagnetResult& r,
                          const nlohmann::json& extra) {
  nlohmann::json j = summary_json(r);
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  write_json_file(dir + "/summary.json", j);
}

}  // namespace gridsolve::magnet
