#include "gridsolve/apps/flow/flow_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "gridsolve/apps/flow/flow_files.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::flow {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string eta_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

void check_finite(const StepReport& r, long long step) {
  if (!std::isfinite(r.continuity) || !std::isfinite(r.change) || !std::isfinite(r.divergence))
    throw Error(fmt::format("the flow diverged at step {} (a non-finite residual); lower the CFL "
                            "number or the under-relaxation, or refine the grid",
                            step),
                Error::Kind::runtime);
}

std::string device_name(Device d) {
  if (d == Device::cpu) return fmt::format("CPU ({} threads)", cpu_threads());
  const auto devs = cuda_devices();
  return devs.empty() ? "CUDA" : devs.front().name;
}

// The run loop's own state in a checkpoint: the solver's is save_state's.
void save_run(Checkpoint& ck, const FlowResult& res, long long step, double dt, int frame,
              double next_frame) {
  ck.header["run"] = {{"kind", res.flow_case.steady() ? "steady" : "transient"},
                      {"step", step},
                      {"time", res.time}};
  const double reals[] = {dt,
                          next_frame,
                          res.last.continuity,
                          res.last.divergence,
                          res.last.change,
                          res.last.pressure_residual,
                          double(res.last.pressure_iterations),
                          res.last.measured ? 1.0 : 0.0};
  ck.put("run_reals", reals, 8);
  const long long ints[] = {step, frame};
  ck.put("run_integers", ints, 2);
  std::vector<double> f;
  f.reserve(3 * res.forces.size());
  for (const ForceSample& s : res.forces) f.insert(f.end(), {s.t, s.c_d, s.c_l});
  ck.put("forces", f.data(), f.size());
  std::vector<double> h;
  h.reserve(7 * res.history.size());
  for (const HistoryRow& r : res.history)
    h.insert(h.end(), {double(r.step), r.time, r.dt, r.continuity, r.change, r.divergence,
                       double(r.pressure_iterations)});
  ck.put("history", h.data(), h.size());
  ck.put("frame_times", res.frame_times.data(), res.frame_times.size());
}

void restore_run(const Checkpoint& ck, FlowResult& res, long long& step, double& dt, int& frame,
                 double& next_frame) {
  const std::vector<double> reals = ck.get<double>("run_reals");
  const std::vector<long long> ints = ck.get<long long>("run_integers");
  const std::vector<double> f = ck.get<double>("forces"), h = ck.get<double>("history");
  if (reals.size() != 8 || ints.size() != 2 || f.size() % 3 != 0 || h.size() % 7 != 0)
    throw Error(fmt::format("checkpoint '{}': the run's state is malformed", ck.source));
  if (!(std::isfinite(reals[0]) && reals[0] >= 0 && std::isfinite(reals[1]) && ints[0] >= 0 &&
        ints[1] >= 0 && ints[1] <= std::numeric_limits<int>::max()))
    throw Error(
        fmt::format("checkpoint '{}': the run's state holds impossible values (step {}, "
                    "frame {}, dt {})",
                    ck.source, ints[0], ints[1], reals[0]));
  dt = reals[0];
  next_frame = reals[1];
  res.last.continuity = reals[2];
  res.last.divergence = reals[3];
  res.last.change = reals[4];
  res.last.pressure_residual = reals[5];
  res.last.pressure_iterations = int(reals[6]);
  res.last.measured = reals[7] != 0;
  step = ints[0];
  frame = int(ints[1]);
  res.forces.clear();
  for (std::size_t i = 0; i < f.size(); i += 3) res.forces.push_back({f[i], f[i + 1], f[i + 2]});
  res.history.clear();
  for (std::size_t i = 0; i < h.size(); i += 7)
    res.history.push_back(HistoryRow{(long long)h[i], h[i + 1], h[i + 2], h[i + 3], h[i + 4],
                                     h[i + 5], int(h[i + 6])});
  res.frame_times = ck.get<double>("frame_times");
  // One time per frame written: the series file lists exactly the frames on disk.
  if (res.frame_times.size() != std::size_t(frame))
    throw Error(
        fmt::format("checkpoint '{}': the run's state is inconsistent ({} frames, {} "
                    "frame times)",
                    ck.source, frame, res.frame_times.size()));
  res.restarted_from = step;
}

}  // namespace

