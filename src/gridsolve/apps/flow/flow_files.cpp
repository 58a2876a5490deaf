#include "gridsolve/apps/flow/flow_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::flow {

namespace {

// Node values (nx + 1) x (ny + 1) averaged to the cell centres.
std::vector<double> nodes_to_cells(const std::vector<double>& v, int nx, int ny) {
  std::vector<double> out;
  out.reserve(std::size_t(nx) * std::size_t(ny));
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      auto at = [&](int a, int b) { return v[std::size_t(a + (nx + 1) * b)]; };
      out.push_back(0.25 * (at(i, j) + at(i + 1, j) + at(i, j + 1) + at(i + 1, j + 1)));
    }
  return out;
}

const char* field_names[] = {"u", "v", "w", "p", "vorticity", "stream_function"};

// The cell-centred fields (datasets shaped (ny, nx) or (nz, ny, nx)) on a grid of the
// cell centres.
FieldFileWriter fields_writer(const FlowSnapshot& snap) {
  const MacGrid& g = snap.grid();
  const auto n = g.cells();
  Grid cg =
      Grid::box(g.dims(), n, {g.xc(0, 0), g.xc(1, 0), g.dims() == 3 ? g.xc(2, 0) : 0.0},
                {g.xc(0, n[0] - 1), g.xc(1, n[1] - 1), g.dims() == 3 ? g.xc(2, n[2] - 1) : 0.0});
  auto field_of = [&](const std::vector<double>& values) {
    Field<double> f(cg, Device::cpu);
    const FieldView<double> v = f.view();
    std::size_t q = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) v(i, j, k) = values[q++];
    return f;
  };
  FieldFileWriter w(cg);
  for (int c = 0; c < g.dims(); ++c) w.add(field_names[c], field_of(snap.cell_velocity(c)));
  w.add("p", field_of(snap.cell_pressure()));
  if (g.dims() == 2) {
    w.add("vorticity", field_of(nodes_to_cells(snap.vorticity(), n[0], n[1])));
    w.add("stream_function", field_of(nodes_to_cells(snap.stream_function(), n[0], n[1])));
  }
  return w;
}

// One <Grid> of the XDMF file: a rectilinear mesh through the cell centres (the spacing
// may be stretched), attributes in `h5`.
std::string xdmf_grid(const MacGrid& g, const std::string& h5, const std::string& indent,
                      double time, bool timed) {
  const auto n = g.cells();
  const bool three = g.dims() == 3;
  std::string dims =
      three ? fmt::format("{} {} {}", n[2], n[1], n[0]) : fmt::format("{} {}", n[1], n[0]);
  std::string x = indent + fmt::format("<Grid Name=\"cells\" GridType=\"Uniform\">\n");
  if (timed) x += indent + fmt::format("  <Time Value=\"{:.10g}\"/>\n", time);
  x += indent + fmt::format("  <Topology TopologyType=\"{}\" Dimensions=\"{}\"/>\n",
                            three ? "3DRectMesh" : "2DRectMesh", dims);
  x += indent + fmt::format("  <Geometry GeometryType=\"{}\">\n", three ? "VXVYVZ" : "VXVY");
  for (int a = 0; a < g.dims(); ++a) {
    std::string coords;
    for (int i = 0; i < n[std::size_t(a)]; ++i)
      coords += fmt::format("{}{:.12g}", i ? " " : "", g.xc(a, i));
    x += indent + fmt::format(
                      "    <DataItem Dimensions=\"{}\" NumberType=\"Float\" Precision=\"8\" "
                      "Format=\"XML\">{}</DataItem>\n",
                      n[std::size_t(a)], coords);
  }
  x += indent + "  </Geometry>\n";
  std::vector<std::string> names;
  for (int c = 0; c < g.dims(); ++c) names.push_back(field_names[c]);
  names.push_back("p");
  if (!three) names.push_back("vorticity"), names.push_back("stream_function");
  for (const std::string& a : names)
    x += indent + fmt::format(
                      "  <Attribute Name=\"{0}\" AttributeType=\"Scalar\" Center=\"Node\">\n{2}    "
                      "<DataItem Dimensions=\"{1}\" NumberType=\"Float\" Precision=\"8\" "
                      "Format=\"HDF\">{3}:/{0}</DataItem>\n{2}  </Attribute>\n",
                      a, dims, indent, h5);
  x += indent + "</Grid>\n";
  return x;
}

