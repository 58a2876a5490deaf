#include "gridsolve/cli/flow_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gridsolve/apps/flow/flow_config.hpp"
#include "gridsolve/bench/flow_bench.hpp"
#include "gridsolve/cli/bench_command.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/cli/commands.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve::cli {

using namespace gridsolve::flow;

namespace {

void add_common(CLI::App* a, FlowArguments& f) {
  a->add_option("--device", f.device, "auto | cpu | cuda (default auto)");
  a->add_option("--out", f.out, "output folder (fields, CSV, summary.json, plots)");
  a->add_option("--coupling", f.coupling, "simple | simplec | piso | projection");
  a->add_option("--convection", f.convection,
                "upwind | hybrid | tvd | quick | central (default tvd)");
  a->add_option("--time", f.time_scheme,
                "euler | bdf2 (PISO; default bdf2) | rk3 (projection, its default)");
  a->add_option("--tol", f.tol, "steady: largest velocity change per iteration to stop at");
  a->add_option("--max-iter", f.max_iter, "steady: iteration cap");
  a->add_option("--t-end", f.t_end, "transient: final time");
  a->add_option("--cfl", f.cfl, "transient: CFL number of the time step (at most 1)");
  a->add_option("--dt", f.dt, "transient: fixed time step instead of CFL control");
  a->add_option("--relax-u", f.relax_u, "SIMPLE: velocity under-relaxation");
  a->add_option("--relax-p", f.relax_p, "SIMPLE: pressure under-relaxation");
  a->add_option("--pressure-tol", f.pressure_tol, "relative residual of each pressure solve");
  a->add_option("--sweeps", f.sweeps, "red-black SOR sweeps per momentum predictor");
  a->add_option("--frames", f.frames, "transient: field frames written over the run (default 10)");
  a->add_option("--checkpoint-every", f.checkpoint_every,
                "write a checkpoint every N steps (or steady iterations) and at the end");
  a->add_option("--checkpoint-file", f.checkpoint_file,
                "where checkpoints go (default OUT/checkpoint.gsflow)");
  a->add_option("--restart", f.restart,
                "continue the run saved in this checkpoint (same case; histories continue)");
  a->add_option("--stop-after", f.stop_after,
                "stop after N steps (or iterations) with a checkpoint, exit 3 (wall-time limits)");
  a->add_flag("-q,--quiet", f.quiet, "print nothing but errors");
  a->add_flag("--no-plots", f.no_plots, "skip the PNG figures");
  a->add_flag("--profile", f.profile,
              "time the pressure solves and the momentum predictors and report their "
              "shares of the run (synchronizes the device around each)");
}

// The command's options that were given replace the case's values (validate() then
// checks them as it checks a case file's).
void apply_overrides(const CLI::App& a, const FlowArguments& f, FlowCase& c) {
  auto given = [&](const char* name) { return a.count(name) > 0; };
  if (given("--coupling")) c.coupling = parse_coupling(f.coupling);
  if (given("--convection")) c.convection = parse_convection(f.convection);
  if (given("--time"))
    c.time_scheme = parse_time_scheme(f.time_scheme);
  else if (given("--coupling"))
    c.default_time_scheme();
  if (given("--tol")) c.steady_tolerance = f.tol;
  if (given("--max-iter")) c.max_iterations = f.max_iter;
  if (given("--t-end")) c.t_end = f.t_end;
  // One time-step rule: a fixed dt would silently win over a CFL number given beside it.
  if (given("--cfl") && given("--dt"))
    throw Error("give --dt (a fixed time step) or --cfl (a step from the CFL number), not both");
  if (given("--cfl")) c.cfl = f.cfl, c.dt = 0;  // over a case file's dt too
  if (given("--dt")) c.dt = f.dt;
  if (given("--relax-u")) c.relax_u = f.relax_u;
  if (given("--relax-p")) c.relax_p = f.relax_p;
  if (given("--pressure-tol")) c.pressure_tolerance = f.pressure_tol;
  if (given("--sweeps")) c.momentum_sweeps = f.sweeps;
  if (f.cavity == &a && given("--spacing"))
    c.spacing[0] = c.spacing[1] = AxisSpacing::parse(f.spacing);
}

}  // namespace