std::string checkpoint_path(const FlowRunOptions& o) {
  if (!o.checkpoint_file.empty()) return o.checkpoint_file;
  if (o.out.empty())
    throw Error(
        "checkpoints need a place: give --out (they go to OUT/checkpoint.gsflow) or "
        "--checkpoint-file PATH");
  return o.out + "/checkpoint.gsflow";
}

FlowResult run_flow(const FlowCase& c, Device d, const FlowRunOptions& o) {
  c.validate();
  FlowResult res;
  res.flow_case = c;
  res.device = device_name(d);
  // Under mpirun every rank runs the solver on its part and every rank makes the
  // snapshots (they gather the parts); rank 0 alone prints and writes the files.
  const Communicator& comm = Communicator::world();
  const bool root = comm.is_root();
  auto say = [&](const std::string& s) {
    if (o.print && root) o.print(s);
  };
  require(o.frames >= 0, fmt::format("--frames is {}; give 0 (none) or more", o.frames));
  require(o.checkpoint_every >= 0,
          fmt::format("--checkpoint-every is {}; give a positive number of steps, or 0 for none",
                      o.checkpoint_every));
  // Checked before any work: a bad restart file or an unwritable checkpoint path.
  Checkpoint restart;
  if (!o.restart.empty()) {
    restart = read_checkpoint(o.restart, checkpoint_size_limit(c));
    require_same_case(restart, c);
  }
  require(o.stop_after >= 0, fmt::format("--stop-after is {}; give a positive number of steps, "
                                         "or 0 to run to the end",
                                         o.stop_after));
  // A run stopped early leaves a checkpoint to go on from.
  const bool checkpoints = o.checkpoint_every > 0 || o.stop_after > 0;
  const std::string ck_path = checkpoints ? checkpoint_path(o) : std::string();
  if (!ck_path.empty()) {
    const std::filesystem::path parent = std::filesystem::path(ck_path).parent_path();
    if (!parent.empty()) create_output_directory(parent.string());
    check_output_path(ck_path, false);
  }
  FlowSolver<double> solver(c, d);
  say(fmt::format("{}\n  grid {}, device {}", c.describe(), solver.grid().describe(), res.device));
  // One id for every file of the run; a restart continues the run of its checkpoint.
  std::string run_id;
  if (!o.restart.empty() && restart.header.contains("run_id") &&
      restart.header["run_id"].is_string())
    run_id = restart.header["run_id"].get<std::string>();
  if (run_id.empty()) run_id = make_run_id();
  std::optional<FlowOutput> output;
  if (!o.out.empty() && root) output.emplace(o.out, run_id);
  const bool writes = !o.out.empty();  // on every rank: the frames' snapshots are collective
  // The loop's state (a restart takes it from the checkpoint).
  long long step = 0;
  double dt =
      c.dt > 0 ? c.dt
               : c.cfl * std::min(solver.grid().min_width(0), solver.grid().min_width(1)) / c.u_ref;
  int frame = 0;
  const int frames = o.frames;
  double next_frame = frames > 0 ? c.t_end / frames : 1e300;
  if (checkpoints) solver.keep_pressure_setup(true);
  if (c.has_initial && o.restart.empty()) {
    for (int q = 0; q < c.dims; ++q) solver.set_velocity(q, c.initial_velocity[std::size_t(q)]);
    solver.set_pressure(c.initial_pressure);
  }
  if (c.coupling == Coupling::projection) {
    // The explicit stages are stable only below the CFL and diffusion limits: the first
    // step already keeps them (from the initial field), and a fixed step must.
    const double limit = solver.cfl_time_step(c.dt > 0 ? FlowCase::max_cfl : c.cfl);
    if (c.dt > 0 && limit > 0 && c.dt > limit)
      throw Error(fmt::format(
          "dt {} is above {:.4g}, the largest step the projection scheme's explicit stages "
          "take here (CFL {} and diffusion number {}): lower dt, or give cfl instead",
          c.dt, limit, FlowCase::max_cfl, FlowCase::max_diffusion_number));
    if (c.dt <= 0 && limit > 0) dt = std::min(dt, limit);
  }
  if (!o.restart.empty()) {
    solver.restore_state(restart);
    restore_run(restart, res, step, dt, frame, next_frame);
    restart = Checkpoint{};
    res.iterations = step;
    say(fmt::format("  restarted from '{}' at {} {}{}", o.restart,
                    c.steady() ? "iteration" : "step", step,
                    c.steady() ? "" : fmt::format(", t = {:.6g}", solver.time())));
    if (!c.steady() && frames > 0 && frame > 0 && !o.out.empty() &&
        !std::filesystem::exists(fmt::format("{}/frames/fields_{:04d}.h5", o.out, frame - 1)))
      say(
          fmt::format("  note: {}/frames lacks the {} earlier frames; series.xdmf will list them "
                      "(write the restarted run to the first run's --out)",
                      o.out, frame));
  }
  if (output) {
    const std::string note = output->start(!c.steady() && frames > 0 && frame < frames,
                                           c.steady() ? 0 : frame, solver.grid(), res.frame_times);
    if (!note.empty()) say(note);
  }
  long long checkpointed = step;
  auto checkpoint = [&] {
    checkpointed = step;
    Checkpoint ck;
    ck.header["format"] = "gridsolve flow checkpoint";
    ck.header["case"] = case_identity(c);
    ck.header["device"] = res.device;
    ck.header["run_id"] = run_id;
    res.time = solver.time();
    solver.save_state(ck);  // on ranks gathered onto rank 0, which writes it
    save_run(ck, res, step, dt, frame, next_frame);
    if (root) write_checkpoint(ck_path, ck);
  };
  const auto t0 = Clock::now();
  solver.set_profiling(o.profile);
  const double pressure_seconds0 = solver.pressure_seconds(),
               predictor_seconds0 = solver.predictor_seconds();
  const long long predictor_solves0 = solver.predictor_solves(),
                  predictor_sweeps0 = solver.predictor_sweeps();
  const long long pressure_solves0 = solver.pressure_solves(),
                  pressure_iterations0 = solver.pressure_iterations();
  double last_progress = 0;
  const long long first = step;  // steps done before this invocation
  bool stopped = false;

  if (c.steady()) {
    for (long long it = step + 1; it <= c.max_iterations; ++it) {
      const bool measure = it % c.check_every == 0 || it == c.max_iterations;
      const StepReport r = solver.simple_iteration(measure);
      if (o.each_step) o.each_step();
      res.iterations = step = it;
      if (measure) {
        check_finite(r, it);
        res.last = r;
        res.history.push_back(HistoryRow{it, 0, 0, r.continuity, r.change / c.u_ref, r.divergence,
                                         r.pressure_iterations});
        if (r.change / c.u_ref < c.steady_tolerance) {
          res.converged = true;
          res.reason = fmt::format("largest velocity change per iteration {:.2e} below {:.1e}",
                                   r.change / c.u_ref, c.steady_tolerance);
          break;
        }
        const double el = seconds_since(t0);
        if (el > o.progress_after && el - last_progress > 2.0) {
          last_progress = el;
          // ETA from the change's geometric decay over the last checks.
          double eta = NAN;
          if (res.history.size() > 4) {
            const HistoryRow& a = res.history[res.history.size() - 4];
            const double rate = std::log(a.change / (r.change / c.u_ref)) / double(it - a.step);
            if (rate > 0)
              eta = std::log(r.change / c.u_ref / c.steady_tolerance) / rate * el /
                    double(it - std::max(0LL, res.restarted_from));
          }
          say(
              fmt::format("  iteration {}: velocity change {:.2e} (target {:.0e}), continuity "
                          "{:.2e}, div {:.1e}, ETA {}",
                          it, r.change / c.u_ref, c.steady_tolerance, r.continuity, r.divergence,
                          eta_text(eta)));
        }
      }
      if (o.checkpoint_every > 0 && it % o.checkpoint_every == 0) checkpoint();
      if (o.stop_after > 0 && it - first >= o.stop_after) {
        stopped = true;
        break;
      }
    }
    if (stopped)
      res.reason = fmt::format(
          "stopped after {} iterations (--stop-after) at iteration {}; "
          "continue with --restart {}",
          o.stop_after, step, ck_path);
    else if (!res.converged)
      res.reason = fmt::format(
          "not converged in {} iterations (velocity change {:.2e}, target "
          "{:.1e})",
          c.max_iterations, res.last.change / c.u_ref, c.steady_tolerance);
  } else {
    const double t_start = solver.time();
    while (solver.time() < c.t_end * (1 - 1e-12)) {
      ++step;
      if (c.dt <= 0 && step > 1 && (step - 1) % c.check_every == 0) {
        const double want = solver.cfl_time_step(c.cfl);
        if (want > 0) dt = std::min(want, 1.2 * dt);
      }
      const double h = std::min(dt, c.t_end - solver.time());
      // Every check_every steps, and the one that reaches t_end, so that what the run
      // reports was measured (measuring adds reductions only: the state does not depend on
      // it, and a restarted run measures the same steps).
      const bool last = h >= (c.t_end - solver.time()) * (1 - 1e-12);
      const bool measure = step % c.check_every == 0 || last;
      const StepReport r = solver.time_step(h, measure);
      if (o.each_step) o.each_step();
      res.iterations = step;
      if (!c.obstacles.empty()) {
        const Forces f = solver.forces();
        const double scale = c.force_scale();
        const ForceSample s{solver.time(), f.fx * scale, f.fy * scale};
        if (!std::isfinite(s.c_d))
          throw Error(fmt::format("the flow diverged at t = {} (non-finite forces)", s.t),
                      Error::Kind::runtime);
        res.forces.push_back(s);
      }
      if (measure) {
        check_finite(r, step);
        res.last = r;
        res.history.push_back(HistoryRow{step, solver.time(), h, r.continuity, r.change / h,
                                         r.divergence, r.pressure_iterations});
      }
      if ((writes || o.on_frame) && frames > 0 && solver.time() >= next_frame * (1 - 1e-9) &&
          frame < frames) {
        res.frame_times.push_back(solver.time());
        const FlowSnapshot snap(solver);
        if (output) output->write_frame(snap, frame, res.frame_times);
        if (o.on_frame) o.on_frame(snap);
        ++frame;
        next_frame += c.t_end / frames;
      }
      if (o.checkpoint_every > 0 && step % o.checkpoint_every == 0) checkpoint();
      if (o.stop_after > 0 && step - first >= o.stop_after &&
          solver.time() < c.t_end * (1 - 1e-12)) {
        stopped = true;
        break;
      }
      const double el = seconds_since(t0);
      if (el > o.progress_after && el - last_progress > 2.0) {
        last_progress = el;
        say(
            fmt::format("  t {:.4g} / {} ({:.1f}%), step {}, dt {:.3e}, continuity {:.2e}, div "
                        "{:.1e}, pressure iterations {}, ETA {}",
                        solver.time(), c.t_end, 100 * solver.time() / c.t_end, step, h,
                        res.last.continuity, res.last.divergence, res.last.pressure_iterations,
                        eta_text(el * (c.t_end - solver.time()) / (solver.time() - t_start))));
      }
    }
    res.converged = !stopped;
    res.reason = stopped ? fmt::format(
                               "stopped after {} steps (--stop-after) at step {}, t = {}; continue "
                               "with --restart {}",
                               o.stop_after, step, solver.time(), ck_path)
                         : fmt::format("reached t = {} in {} steps", solver.time(), step);
  }
  // The end state too, so a finished run can be taken further (a later t_end).
  if (checkpoints && step != checkpointed) checkpoint();
  synchronize(d);
  res.seconds = seconds_since(t0);
  if (o.profile && res.seconds > 0) {
    res.pressure_share = (solver.pressure_seconds() - pressure_seconds0) / res.seconds;
    res.predictor_share = (solver.predictor_seconds() - predictor_seconds0) / res.seconds;
  }
  if (solver.predictor_solves() > predictor_solves0)
    res.sweeps_per_predictor = double(solver.predictor_sweeps() - predictor_sweeps0) /
                               double(solver.predictor_solves() - predictor_solves0);
  if (solver.pressure_solves() > pressure_solves0)
    res.pressure_cycles_per_solve = double(solver.pressure_iterations() - pressure_iterations0) /
                                    double(solver.pressure_solves() - pressure_solves0);
  res.time = solver.time();

  // What the benchmark measures.
  const FlowSnapshot snap(solver);
  if (d == Device::cuda)
    res.gpu_peak_bytes = Communicator::world().max(double(device_bytes_peak()));
  if (!c.obstacles.empty()) {
    res.has_forces = true;
    const Forces f = solver.forces();
    const double scale = c.force_scale();
    res.c_d = f.fx * scale;
    res.c_l = f.fy * scale;
    if (!res.forces.empty()) {
      // Periodic shedding: the second half (past the start-up); a pulse in time
      // (inflow_period) has its maxima anywhere.
      const std::size_t start = c.inflow_period > 0 ? 0 : res.forces.size() / 2;
      res.c_d_max = res.c_l_max = -1e300;
      std::vector<double> t, cl;
      for (std::size_t i = 0; i < res.forces.size(); ++i) {
        t.push_back(res.forces[i].t);
        cl.push_back(res.forces[i].c_l);
        if (i >= start) {
          res.c_d_max = std::max(res.c_d_max, res.forces[i].c_d);
          res.c_l_max = std::max(res.c_l_max, res.forces[i].c_l);
        }
      }
      res.strouhal = strouhal(t, cl, c.length_ref, c.u_ref);
    }
  }
  if (c.has_probes) {
    res.has_dp = true;
    res.dp = snap.pressure(c.probe_a[0], c.probe_a[1], c.probe_a[2]) -
             snap.pressure(c.probe_b[0], c.probe_b[1], c.probe_b[2]);
  }
  if (c.dims == 2 && c.obstacles.empty()) {
    res.has_vortex = true;
    res.vortex = primary_vortex(snap);
  }
  if (c.benchmark == Benchmark::cavity) {
    const double re = 1.0 / c.nu;
    if (std::abs(re - 100) < 1e-9 || std::abs(re - 1000) < 1e-9) {
      // A finished run is never lost to a missing reference: its results are written
      // without the comparison.
      const std::string table = ghia_table_path();
      if (!table.empty() && std::filesystem::exists(table))
        res.ghia = compare_with_ghia(snap, table, std::round(re));
      else
        say("  Ghia's table (ghia1982_re100_re1000.csv) not found: results written without "
            "the comparison; set GRIDSOLVE_REFERENCE_DIR to the folder that holds it");
    }
  }
  res.summary = summary_json(res);
  if (o.final_state) o.final_state(snap);
  if (output) {
    // Fields and CSVs, then the plots drawn from them, summary.json last.
    output->write_results(snap, res);
    if (o.plots) {
      const std::string problem = write_plots(o.out, snap, res);
      if (!problem.empty()) say("  plots not drawn: " + problem);
    }
    output->write_summary(res);
  }
  return res;
}

