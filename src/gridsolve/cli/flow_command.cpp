#include "gridsolve/cli/flow_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "gridsolve/apps/flow/flow_config.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/cli/commands.hpp"
#include "gridsolve/exec/device.hpp"

namespace gridsolve::cli {

using namespace gridsolve::flow;

namespace {

void add_common(CLI::App* a, FlowArguments& f) {
  a->add_option("--device", f.device, "auto | cpu | cuda (default auto)");
  a->add_option("--out", f.out, "output folder (fields, CSV, summary.json, plots)");
  a->add_option("--coupling", f.coupling, "simple | simplec | piso");
  a->add_option("--convection", f.convection, "upwind | hybrid | tvd (default tvd)");
  a->add_option("--time", f.time_scheme, "euler | bdf2 (PISO; default bdf2)");
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
  a->add_flag("-q,--quiet", f.quiet, "print nothing but errors");
  a->add_flag("--no-plots", f.no_plots, "skip the PNG figures");
}

void apply_overrides(const FlowArguments& f, FlowCase& c) {
  if (!f.coupling.empty()) c.coupling = parse_coupling(f.coupling);
  if (!f.convection.empty()) c.convection = parse_convection(f.convection);
  if (!f.time_scheme.empty()) c.time_scheme = parse_time_scheme(f.time_scheme);
  if (f.tol != 0) c.steady_tolerance = f.tol;
  if (f.max_iter != 0) c.max_iterations = f.max_iter;
  if (f.t_end != 0) c.t_end = f.t_end;
  if (f.cfl >= 0) c.cfl = f.cfl;
  if (f.dt != 0) c.dt = f.dt;
  if (f.relax_u != 0) c.relax_u = f.relax_u;
  if (f.relax_p != 0) c.relax_p = f.relax_p;
  if (f.pressure_tol != 0) c.pressure_tolerance = f.pressure_tol;
  if (f.sweeps != 0) c.momentum_sweeps = f.sweeps;
  if (!f.spacing.empty()) c.spacing[0] = c.spacing[1] = AxisSpacing::parse(f.spacing);
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
  f.channel->add_option("--case", f.which, "dfg-2d-1 | dfg-2d-2 | dfg-2d-3")->required();
  f.channel->add_option("--cpd", f.cells_per_diameter, "cells per cylinder diameter (default 16)");
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
  std::string device = f.device, out = f.out;
  int frames = f.frames;
  if (*f.cavity) {
    c = cavity_case(f.re, f.n);
  } else if (*f.channel) {
    c = dfg_case(f.which, f.cells_per_diameter);
  } else {
    FlowConfig cfg = load_flow_config(f.config);
    c = cfg.flow_case;
    if (f.flow->count("--device") == 0) device = cfg.device;
    if (out.empty()) out = cfg.out;
    if (frames < 0) frames = cfg.frames;
  }
  apply_overrides(f, c);
  c.validate();
  FlowRunOptions o;
  o.out = out;
  o.plots = !f.no_plots;
  o.frames = frames < 0 ? 10 : frames;
  if (!f.quiet)
    o.print = [](const std::string& s) {
      std::printf("%s\n", s.c_str());
      std::fflush(stdout);
    };
  const FlowResult r = run_flow(c, select_device(device), o);
  if (!f.quiet) std::printf("%s", describe(r).c_str());
  return r.converged ? exit_ok : exit_not_converged;
}

}  // namespace gridsolve::cli
