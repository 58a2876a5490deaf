// The stages of a micromagnetic run and the files it writes.
#include "gridsolve/apps/micromag/micromag_run.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>

#include "gridsolve/apps/micromag/micromag_outputs.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"
#include "gridsolve/apps/micromag/stop_condition.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/ovf_writer.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::micromag {

demag::FftMode choose_fft_mode(const std::string& name, Device d, const Mesh& mesh) {
  if (name == "skip") return demag::FftMode::skip_zeros;
  if (name == "plain") return demag::FftMode::plain;
  if (name == "fused") return demag::FftMode::fused;
  require(name == "auto", fmt::format("fft must be auto, skip, plain or fused, got '{}'", name));
  if (d == Device::cpu) return demag::FftMode::skip_zeros;
  // On the GPU: the fused column pass for films (it falls back to skip_zeros where it does
  // not apply); the plain transforms for boxes, whose pruned y and z passes gain nothing
  // over cuFFT's own 3D transforms, and for small films, where the pass count matters more
  // than the bytes.
  const demag::Layout l = demag::Layout::make(mesh.n, demag::FftMode::plain, mesh.periodic);
  const double padded = double(l.p[0]) * l.p[1] * l.p[2];
  return mesh.n[2] == 1 && padded >= double(1 << 20) ? demag::FftMode::fused
                                                     : demag::FftMode::plain;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The files of a previous run in `dir` (micromag_outputs.hpp: is_run_file), but not
// `keep`: the state this run starts from may be a snapshot of the previous one.
std::vector<std::string> run_files_in(const std::string& dir, const std::string& keep) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code same;
    // Files (or links) only: a folder of such a name is not ours to remove.
    if (name == "summary.json" || !is_run_file(name) || e.is_directory(same) ||
        (!keep.empty() && std::filesystem::equivalent(e.path(), keep, same)))
      continue;
    found.push_back(name);
  }
  return found;
}

template <class T>
class Runner {
 public:
  // Under mpirun every rank steps its slab of the mesh; rank 0 alone prints and writes.
  Runner(const MicromagConfig& c, Device d, const RunOverrides& o)
      : c_(c),
        device_(d),
        root_(Communicator::world().is_root()),
        quiet_(o.quiet || !root_),
        files_(o.files),
        record_(o.record),
        each_step_(o.each_step),
        sys_(c.problem, d, choose_fft_mode(c.fft, d, c.problem.mesh)) {
    field_ = field_of_time(c.field);
  }