// The XDMF files begin with the run id, as every file of the set does.
std::string xdmf_head(const std::string& run_id) {
  return fmt::format(
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"3.0\">\n  <Domain>\n    <Information Name=\"run_id\" Value=\"{}\"/>\n",
      run_id);
}
const char* xdmf_tail = "  </Domain>\n</Xdmf>\n";

std::string csv_number(double v) {
  return fmt::format("{:.17g}", v);
}

// The files of a flow result set besides summary.json and the frames.
const char* set_files[] = {"history.csv",      "forces.csv",          "centreline_u.csv",
                           "centreline_v.csv", "centreline_ghia.csv", "fields.h5",
                           "fields.xdmf",      "series.xdmf",         "vorticity.png",
                           "centrelines.png",  "forces.png"};

// The frames in dir/frames numbered `from` or later (fields_NNNN.h5 and .xdmf), relative
// to dir: a previous run's, never to be listed beside this run's.
std::vector<std::string> frames_from(const std::string& dir, int from) {
  static const std::regex frame_name(R"(fields_([0-9]{4,9})\.(h5|xdmf))");
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/frames", ec)) {
    const std::string name = e.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, frame_name) && std::stoi(m[1].str()) >= from)
      found.push_back("frames/" + name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string series_xdmf(const MacGrid& grid, int count, const std::vector<double>& times,
                        const std::string& run_id) {
  std::string x = xdmf_head(run_id);
  x += "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (int k = 0; k < count && k < int(times.size()); ++k)
    x += xdmf_grid(grid, fmt::format("frames/fields_{:04d}.h5", k), "      ", times[std::size_t(k)],
                   true);
  x += "    </Grid>\n";
  x += xdmf_tail;
  return x;
}

}  // namespace

FlowOutput::FlowOutput(const std::string& dir, const std::string& run_id) : set_(dir, run_id) {
  create_output_directory(dir + "/frames");
  prepare_output_file(dir, "summary.json");
  for (const char* name : set_files) prepare_output_file(dir, name);
}

std::string FlowOutput::start(bool writes_frames, int first_frame, const MacGrid& grid,
                              const std::vector<double>& times) {
  frames_end_ = first_frame;
  std::string note;
  std::vector<std::string> stale;
  for (int k = 0; k < first_frame; ++k) {
    const std::string h5 = fmt::format("frames/fields_{:04d}.h5", k);
    const std::string id = hdf5_run_id(set_.path_of(h5));
    if (!id.empty() && id != run_id()) {
      stale.insert(stale.end(), {h5, fmt::format("frames/fields_{:04d}.xdmf", k)});
      note = fmt::format(
          "  note: {}/frames held frames of another run (run_id {}): removed; series.xdmf lists "
          "the {} earlier frames of this run",
          dir(), id, first_frame);
    }
  }
  if (writes_frames) {
    for (const std::string& f : frames_from(dir(), first_frame)) stale.push_back(f);
    for (const char* name : set_files)
      if (first_frame == 0 || std::string(name) != "series.xdmf") stale.push_back(name);
    set_.clear_previous("summary.json", stale);
  } else {
    for (const std::string& f : stale) set_.retire(f);
  }
  // A restart lists the frames it keeps at once, with its run id.
  if (writes_frames && first_frame > 0)
    write_file_atomically(set_.path_of("series.xdmf"),
                          series_xdmf(grid, first_frame, times, run_id()));
  return note;
}

