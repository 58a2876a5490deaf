#include "gridsolve/apps/flow/flow_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "gridsolve/apps/flow/flow_files.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
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

}  // namespace

FlowResult run_flow(const FlowCase& c, Device d, const FlowRunOptions& o) {
  c.validate();
  FlowResult res;
  res.flow_case = c;
  res.device = device_name(d);
  auto say = [&](const std::string& s) {
    if (o.print) o.print(s);
  };
  FlowSolver<double> solver(c, d);
  say(fmt::format("{}\n  grid {}, device {}", c.describe(), solver.grid().describe(), res.device));
  if (!o.out.empty()) prepare_output(o.out);
  const auto t0 = Clock::now();
  double last_progress = 0;
  const double h_min = std::min(solver.grid().min_width(0), solver.grid().min_width(1));

  if (c.steady()) {
    for (long long it = 1; it <= c.max_iterations; ++it) {
      const bool measure = it % c.check_every == 0 || it == c.max_iterations;
      const StepReport r = solver.simple_iteration(measure);
      res.iterations = it;
      if (!measure) continue;
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
            eta = std::log(r.change / c.u_ref / c.steady_tolerance) / rate * el / double(it);
        }
        say(fmt::format(
            "  iteration {}: velocity change {:.2e} (target {:.0e}), continuity "
            "{:.2e}, div {:.1e}, ETA {}",
            it, r.change / c.u_ref, c.steady_tolerance, r.continuity, r.divergence, eta_text(eta)));
      }
    }
    if (!res.converged)
      res.reason = fmt::format(
          "not converged in {} iterations (velocity change {:.2e}, target "
          "{:.1e})",
          c.max_iterations, res.last.change / c.u_ref, c.steady_tolerance);
  } else {
    double dt = c.dt > 0 ? c.dt : c.cfl * h_min / c.u_ref;
    const int frames = std::max(0, o.frames);
    int frame = 0;
    double next_frame = frames > 0 ? c.t_end / frames : 1e300;
    long long step = 0;
    while (solver.time() < c.t_end * (1 - 1e-12)) {
      ++step;
      const bool measure = step % c.check_every == 0;
      if (c.dt <= 0 && step > 1 && (step - 1) % c.check_every == 0) {
        const double want = solver.cfl_time_step(c.cfl);
        if (want > 0) dt = std::min(want, 1.2 * dt);
      }
      const double h = std::min(dt, c.t_end - solver.time());
      const StepReport r = solver.piso_step(h, measure);
      res.iterations = step;
      if (!c.obstacles.empty()) {
        const Forces f = solver.forces();
        const double scale = 2.0 / (c.u_ref * c.u_ref * c.length_ref);
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
      if (!o.out.empty() && frames > 0 && solver.time() >= next_frame * (1 - 1e-9) &&
          frame < frames) {
        write_frame(o.out, solver, frame++);
        next_frame += c.t_end / frames;
      }
      const double el = seconds_since(t0);
      if (el > o.progress_after && el - last_progress > 2.0) {
        last_progress = el;
        say(
            fmt::format("  t {:.4g} / {} ({:.1f}%), step {}, dt {:.3e}, continuity {:.2e}, div "
                        "{:.1e}, pressure iterations {}, ETA {}",
                        solver.time(), c.t_end, 100 * solver.time() / c.t_end, step, h,
                        res.last.continuity, res.last.divergence, res.last.pressure_iterations,
                        eta_text(el * (c.t_end - solver.time()) / solver.time())));
      }
    }
    res.converged = true;
    res.reason = fmt::format("reached t = {} in {} steps", solver.time(), step);
  }
  synchronize(d);
  res.seconds = seconds_since(t0);
  res.time = solver.time();

  // What the benchmark measures.
  const FlowSnapshot snap(solver);
  if (!c.obstacles.empty()) {
    res.has_forces = true;
    const Forces f = solver.forces();
    const double scale = 2.0 / (c.u_ref * c.u_ref * c.length_ref);
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
    res.dp = snap.pressure(c.probe_a[0], c.probe_a[1]) - snap.pressure(c.probe_b[0], c.probe_b[1]);
  }
  if (c.dims == 2 && c.obstacles.empty()) {
    res.has_vortex = true;
    res.vortex = primary_vortex(snap);
  }
  if (c.benchmark == Benchmark::cavity) {
    const double re = 1.0 / c.nu;
    if (std::abs(re - 100) < 1e-9 || std::abs(re - 1000) < 1e-9)
      res.ghia = compare_with_ghia(snap, ghia_table_path(), std::round(re));
  }
  res.summary = summary_json(res);
  if (!o.out.empty()) {
    write_results(o.out, solver, snap, res);
    if (o.plots) {
      const std::string problem = write_plots(o.out, snap, res);
      if (!problem.empty()) say("  plots not drawn: " + problem);
    }
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