  int run() {
    const auto t_start = Clock::now();
    std::optional<ResultSet> set;
    if (root_ && files_) {
      set.emplace(c_.out);
      run_id_ = set->run_id();
      // Checked before the work: a folder where summary.json belongs is refused, not removed.
      for (const char* name : {"summary.json", "table.csv"}) prepare_output_file(c_.out, name);
    }
    check_demag();
    sys_.set_m(initial_magnetization(c_));
    record(0.0);
    // Snapshots and the table are written as the run goes: the previous run's files go
    // now, its summary.json first, so that an interrupted run leaves its own partial
    // files and no summary, never another run's summary beside them. The snapshot this
    // run starts from stays.
    if (set) set->clear_previous("summary.json", run_files_in(c_.out, c_.initial.file));
    int code = 0;
    nlohmann::json stages = nlohmann::json::array();
    for (std::size_t s = 0; s < c_.stages.size(); ++s) {
      const StageSpec& st = c_.stages[s];
      if (st.set_field) field_ = field_of_time(st.field);
      const auto t0 = Clock::now();
      nlohmann::json js = {{"stage", s + 1}, {"kind", st.kind}};
      const std::array<double, 3> b = field_(t_);
      if (st.kind == "relax") {
        const RelaxReport r = relax(sys_, b, c_.stepper, c_.relax_max_steps);
        js["steps"] = r.steps;
        js["converged"] = r.converged;
        if (!r.converged) code = 3;
      } else if (st.kind == "minimize") {
        const double stop =
            c_.minimize_stop > 0 ? c_.minimize_stop : (sizeof(T) == 4 ? 1e-6 : 1e-9);
        const MinimizeReport r = minimize(sys_, b, stop, c_.minimize_max_iterations);
        js["iterations"] = r.iterations;
        js["converged"] = r.converged;
        if (!r.converged) code = 3;
      } else if (!run_stage(st, js)) {
        code = 3;
        if (root_)
          fmt::print(stderr,
                     "stage {} run: the condition '{}' did not hold within the limit of {:g} s "
                     "(t = {:.6g} s); the remaining stages are skipped\n",
                     s + 1, st.until, st.time, t_);
      }
      if (st.kind != "run") record(0.0);
      js["wall_s"] = seconds_since(t0);
      js["t_end"] = t_;
      const TableRow& last = rows_.back();
      js["m"] = last.m;
      js["energy"] = last.e.total();
      js["max_torque"] = last.max_torque;
      stages.push_back(js);
      if (!quiet_)
        fmt::print(
            "stage {} {}: t = {:.4f} ns  <m> = ({:.5f}, {:.5f}, {:.5f})  E = {:.6e} J  "
            "max torque = {:.3e} T  ({:.2f} s){}\n",
            s + 1, st.kind, t_ * 1e9, last.m[0], last.m[1], last.m[2], last.e.total(),
            last.max_torque, seconds_since(t0),
            js.contains("converged") && !js["converged"].get<bool>() ? "  NOT CONVERGED"
            : js.contains("condition_met")
                ? (js["condition_met"].get<bool>() ? fmt::format("  '{}' holds", st.until)
                                                   : fmt::format("  '{}' NOT MET", st.until))
                : std::string());
      snapshot(fmt::format("m_stage{}_{}", s + 1, st.kind), true);
      write_table();
      if (code != 0) break;
    }
    write_table();
    // The final m for a record: gathered with every rank taking part.
    std::array<std::vector<T>, 3> final_m;
    if (record_) final_m = sys_.m().to_host();
    // The most GPU memory any rank held (every rank takes part): what sizes a larger mesh.
    const double gpu_peak =
        device_ == Device::cuda ? Communicator::world().max(double(device_bytes_peak())) : 0.0;
    if (!root_) return code;
    if (c_.plots && files_) {
      const std::string p = plot_average(c_.out, fmt::format("<m>(t): {}", c_.source));
      if (!p.empty()) problems_.push_back(p);
    }
    const double cross = first_zero_crossing_mx(rows_);
    nlohmann::json summary = {{"command", "micromag"},
                              {"config", c_.source},
                              {"device", to_string(device_)},
                              {"precision", sizeof(T) == 4 ? "float" : "double"},
                              {"cells", c_.problem.mesh.n},
                              {"cell_size", c_.problem.mesh.cell},
                              {"periodic", c_.problem.mesh.periodic},
                              {"images", c_.problem.mesh.images},
                              {"magnetic_cells", sys_.magnetic_cells()},
                              {"method", to_string(c_.stepper.method)},
                              {"tolerance", c_.stepper.tolerance},
                              {"demag_self_check", self_check_},
                              {"stages", stages},
                              {"t_end", t_},
                              {"m_end", rows_.back().m},
                              {"mx_first_zero_s", json_number(cross)},
                              {"steps", steps_},
                              {"evaluations", evaluations_},
                              {"wall_s", seconds_since(t_start)},
                              {"exit_code", code},
                              {"plot_problems", problems_},
                              {"ranks", Communicator::world().size()},
                              {"run_id", run_id_}};
    if (gpu_peak > 0) summary["gpu_peak_bytes"] = gpu_peak;
    if (set) {
      set->stage_text("summary.json", json_text(summary));
      set->commit("summary.json");
    }
    if (record_) {
      record_->rows = rows_;
      record_->summary = json_text(summary);
      for (int c = 0; c < 3; ++c) record_->m[c].assign(final_m[c].begin(), final_m[c].end());
    }
    if (!quiet_ && gpu_peak > 0) {
      const double cells =
          double(c_.problem.mesh.n[0]) * c_.problem.mesh.n[1] * c_.problem.mesh.n[2];
      fmt::print("GPU memory: {}\n",
                 describe_gpu_peak(gpu_peak, cells, Communicator::world().size()));
    }
    if (!quiet_ && files_) {
      if (std::isfinite(cross))
        fmt::print("<m_x> first crosses zero at t = {:.4f} ns\n", cross * 1e9);
      for (const std::string& p : problems_) fmt::print(stderr, "warning: plot: {}\n", p);
      fmt::print("wrote {}/table.csv, summary.json, snapshots (OVF 2.0{}{})\n", c_.out,
                 c_.hdf5 ? ", HDF5 + XDMF" : "", c_.plots ? ", PNG" : "");
    }
    return code;
  }