void FlowOutput::write_frame(const FlowSnapshot& snap, int index,
                             const std::vector<double>& times) {
  fields_writer(snap).write(dir() + "/frames", fmt::format("fields_{:04d}", index), run_id());
  write_file_atomically(set_.path_of("series.xdmf"),
                        series_xdmf(snap.grid(), index + 1, times, run_id()));
  frames_end_ = index + 1;
}

void FlowOutput::write_results(const FlowSnapshot& snap, FlowResult& r) {
  const std::string& dir = set_.dir();
  const std::string& id = run_id();
  fields_writer(snap).stage_hdf5(set_, "fields.h5");
  set_.stage_text(
      "fields.xdmf",
      xdmf_head(id) + xdmf_grid(snap.grid(), "fields.h5", "    ", r.time, false) + xdmf_tail);
  r.files.push_back(dir + "/fields.xdmf (+ fields.h5)");
  // Nothing of a previous run stays beside this one's summary: its later frames, its
  // series when this run has none, and the files this case does not produce.
  for (const std::string& f : frames_from(dir, frames_end_)) set_.retire(f);
  if (frames_end_ > 0)
    r.files.push_back(dir + "/series.xdmf (time series, frames/)");
  else
    set_.retire("series.xdmf");
  for (const char* png : {"vorticity.png", "centrelines.png", "forces.png"}) set_.retire(png);
  // Centrelines through the middle of the domain (in 3D, in the plane z = middle), at
  // every cell centre plus the walls.
  const MacGrid& g = snap.grid();
  const double xm = 0.5 * (g.lo(0) + g.hi(0)), ym = 0.5 * (g.lo(1) + g.hi(1));
  const double zm = g.dims() == 3 ? 0.5 * (g.lo(2) + g.hi(2)) : 0.0;
  {
    std::string t = "y,u\n";
    t += fmt::format("{},{}\n", csv_number(g.lo(1)), csv_number(snap.velocity(0, xm, g.lo(1), zm)));
    for (int j = 0; j < g.cells()[1]; ++j)
      t += fmt::format("{},{}\n", csv_number(g.xc(1, j)),
                       csv_number(snap.velocity(0, xm, g.xc(1, j), zm)));
    t += fmt::format("{},{}\n", csv_number(g.hi(1)), csv_number(snap.velocity(0, xm, g.hi(1), zm)));
    set_.stage_text("centreline_u.csv", with_run_id_column(t, id));
    std::string v = "x,v\n";
    v += fmt::format("{},{}\n", csv_number(g.lo(0)), csv_number(snap.velocity(1, g.lo(0), ym, zm)));
    for (int i = 0; i < g.cells()[0]; ++i)
      v += fmt::format("{},{}\n", csv_number(g.xc(0, i)),
                       csv_number(snap.velocity(1, g.xc(0, i), ym, zm)));
    v += fmt::format("{},{}\n", csv_number(g.hi(0)), csv_number(snap.velocity(1, g.hi(0), ym, zm)));
    set_.stage_text("centreline_v.csv", with_run_id_column(v, id));
    r.files.push_back(dir + "/centreline_u.csv, centreline_v.csv");
  }
  if (!r.ghia.empty()) {
    std::string t = "kind,coord,ghia,computed,deviation\n";
    for (const auto& p : r.ghia)
      t += fmt::format("{},{},{},{},{}\n", p.kind, p.coord, p.reference, csv_number(p.computed),
                       csv_number(p.computed - p.reference));
    set_.stage_text("centreline_ghia.csv", with_run_id_column(t, id));
    r.files.push_back(dir + "/centreline_ghia.csv");
  } else {
    set_.retire("centreline_ghia.csv");
  }
  if (!r.forces.empty()) {
    std::string t = "t,c_d,c_l\n";
    for (const auto& f : r.forces)
      t += fmt::format("{},{},{}\n", csv_number(f.t), csv_number(f.c_d), csv_number(f.c_l));
    set_.stage_text("forces.csv", with_run_id_column(t, id));
    r.files.push_back(dir + "/forces.csv");
  } else {
    set_.retire("forces.csv");
  }
  {
    std::string t = "step,time,dt,continuity,change,divergence,pressure_iterations\n";
    for (const auto& h : r.history)
      t += fmt::format("{},{},{},{},{},{},{}\n", h.step, csv_number(h.time), csv_number(h.dt),
                       csv_number(h.continuity), csv_number(h.change), csv_number(h.divergence),
                       h.pressure_iterations);
    set_.stage_text("history.csv", with_run_id_column(t, id));
    r.files.push_back(dir + "/history.csv");
  }
  // summary.json goes now, and comes back last (write_summary), after the plots.
  set_.commit_before_manifest("summary.json");
}

