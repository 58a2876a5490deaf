// run_flow_case: the case built as the commands build it, run by run_flow with no files.
#include "flow_case_run.hpp"

#include <fmt/format.h>

#include <variant>

#include "gridsolve/apps/flow/flow_config.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve {

using namespace flow;

FlowOutcome run_flow_case(const FlowRequest& r) {
  FlowCase c;
  std::string device = r.device;
  if (r.kind == "file") {
    const FlowConfig cfg = parse_flow_config(r.toml, r.source);
    c = cfg.flow_case;
    if (device.empty()) device = cfg.device;
  } else if (r.kind == "cavity") {
    c = cavity_case(r.re, r.n);
  } else if (r.kind == "channel") {
    c = dfg_case(r.which, r.cells_per_diameter);
  } else {
    throw Error(fmt::format("flow case kind must be file, cavity or channel, got '{}'", r.kind));
  }
  for (const auto& [key, value] : r.numbers) {
    bool known = false;
    for (const Parameter<FlowCase>& p : flow_method_parameters()) {
      if (p.key != key) continue;
      std::visit([&](auto m) { c.*m = static_cast<std::remove_reference_t<decltype(c.*m)>>(value); },
                 p.member);
      known = true;
    }
    if (!known) {
      std::string valid;
      for (const Parameter<FlowCase>& p : flow_method_parameters())
        valid += (valid.empty() ? "" : ", ") + std::string(p.key);
      throw Error(fmt::format("flow has no method setting '{}'; valid: {}, and coupling, "
                              "convection, time, pressure_solver, momentum_solver",
                              key, valid));
    }
  }
  bool time_named = false;
  for (const auto& [key, value] : r.words) {
    if (key == "coupling")
      c.coupling = parse_coupling(value);
    else if (key == "convection")
      c.convection = parse_convection(value);
    else if (key == "time")
      c.time_scheme = parse_time_scheme(value), time_named = true;
    else if (key == "pressure_solver")
      c.pressure_solver = value;
    else if (key == "momentum_solver")
      c.momentum_solver = value;
    else
      throw Error(fmt::format("flow has no method setting '{}' taking a word; valid: coupling, "
                              "convection, time, pressure_solver, momentum_solver",
                              key));
  }
  if (!time_named && r.words.count("coupling")) c.default_time_scheme();
  c.validate();
  FlowOutcome out;
  out.dims = c.dims;
  out.cells = c.cells;
  FlowRunOptions o;
  o.plots = false;
  o.frames = r.frames;
  o.checkpoint_every = r.checkpoint_every;
  o.checkpoint_file = r.checkpoint_file;
  o.restart = r.restart;
  o.stop_after = r.stop_after;
  o.each_step = r.each_step;
  o.final_state = [&](const FlowSnapshot& s) {
    for (int q = 0; q < c.dims; ++q) out.u[std::size_t(q)] = s.cell_velocity(q);
    out.p = s.cell_pressure();
  };
  if (r.frames > 0)
    o.on_frame = [&](const FlowSnapshot& s) {
      std::array<std::vector<double>, 3> u;
      for (int q = 0; q < c.dims; ++q) u[std::size_t(q)] = s.cell_velocity(q);
      out.frame_u.push_back(std::move(u));
      out.frame_p.push_back(s.cell_pressure());
    };
  const FlowResult res = run_flow(c, select_device(device.empty() ? "auto" : device), o);
  out.summary = res.summary.dump(2);
  out.frame_times = res.frame_times;
  for (const HistoryRow& h : res.history)
    out.history.insert(out.history.end(), {double(h.step), h.time, h.dt, h.continuity, h.change,
                                           h.divergence, double(h.pressure_iterations)});
  for (const ForceSample& f : res.forces) out.forces.insert(out.forces.end(), {f.t, f.c_d, f.c_l});
  return out;
}

}  // namespace gridsolve