 private:
  void check_demag() {
    if (!c_.problem.demag) return;
    std::array<int, 3> n = c_.problem.mesh.n;
    for (int& v : n) v = std::min(v, 6);
    const demag::FftMode mode = choose_fft_mode(c_.fft, device_, c_.problem.mesh);
    // The check is of the transforms, the folding and the product; the image sum itself
    // is the same loop for any count, so two images keep the direct sum quick.
    demag::Periodicity pbc = periodicity(c_.problem.mesh);
    pbc.images = std::min(pbc.images, 2);
    const int ranks = Communicator::world().size();
    if (ranks > 1) {
      // Split as the run is: two cells a rank along the slab axis at least; a single layer
      // 8 rows (16 padded, a power of two: the fused column pass where the run takes it).
      const int t = n[2] > 1 ? 2 : 1, whole = c_.problem.mesh.n[std::size_t(t)];
      n[std::size_t(t)] =
          std::min(whole, std::max(t == 1 && !pbc.axis[1] ? 8 : n[std::size_t(t)], 2 * ranks));
      self_check_ =
          demag::DemagOnRanks<T>::check_against_direct_sum(device_, n, c_.problem.mesh.cell, pbc);
    } else {
      self_check_ = demag::DemagConvolution<T>::check_against_direct_sum(
          device_, n, c_.problem.mesh.cell, mode, pbc);
    }
    const double tol = sizeof(T) == 4 ? 1e-4 : 1e-9;
    if (!(self_check_ < tol))
      throw Error(fmt::format("the demag convolution disagrees with the direct sum by {:.3e} "
                              "(relative; at most {} expected)",
                              self_check_, tol),
                  Error::Kind::runtime);
  }

  void record(double dt) {
    TableRow r;
    r.t = t_;
    const std::array<double, 3> b = field_(t_);
    r.e = sys_.energies(b);
    r.m = sys_.average_m();
    r.max_torque = sys_.max_torque(b);
    r.dt = dt;
    rows_.push_back(r);
  }

  // Whether `until` holds at the current m (a stage without `until` never ends early).
  bool condition_holds(const std::optional<StopCondition>& until, double t_start) {
    if (!until) return false;
    RunState s;
    s.t = t_;
    s.t_stage = t_ - t_start;
    const std::array<double, 3> m = sys_.average_m();
    s.mx = m[0];
    s.my = m[1];
    s.mz = m[2];
    if (until->needs_torque()) s.max_torque = sys_.max_torque(field_(t_));
    return until->holds(s);
  }

  // Runs for the stage's time, or until its condition holds (checked after every step);
  // false when the time ran out first.
  bool run_stage(const StageSpec& spec, nlohmann::json& js) {
    LlgStepper<T> st(sys_, c_.stepper);
    std::optional<StopCondition> until;
    if (!spec.until.empty()) until.emplace(spec.until);
    const double t_start = t_;
    const double t_end = t_ + spec.time;
    double next_row = t_ + c_.table_interval;
    double next_snap = c_.snapshot_interval > 0 ? t_ + c_.snapshot_interval : t_end * 2;
    auto last_print = Clock::now();
    bool met = condition_holds(until, t_start);
    while (!met && t_ < t_end * (1 - 1e-14)) {
      const double target = std::min({t_end, next_row, next_snap});
      st.step(t_, target - t_, field_);
      if (each_step_) each_step_();
      met = condition_holds(until, t_start);
      if (met || t_ >= next_row * (1 - 1e-12) || t_ >= t_end * (1 - 1e-14)) {
        record(st.last_dt());
        next_row = t_ + c_.table_interval;
      }
      if (t_ >= next_snap * (1 - 1e-12)) {
        snapshot(fmt::format("m{:06d}", snap_index_++), false);
        next_snap = t_ + c_.snapshot_interval;
      }
      if (!quiet_ && seconds_since(last_print) > 2) {
        const TableRow& r = rows_.back();
        fmt::print(
            "  t = {:.4f} ns  <m> = ({:.4f}, {:.4f}, {:.4f})  max torque = {:.3e} T  dt = "
            "{:.3e} s  steps = {}\n",
            t_ * 1e9, r.m[0], r.m[1], r.m[2], r.max_torque, st.last_dt(), st.steps());
        std::fflush(stdout);
        last_print = Clock::now();
      }
    }
    js["steps"] = st.steps();
    js["rejected"] = st.rejected();
    js["evaluations"] = st.evaluations();
    steps_ += st.steps();
    evaluations_ += st.evaluations();
    if (!until) return true;
    js["until"] = spec.until;
    js["condition_met"] = met;
    js["t_condition"] = met ? nlohmann::json(t_) : nlohmann::json(nullptr);
    return met;
  }