void add_flow_commands(CLI::App& app, FlowArguments& f) {
  f.cavity = app.add_subcommand("cavity", "lid-driven cavity, compared with Ghia et al. (1982)");
  f.cavity->add_option("--re", f.re, "Reynolds number (default 100)");
  f.cavity->add_option("--n", f.n, "cells per side (default 128)");
  f.cavity->add_option("--spacing", f.spacing, "uniform | tanh[:BETA] (clustered at the walls)");
  add_common(f.cavity, f);
  f.channel = app.add_subcommand(
      "channel", "flow around a cylinder in a channel: the DFG benchmarks (Schaefer & Turek 1996)");
  f.channel->add_option("--case", f.which, "dfg-2d-1 | dfg-2d-2 | dfg-2d-3 | dfg-3d-1z")
      ->required();
  f.channel->add_option(
      "--cpd", f.cells_per_diameter,
      "cells per cylinder diameter in the band of uniform cells around it (default 16)");
  add_common(f.channel, f);
  f.flow =
      app.add_subcommand("flow", "incompressible flow described in a TOML file (docs/flow.md)");
  f.flow->add_option("config", f.config, "the case file")->required();
  add_common(f.flow, f);
}

bool flow_requested(const FlowArguments& f) {
  return (f.cavity && *f.cavity) || (f.channel && *f.channel) || (f.flow && *f.flow);
}

int flow_command(const FlowArguments& f) {
  FlowCase c;
  const CLI::App& a = *f.cavity ? *f.cavity : *f.channel ? *f.channel : *f.flow;
  auto given = [&](const char* name) { return a.count(name) > 0; };
  std::string device = f.device, out = f.out;
  int frames = f.frames;
  int checkpoint_every = f.checkpoint_every;
  std::string checkpoint_file = f.checkpoint_file;
  if (*f.cavity) {
    c = cavity_case(f.re, f.n);
  } else if (*f.channel) {
    c = dfg_case(f.which, f.cells_per_diameter);
  } else {
    FlowConfig cfg = load_flow_config(f.config);
    c = cfg.flow_case;
    if (!given("--device")) device = cfg.device;
    if (out.empty()) out = cfg.out;
    if (!given("--frames")) frames = cfg.frames;
    if (!given("--checkpoint-every")) checkpoint_every = cfg.checkpoint_every;
    if (checkpoint_file.empty()) checkpoint_file = cfg.checkpoint_file;
  }
  apply_overrides(a, f, c);
  c.validate();
  FlowRunOptions o;
  o.out = out;
  o.plots = !f.no_plots;
  o.frames = frames;
  o.checkpoint_every = checkpoint_every;
  o.checkpoint_file = checkpoint_file;
  o.restart = f.restart;
  o.stop_after = f.stop_after;
  o.profile = f.profile;
  if (!f.quiet)
    o.print = [](const std::string& s) {
      std::printf("%s\n", s.c_str());
      std::fflush(stdout);
    };
  const FlowResult r = run_flow(c, select_device(device), o);
  // Every rank holds the result; rank 0 reports it, as it prints the progress.
  if (!f.quiet && Communicator::world().is_root()) std::printf("%s", describe(r).c_str());
  return r.converged ? exit_ok : exit_not_converged;
}

namespace {

// icoFoam on the Re 1000 cavity at 128^2 through scripts/peers/icofoam_cavity.sh, when
// both are here; returns the wall seconds, or a negative number when it could not run.
double run_icofoam_peer(double re, int n, const std::string& dir) {
  const std::string script = "scripts/peers/icofoam_cavity.sh";
  if (!std::filesystem::exists(script)) return -1;
  if (std::system("command -v icoFoam >/dev/null 2>&1 || ls /usr/lib/openfoam/*/etc/bashrc "
                  ">/dev/null 2>&1") != 0)
    return -1;
  const std::string cmd =
      fmt::format("bash {} --re {} --n {} --out {} >/dev/null 2>&1", script, re, n, dir);
  if (std::system(cmd.c_str()) != 0) return -1;
  std::ifstream in(dir + "/wall_seconds.txt");
  double s = -1;
  in >> s;
  return s;
}

// jax-cfd on the Taylor-Green sizes through scripts/peers/jaxcfd_taylor_green.py, when
// python3 can import it here; one parsed line per size, none when it could not run.
std::vector<nlohmann::json> run_jaxcfd_peer(const std::vector<int>& sizes) {
  const std::string script = "scripts/peers/jaxcfd_taylor_green.py";
  if (!std::filesystem::exists(script)) return {};
  if (std::system("python3 -c 'import jax_cfd, tree_math' >/dev/null 2>&1") != 0) return {};
  const std::string file =
      (std::filesystem::temp_directory_path() / "gridsolve-jaxcfd-taylor-green.jsonl").string();
  std::string cmd = "python3 " + script;
  for (int n : sizes) cmd += fmt::format(" {}", n);
  cmd += " > " + file + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return {};
  std::vector<nlohmann::json> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line, nullptr, false); !j.is_discarded()) rows.push_back(j);
  return rows;
}