void FlowOutput::write_summary(FlowResult& r) {
  r.summary["run_id"] = run_id();
  write_json_file(set_.path_of("summary.json"), r.summary);
  r.files.push_back(set_.path_of("summary.json"));
}

nlohmann::json summary_json(const FlowResult& r) {
  const FlowCase& c = r.flow_case;
  nlohmann::json j;
  j["case"] = c.name;
  j["device"] = r.device;
  j["ranks"] = Communicator::world().size();
  j["cells"] = std::vector<int>(c.cells.begin(), c.cells.begin() + c.dims);
  j["domain_lo"] = std::vector<double>(c.lo.begin(), c.lo.begin() + c.dims);
  j["domain_hi"] = std::vector<double>(c.hi.begin(), c.hi.begin() + c.dims);
  j["nu"] = c.nu;
  j["reynolds"] = c.u_ref * c.length_ref / c.nu;
  j["coupling"] = to_string(c.coupling);
  j["convection"] = to_string(c.convection);
  if (!c.steady()) j["time_scheme"] = to_string(c.time_scheme);
  j["converged"] = r.converged;
  j["reason"] = r.reason;
  j[c.steady() ? "iterations" : "steps"] = r.iterations;
  if (!c.steady()) j["time"] = r.time;
  j["seconds"] = json_number(r.seconds);
  j["pressure_cycles_per_solve"] = json_number(r.pressure_cycles_per_solve);
  if (r.pressure_share >= 0) j["pressure_share"] = json_number(r.pressure_share);
  if (r.sweeps_per_predictor > 0) j["sweeps_per_predictor"] = json_number(r.sweeps_per_predictor);
  if (r.predictor_share >= 0) j["predictor_share"] = json_number(r.predictor_share);
  if (r.gpu_peak_bytes > 0) j["gpu_peak_bytes"] = json_number(r.gpu_peak_bytes);
  j["continuity"] = json_number(r.last.continuity);
  j["max_divergence"] = json_number(r.last.divergence);
  if (r.has_forces) {
    j["obstacle_treatment"] = to_string(c.obstacle_treatment);
    if (c.steady()) {
      j["c_d"] = json_number(r.c_d);
      j["c_l"] = json_number(r.c_l);
    } else {
      j["c_d_max"] = json_number(r.c_d_max);
      j["c_l_max"] = json_number(r.c_l_max);
      j["strouhal"] = json_number(r.strouhal);
      j["c_d_final"] = json_number(r.c_d);
      j["c_l_final"] = json_number(r.c_l);
    }
  }
  if (r.has_dp) j["dp"] = json_number(r.dp);
  if (r.has_vortex) {
    j["psi_min"] = json_number(r.vortex.psi);
    j["vortex_centre"] = {r.vortex.x, r.vortex.y};
  }
  if (!r.ghia.empty()) {
    j["ghia_max_deviation"] = json_number(max_deviation(r.ghia));
    j["ghia_mean_deviation"] = json_number(mean_deviation(r.ghia));
  }
  return j;
}

}  // namespace gridsolve::flow