  void snapshot(const std::string& name, bool picture) {
    if (!files_ && !record_) return;
    // On ranks the slabs are gathered onto rank 0 (every rank takes part), which writes.
    const auto host = sys_.m().to_host();
    if (record_ && root_) {
      std::array<std::vector<double>, 3> md;
      for (int c = 0; c < 3; ++c) md[c].assign(host[c].begin(), host[c].end());
      record_->snapshots.emplace_back(name, std::move(md));
    }
    if (!files_) return;
    const Field<T> whole = c_.hdf5 ? sys_.m().field() : Field<T>();
    // The fields beside m are computed on every rank (the demag field needs them all).
    std::vector<std::array<std::vector<T>, 3>> fields;
    for (const std::string& f : c_.fields) {
      CellVectors<T> b = sys_.vectors();
      sys_.effective_field(field_(t_), saved_field(f).terms, b);
      fields.push_back(b.to_host());
    }
    if (!root_) return;
    const Mesh& mesh = c_.problem.mesh;
    if (c_.ovf) {
      OvfMesh om;
      om.n = mesh.n;
      om.cell = mesh.cell;
      write_ovf2<T>(c_.out + "/" + name + ".ovf", om, host, "m", {"m_x", "m_y", "m_z"}, "1", t_,
                    run_id_);
    }
    if (c_.hdf5) {
      // m as a cell-centred vector field on a grid of the mesh's nodes.
      Grid g = cell_grid(mesh.n);
      g.spacing = mesh.cell;
      FieldFileWriter w(g);
      w.add("m", whole);
      w.write(c_.out, name, run_id_);
    }
    for (std::size_t f = 0; f < fields.size(); ++f) save_field(name, c_.fields[f], host, fields[f]);
    if (picture && c_.plots) {
      std::array<std::vector<double>, 3> md;
      for (int c = 0; c < 3; ++c) md[c].assign(host[c].begin(), host[c].end());
      const std::string p =
          plot_magnetization(c_.out + "/" + name + ".png", mesh, c_.problem.region, md,
                             fmt::format("m at t = {:.4f} ns ({})", t_ * 1e9, name));
      if (!p.empty()) problems_.push_back(p);
    }
  }