// The Taylor-Green vortex to t = 2 by both transient schemes, and jax-cfd beside them.
void taylor_green_table(Device d, const std::vector<int>& sizes, nlohmann::json& out) {
  fmt::print(
      "Taylor-Green vortex, periodic [0, 2 pi]^2, nu 0.01, to t = 2, fp64, CFL 0.5; at t = 2: "
      "max |u - exact| and the fitted amplitude's error\n");
  fmt::print("{:<24} {:>6} {:>7} {:>10} {:>10} {:>9} {:>10} {:>10}\n", "scheme", "cells", "steps",
             "wall s", "ms/step", "ns/cell", "max error", "amplitude");
  const std::vector<nlohmann::json> peer = run_jaxcfd_peer(sizes);
  for (int n : sizes) {
    for (flow::Coupling c : {flow::Coupling::projection, flow::Coupling::piso}) {
      const TaylorGreenTiming t = time_taylor_green(d, n, c);
      fmt::print("{:<24} {:>5}^2 {:>7} {:>10.4f} {:>10.4f} {:>9.3f} {:>10.2e} {:>10.2e}\n",
                 t.scheme, n, t.steps, t.seconds, t.ms_per_step, t.ns_per_cell, t.error,
                 t.amplitude_error);
      std::fflush(stdout);
      out["taylor_green"].push_back({{"scheme", t.scheme},
                                     {"n", n},
                                     {"steps", t.steps},
                                     {"seconds", t.seconds},
                                     {"ms_per_step", t.ms_per_step},
                                     {"ns_per_cell", t.ns_per_cell},
                                     {"error", t.error},
                                     {"amplitude_error", t.amplitude_error}});
    }
    for (const nlohmann::json& p : peer)
      if (p.value("n", 0) == n) {
        const double ms = p.value("ms_per_step", 0.0);
        fmt::print("{:<24} {:>5}^2 {:>7} {:>10.4f} {:>10.4f} {:>9.3f} {:>10.2e} {:>10.2e}\n",
                   "jax-cfd (peer)", n, p.value("steps", 0LL), p.value("seconds", 0.0), ms,
                   1e6 * ms / (double(n) * n), p.value("error", 0.0),
                   p.value("amplitude_error", 0.0));
        nlohmann::json row = p;
        row["scheme"] = "jax-cfd";
        out["taylor_green"].push_back(row);
      }
  }
  if (peer.empty())
    fmt::print(
        "jax-cfd: not importable here (scripts/peers/jaxcfd_taylor_green.py says what it "
        "needs)\n");
}