std::string describe(const FlowResult& r) {
  const FlowCase& c = r.flow_case;
  std::string s =
      fmt::format("  {} after {} {} ({:.2f} s{}): {}\n", r.converged ? "done" : "NOT CONVERGED",
                  r.iterations, c.steady() ? "iterations" : "steps", r.seconds,
                  c.steady() ? "" : fmt::format(", t = {:.4g}", r.time), r.reason);
  s += fmt::format("  continuity {:.2e}, max |div u| {:.2e}\n", r.last.continuity,
                   r.last.divergence);
  s += fmt::format(
      "  pressure solves: {:.1f} cycles each{}\n", r.pressure_cycles_per_solve,
      r.pressure_share >= 0 ? fmt::format(", {:.0f}% of the time", 100 * r.pressure_share) : "");
  if (r.sweeps_per_predictor > 0)
    s += fmt::format("  momentum predictors: {:.1f} {} each{}\n", r.sweeps_per_predictor,
                     c.momentum_solver == "sor" ? "sweeps" : "iterations",
                     r.predictor_share >= 0
                         ? fmt::format(", {:.0f}% of the time", 100 * r.predictor_share)
                         : "");
  if (r.gpu_peak_bytes > 0) {
    double cells = 1;
    for (int a = 0; a < c.dims; ++a) cells *= c.cells[std::size_t(a)];
    s += "  GPU memory: " +
         describe_gpu_peak(r.gpu_peak_bytes, cells, Communicator::world().size()) + "\n";
  }
  if (r.has_forces) {
    if (c.steady())
      s += fmt::format("  c_d {:.5f}, c_l {:.5f}\n", r.c_d, r.c_l);
    else
      s += fmt::format(
          "  c_d,max {:.4f}, c_l,max {:.4f}, Strouhal {:.4f}; at the end c_d {:.4f}, "
          "c_l {:.4f}\n",
          r.c_d_max, r.c_l_max, r.strouhal, r.c_d, r.c_l);
  }
  if (r.has_dp) s += fmt::format("  dp {:.5f}\n", r.dp);
  if (r.has_vortex)
    s +=
        fmt::format("  psi_min {:.6f} at ({:.4f}, {:.4f})\n", r.vortex.psi, r.vortex.x, r.vortex.y);
  if (!r.ghia.empty())
    s +=
        fmt::format("  centrelines against Ghia et al. (1982): max deviation {:.4f}, mean {:.4f}\n",
                    max_deviation(r.ghia), mean_deviation(r.ghia));
  for (const std::string& f : r.files) s += "  wrote " + f + "\n";
  return s;
}

}  // namespace gridsolve::flow