  // One saved field beside the snapshot `name` (m_stage1_relax -> B_demag_stage1_relax),
  // in the snapshot's formats.
  void save_field(const std::string& name, const std::string& field,
                  const std::array<std::vector<T>, 3>& m, std::array<std::vector<T>, 3> b) {
    const Mesh& mesh = c_.problem.mesh;
    const SavedField& what = saved_field(field);
    if (what.torque) {
      std::array<std::vector<double>, 3> md, bd;
      for (int c = 0; c < 3; ++c) {
        md[c].assign(m[c].begin(), m[c].end());
        bd[c].assign(b[c].begin(), b[c].end());
      }
      const auto tq = llg_torque(c_.problem, md, bd);
      for (int c = 0; c < 3; ++c) b[c].assign(tq[c].begin(), tq[c].end());
    }
    const std::string file = field + name.substr(1);  // the name after its leading "m"
    if (c_.ovf) {
      OvfMesh om;
      om.n = mesh.n;
      om.cell = mesh.cell;
      write_ovf2<T>(c_.out + "/" + file + ".ovf", om, b, field,
                    {field + "_x", field + "_y", field + "_z"}, "T", t_, run_id_);
    }
    if (c_.hdf5) {
      Grid g = cell_grid(mesh.n);
      g.spacing = mesh.cell;
      Field<T> whole(cell_grid(mesh.n), Centring::cell(), 3, 0, Device::cpu);
      const FieldView<T> v = whole.view();
      std::size_t q = 0;
      for (int k = 0; k < mesh.n[2]; ++k)
        for (int j = 0; j < mesh.n[1]; ++j)
          for (int i = 0; i < mesh.n[0]; ++i, ++q)
            for (int c = 0; c < 3; ++c) v(i, j, k, c) = b[std::size_t(c)][q];
      FieldFileWriter w(g);
      w.add(field, whole);
      w.write(c_.out, file, run_id_);
    }
  }

  void write_table() {
    if (root_ && files_) write_file_atomically(c_.out + "/table.csv", table_csv(rows_, run_id_));
  }

  MicromagConfig c_;
  Device device_;
  bool root_;
  bool quiet_;
  bool files_;
  MicromagRecord* record_;
  std::function<void()> each_step_;
  MicromagSystem<T> sys_;
  FieldOfTime field_;
  double t_ = 0;
  double self_check_ = 0;
  std::vector<TableRow> rows_;
  std::vector<std::string> problems_;
  std::int64_t steps_ = 0, evaluations_ = 0;
  int snap_index_ = 0;
  std::string run_id_;
};