// Under mpirun: a step on the run's ranks, strong (the box of --n cells per side split) and
// weak (each rank keeping --n^dims cells), beside rank 0 alone on the --n box in the same
// launch, for two cases: PISO on the Re 1000 cavity (unit cubes side by side along x, the
// pressure by multigrid) and the projection scheme on the periodic Taylor-Green box (boxes
// stacked along the slowest axis, the pressure by the transform solver on slabs).
int flow_ranks_bench(const BenchSettings& s, Device d) {
  const Communicator& comm = Communicator::world();
  require(s.dims == 2 || s.dims == 3, fmt::format("--dims must be 2 or 3, got {}", s.dims));
  const bool gpu = d == Device::cuda;
  const int n = s.n != 8192 ? s.n : s.dims == 3 ? (gpu ? 256 : 24) : (gpu ? 4096 : 256);
  const int steps = std::clamp(s.repeats, 3, 50);
  const double bw = copy_bandwidth(d);
  const int ranks = comm.size();
  struct Case {
    const char* name;
    flow::FlowCase strong, weak;
    const char* weak_mesh;
  };
  const std::vector<Case> cases{
      {"piso cavity", piso_cavity(n, s.dims), piso_cavity(n, s.dims, ranks),
       "cavities side by side along x"},
      {"projection tg", taylor_green_box(n, s.dims), taylor_green_box(n, s.dims, ranks),
       "periodic boxes stacked along the slab axis"}};
  const std::string cube = s.dims == 3 ? fmt::format("{}^3", n) : fmt::format("{}^2", n);
  if (comm.is_root())
    fmt::print(
        "gridsolve bench flow on {} ranks ({}): fp64, median of {} steps; rank 0 alone on the "
        "{} box beside each\n",
        ranks, to_string(d), steps, cube);
  nlohmann::json rows = nlohmann::json::array();
  std::string traffic;
  for (const Case& c : cases) {
    const FlowStepTiming strong = time_flow_step(d, c.strong, steps, bw);
    const FlowStepTiming weak = time_flow_step(d, c.weak, steps, bw);
    FlowStepTiming alone;
    if (comm.is_root()) alone = time_flow_step(d, c.strong, steps, bw, true);
    alone.ms_per_step = comm.max(alone.ms_per_step);
    traffic = strong.traffic;
    if (!comm.is_root()) continue;
    fmt::print("{:<14} {:<7} {:>5} {:>16} {:>10} {:>12} {:>8} {:>6} {:>9} {:>12}\n", "case", "kind",
               "ranks", "cells", "ms/step", "1-rank ms", "speedup", "effic", "pressure",
               "bound ms");
    struct Row {
      const char* kind;
      const FlowStepTiming& t;
      double speedup;
    };
    for (const Row& r : {Row{"strong", strong, alone.ms_per_step / strong.ms_per_step},
                         Row{"weak", weak, alone.ms_per_step * ranks / weak.ms_per_step}}) {
      fmt::print(
          "{:<14} {:<7} {:>5} {:>16.0f} {:>10.3f} {:>12.3f} {:>8.2f} {:>5.0f}% {:>8.0f}% "
          "{:>12.3f}\n",
          c.name, r.kind, ranks, r.t.cells, r.t.ms_per_step, alone.ms_per_step, r.speedup,
          100 * r.speedup / ranks, 100 * r.t.pressure_share, r.t.bound_ms);
      rows.push_back({{"case", c.name},
                      {"kind", r.kind},
                      {"ranks", ranks},
                      {"cells", r.t.cells},
                      {"ms_per_step", r.t.ms_per_step},
                      {"one_rank_ms_per_step", alone.ms_per_step},
                      {"speedup", r.speedup},
                      {"efficiency", r.speedup / ranks},
                      {"pressure_share", r.t.pressure_share},
                      {"bound_ms", r.t.bound_ms}});
    }
    fmt::print("{}: strong, the {} box split; weak, {} of them, {}\n", c.name, cube, ranks,
               c.weak_mesh);
    std::fflush(stdout);
  }
  if (!comm.is_root()) return 0;
  fmt::print(
      "pressure: the slowest rank's share of the step in pressure solves; bound: {} at the "
      "copy bandwidth\n",
      traffic);
  if (!s.out.empty()) {
    std::filesystem::create_directories(s.out);
    write_json_file(
        s.out + "/bench.json",
        {{"bench", "flow"}, {"ranks", ranks}, {"device", to_string(d)}, {"rows", rows}});
  }
  return 0;
}

}  // namespace