// Standard problem 3: cube edges in exchange lengths, flower and vortex energies.
template <class T>
int run_scan(MicromagConfig c, Device d, const RunOverrides& o) {
  require(Communicator::world().size() == 1,
          "[scan] runs on one process (its meshes are small); run it without mpirun");
  const Region& r0 = c.problem.regions[0];
  require(r0.ms > 0 && r0.aex > 0, "[scan] needs [material] Ms and A (region 0)");
  require(c.shapes.empty(), "[scan] works on the whole mesh: leave out [[shape]]");
  require(std::abs(r0.anis_u[2]) < 1e-12 * std::hypot(r0.anis_u[0], r0.anis_u[1]),
          "[scan] relaxes a vortex about z: give the easy axis (anis_u) in the x-y plane");
  const double km = 0.5 * mu0 * r0.ms * r0.ms;
  const double lex = std::sqrt(r0.aex / km);
  ResultSet set(c.out);
  for (const char* name : {"summary.json", "sp3.csv"}) prepare_output_file(c.out, name);
  set.clear_previous("summary.json", run_files_in(c.out, {}));
  std::string csv = "edge_lex,edge_m,e_flower,e_vortex,converged_flower,converged_vortex\n";
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> diff;
  bool all_converged = true;
  for (double L : c.scan_edge_lex) {
    MicromagConfig cfg = c;
    for (int a = 0; a < 3; ++a) cfg.problem.mesh.cell[a] = L * lex / cfg.problem.mesh.n[a];
    apply_shapes(cfg);
    double e[2] = {0, 0};
    bool conv[2] = {false, false};
    for (int s = 0; s < 2; ++s) {
      cfg.initial = InitialState{};
      if (s == 0) {
        // Flower: along the easy axis, tipped slightly so that it is not a saddle.
        cfg.initial.kind = "uniform";
        cfg.initial.direction = r0.anis_u;
        cfg.initial.direction[2] += 0.01;
      } else {
        // Vortex about z with a core of L / 12 (the easy axis lies in its plane).
        cfg.initial.kind = "vortex";
        cfg.initial.core_radius = L * lex / 12;
      }
      MicromagSystem<T> sys(cfg.problem, d, choose_fft_mode(cfg.fft, d, cfg.problem.mesh));
      sys.set_m(initial_magnetization(cfg));
      const std::array<double, 3> b = field_of_time(cfg.field)(0.0);
      if (cfg.scan_stage == "relax") {
        conv[s] = relax(sys, b, cfg.stepper, cfg.relax_max_steps).converged;
      } else {
        const double stop =
            cfg.minimize_stop > 0 ? cfg.minimize_stop : (sizeof(T) == 4 ? 1e-6 : 1e-9);
        conv[s] = minimize(sys, b, stop, cfg.minimize_max_iterations).converged;
      }
      const double volume = std::pow(L * lex, 3);
      e[s] = sys.energies(b).total() / (km * volume);
      if (cfg.ovf) {
        OvfMesh om;
        om.n = cfg.problem.mesh.n;
        om.cell = cfg.problem.mesh.cell;
        write_ovf2<T>(fmt::format("{}/m_L{:.4f}_{}.ovf", c.out, L, s ? "vortex" : "flower"), om,
                      sys.m().to_host(), "m", {"m_x", "m_y", "m_z"}, "1", 0.0, set.run_id());
      }
    }
    all_converged = all_converged && conv[0] && conv[1];
    diff.push_back(e[0] - e[1]);
    csv += fmt::format("{:.6f},{:.10e},{:.10f},{:.10f},{},{}\n", L, L * lex, e[0], e[1], conv[0],
                       conv[1]);
    rows.push_back({{"edge_lex", L},
                    {"e_flower", e[0]},
                    {"e_vortex", e[1]},
                    {"converged", conv[0] && conv[1]}});
    if (!o.quiet)
      fmt::print("L = {:.4f} l_ex: E/(Km V) flower {:.6f}, vortex {:.6f}{}\n", L, e[0], e[1],
                 conv[0] && conv[1] ? "" : "  (not converged)");
  }
  double crossing = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 1; i < diff.size(); ++i)
    if ((diff[i - 1] < 0) != (diff[i] < 0)) {
      const double a = c.scan_edge_lex[i - 1], b = c.scan_edge_lex[i];
      crossing = a + (b - a) * diff[i - 1] / (diff[i - 1] - diff[i]);
      break;
    }
  set.stage_text("sp3.csv", with_run_id_column(csv, set.run_id()));
  set.stage_text("summary.json", json_text({{"command", "micromag scan"},
                                            {"config", c.source},
                                            {"device", to_string(d)},
                                            {"precision", sizeof(T) == 4 ? "float" : "double"},
                                            {"cells", c.problem.mesh.n},
                                            {"exchange_length_m", lex},
                                            {"rows", rows},
                                            {"equal_energy_edge_lex", json_number(crossing)},
                                            {"converged", all_converged},
                                            {"run_id", set.run_id()}}));
  set.commit("summary.json");
  if (!o.quiet) {
    if (std::isfinite(crossing))
      fmt::print("flower and vortex energies are equal at L = {:.4f} l_ex\n", crossing);
    else
      fmt::print("the energies do not cross within the scanned edges\n");
  }
  return std::isfinite(crossing) && all_converged ? 0 : 3;
}

}  // namespace

int run_micromag(MicromagConfig c, const RunOverrides& o) {
  if (!o.device.empty()) c.device = o.device;
  if (!o.precision.empty()) c.precision = o.precision;
  if (!o.out.empty()) c.out = o.out;
  require(c.precision == "float" || c.precision == "double",
          fmt::format("precision must be float or double, got '{}'", c.precision));
  const Device d = select_device(c.device);
  if (!o.quiet && Communicator::world().is_root())
    fmt::print(
        "gridsolve micromag {}: {} x {} x {} cells of {:.4g} x {:.4g} x {:.4g} nm, {} on {}, "
        "{}\n",
        c.source, c.problem.mesh.n[0], c.problem.mesh.n[1], c.problem.mesh.n[2],
        c.problem.mesh.cell[0] * 1e9, c.problem.mesh.cell[1] * 1e9, c.problem.mesh.cell[2] * 1e9,
        c.precision, to_string(d), to_string(c.stepper.method));
  if (!c.scan_edge_lex.empty())
    return c.precision == "float" ? run_scan<float>(c, d, o) : run_scan<double>(c, d, o);
  if (c.precision == "float") return Runner<float>(c, d, o).run();
  return Runner<double>(c, d, o).run();
}

}  // namespace gridsolve::micromag