int flow_bench_command(const BenchSettings& s) {
  const Device d = select_device(s.device);
  if (Communicator::world().size() > 1) return flow_ranks_bench(s, d);
  std::vector<int> sizes;
  if (s.n == 8192)  // the bench default: the two sizes the flow figures quote
    sizes = d == Device::cuda ? std::vector<int>{1024, 4096} : std::vector<int>{256, 512};
  else
    sizes = {s.n};
  const int steps = std::clamp(s.repeats, 3, 50);
  fmt::print("gridsolve bench flow on {}\n", to_string(d));
  std::fflush(stdout);
  const double bw = copy_bandwidth(d);
  fmt::print("copy bandwidth (device to device, read + write): {:.1f} GB/s\n", bw / 1e9);
  nlohmann::json out;
  out["device"] = to_string(d);
  out["copy_gbytes_per_s"] = bw / 1e9;
  fmt::print("{:>6} {:>12} {:>12} {:>14} {:>10} {:>14} {:>10} {:>15} {:>8}\n", "cells", "ms/step",
             "ns/cell", "bound ms/step", "of bound", "pressure share", "p-iters", "predictor share",
             "sweeps");
  for (int n : sizes) {
    const FlowStepTiming t = time_flow_step(d, piso_cavity(n), steps, bw);
    fmt::print(
        "{:>5}^2 {:>12.3f} {:>12.3f} {:>14.3f} {:>9.1f}% {:>13.1f}% {:>10.1f} {:>14.1f}% "
        "{:>8.1f}\n",
        n, t.ms_per_step, t.ns_per_cell, t.bound_ms, 100 * t.bound_ms / t.ms_per_step,
        100 * t.pressure_share, t.pressure_iterations, 100 * t.predictor_share,
        t.sweeps_per_predictor);
    std::fflush(stdout);
    out["piso"].push_back({{"n", n},
                           {"ms_per_step", t.ms_per_step},
                           {"ns_per_cell", t.ns_per_cell},
                           {"bound_ms", t.bound_ms},
                           {"pressure_share", t.pressure_share},
                           {"pressure_iterations_per_step", t.pressure_iterations},
                           {"predictor_share", t.predictor_share},
                           {"sweeps_per_predictor", t.sweeps_per_predictor},
                           {"traffic", t.traffic}});
  }
  fmt::print("bound: {}\n", "6 words/cell (read u, v, p; write u, v, p) at the copy bandwidth");
  fmt::print(
      "pressure / predictor share: of as many steps again, timed apart with the device "
      "waited for around each solve (the ms/step figure is of steps without those waits); "
      "sweeps: red-black sweeps a component's predictor took\n");
  taylor_green_table(d,
                     s.n != 8192         ? std::vector<int>{s.n}
                     : d == Device::cuda ? std::vector<int>{64, 256, 1024}
                                         : std::vector<int>{64, 128},
                     out);
  const SteadyCavityTiming st = time_steady_cavity(d, 1000, 128);
  fmt::print(
      "steady cavity Re 1000, 128^2, SIMPLEC: {:.2f} s, {} iterations{}, Ghia max / mean "
      "deviation {:.4f} / {:.4f}\n",
      st.seconds, st.iterations, st.converged ? "" : " (NOT converged)", st.ghia_max, st.ghia_mean);
  out["steady_cavity"] = {{"re", 1000},
                          {"n", 128},
                          {"seconds", st.seconds},
                          {"iterations", st.iterations},
                          {"converged", st.converged},
                          {"ghia_max", st.ghia_max},
                          {"ghia_mean", st.ghia_mean}};
  const std::string peer_dir =
      (std::filesystem::temp_directory_path() / "gridsolve-icofoam-cavity").string();
  double peer = run_icofoam_peer(1000, 128, peer_dir);
  std::string peer_note = "measured now";
  if (peer < 0) {
    peer = 545.0;
    peer_note =
        "not installed here; its figure measured on the 2-core development machine "
        "(t = 60, 19200 PISO steps, Ghia max / mean deviation 0.0122 / 0.0028)";
  }
  fmt::print("icoFoam on the same case: {:.1f} s ({}); gridsolve is {:.1f}x faster\n", peer,
             peer_note, peer / st.seconds);
  out["icofoam_seconds"] = peer;
  out["icofoam_note"] = peer_note;
  out["speedup_over_icofoam"] = peer / st.seconds;
  if (!s.out.empty()) {
    std::filesystem::create_directories(s.out);
    write_json_file(s.out + "/bench_flow.json", out);
  }
  return exit_ok;
}

}  // namespace gridsolve::cli
