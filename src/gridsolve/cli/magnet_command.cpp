#include "gridsolve/cli/magnet_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gridsolve/exec/memory.hpp"

#include <cmath>
#include <cstdio>

#include "gridsolve/apps/magnet/magnet_config.hpp"
#include "gridsolve/apps/magnet/magnet_files.hpp"
#include "gridsolve/apps/magnet/magnet_plots.hpp"
#include "gridsolve/apps/magnet/magnet_run.hpp"
#include "gridsolve/apps/magnet/magnet_study.hpp"
#include "gridsolve/cli/commands.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::cli {

using namespace gridsolve::magnet;

namespace {

void add_design_options(CLI::App* a, MagnetArguments& m) {
  a->add_option("--config", m.config,
                "TOML file with [magnet], [solver], [study], [output] (docs/magnet.md)");
  for (const Parameter<MagnetDesign>& p : magnet_parameters())
    std::visit([&](auto member) { a->add_option(p.option(), m.design.*member, p.help_text()); },
               p.member);
  a->add_option("--h", m.h, "mesh spacing dr = dz, m");
  a->add_option("--solver", m.solver,
                fmt::format("{} (default {}; sor is the source's method)", solver_choices(),
                            default_magnet_solver()));
  a->add_option("--device", m.device, "auto | cpu | cuda (default auto)");
  a->add_option("--precision", m.precision, "double | float (default double)");
  a->add_option(
      "--tol", m.tol,
      "relative residual to stop at (default 0.5e-6, the source's rule; float: 1e-4, or 1e-3 with "
      "the stationary solvers)");
  a->add_option("--max-iter", m.max_iter, "iteration cap");
  a->add_option("--omega", m.omega, "SOR factor (default: the source's estimate)");
  a->add_option("--residual", m.residual,
                "volume | diagonal: the residual the stopping rule measures, of the "
                "finite-volume rows (default) or of the rows divided by their diagonal, as the "
                "source's finite-difference code does (stationary solvers only)");
  a->add_option("--out", m.out, "output folder (default magnet-out)");
  a->add_flag("-q,--quiet", m.quiet, "print nothing but errors");
}

bool given(const MagnetArguments& m, const std::string& name) {
  return m.magnet->count(name) > 0 || (m.study && m.study->count(name) > 0);
}

MagnetConfig resolve_config(const MagnetArguments& m) {
  MagnetConfig c;
  if (given(m, "--config")) c = load_magnet_config(m.config, c);
  MagnetDesign& d = c.design;
  auto take = [&](const std::string& name, auto& target, const auto& value) {
    if (given(m, name)) target = value;
  };
  if (given(m, "--h")) d.dr = d.dz = m.h;
  for (const Parameter<MagnetDesign>& p : magnet_parameters()) {
    const std::string option = p.option().substr(0, p.option().find(','));
    std::visit([&](auto member) { take(option, d.*member, m.design.*member); }, p.member);
  }
  require_finite(magnet_parameters(), d);
  SolveSettings& s = c.solve;
  take("--solver", s.solver, m.solver);
  take("--device", s.device, m.device);
  if (given(m, "--precision")) s.precision = parse_precision(m.precision);
  if (given(m, "--tol")) s.tolerance = m.tol;
  take("--max-iter", s.options.max_iterations, m.max_iter);
  take("--omega", s.options.omega, m.omega);
  take("--residual", c.residual, m.residual);
  take("--out", c.out, m.out);
  if (m.study) {
    if (m.study->count("--spacings")) c.study_spacings = m.spacings;
    if (m.study->count("--boxes")) c.study_boxes = m.boxes;
    if (m.study->count("--box-spacing")) c.study_box_spacing = m.box_spacing;
  }
  require(!c.out.empty(), "the output folder (--out) must not be empty");
  return c;
}

MagnetSolveSettings solve_settings(const MagnetConfig& c, bool quiet) {
  MagnetSolveSettings s = magnet_solve_settings(resolve(c.solve), c.residual);
  if (!quiet)
    s.options.on_progress = [](const ProgressInfo& p) {
      std::fprintf(stderr, "  iteration %8d   relative residual %.3e   %.1f s\n", p.iteration,
                   p.value, p.seconds);
    };
  return s;
}

void print_design(const MagnetResult& r, const std::string& out) {
  const MagnetDesign& d = r.design;
  const SolveReport& rep = r.field.report;
  fmt::print("gridsolve magnet: {}\n", d.describe());
  fmt::print("  grid         {} x {} nodes (r x z), {} unknowns\n", r.field.grid.n[0],
             r.field.grid.n[1], r.field.unknowns);
  fmt::print("  solver       {} ({} kernel){}, {} on {}\n", rep.solver, rep.kernel,
             rep.omega > 0 ? fmt::format(", omega {:.6f}", rep.omega) : "", r.field.precision,
             r.field.device);
  if (r.field.ranks.ranks > 1) fmt::print("  ranks        {}\n", describe(r.field.ranks));
  fmt::print("  result       {}\n", rep.reason);
  fmt::print("  iterations   {}, relative residual {:.3e}\n", rep.iterations,
             rep.relative_residual);
  fmt::print(
      "  time         {:.3f} s solve + {:.3f} s solver setup, {:.3f} s assembly, {:.3f} s "
      "post-processing, {:.3f} s potential to the host{}{}\n",
      rep.seconds, rep.setup_seconds, r.field.assembly_seconds, r.post_seconds,
      r.field.readback_seconds,
      r.field.ranks.ranks > 1
          ? fmt::format(" ({:.3f} s gathering it onto every rank)", r.field.gather_seconds)
          : "",
      r.field.device_start_seconds > 0
          ? fmt::format("; {:.3f} s starting the GPU", r.field.device_start_seconds)
          : "");
  if (device_bytes_peak() > 0)
    fmt::print("  GPU memory   {:.2f} GiB at the peak\n",
               double(device_bytes_peak()) / 1073741824.0);
  fmt::print("  current      I = {:.2f} A on the upper half (dPhi at the cap centre)\n",
             r.jump.total_current);
  fmt::print("  wires        {} per half, {:.3f} A each; upper half (r, z) in m:\n", d.wires,
             r.quality.wire_current);
  for (const Wire& w : r.wires)
    fmt::print("    {:3d}  {:<4}  r = {:.4f}  z = {:.4f}\n", w.index, w.surface, w.r, w.z);
  fmt::print("  field        B(0) = {:.6f} mT from the wires ({:+.3f} % of the target {} mT)\n",
             r.quality.b0 * 1e3, (r.quality.b0 / d.B - 1) * 100, d.B * 1e3);
  fmt::print("  efficiency   B(0) / I = {:.5f} mT/A\n", r.quality.efficiency * 1e3);
  fmt::print(
      "  homogeneity  {:.1f} ppm peak to peak over the central {:.0f} cm of the axis; "
      "{:.1f} ppm over a sphere of radius {:.0f} cm\n",
      r.quality.axis_ppm, d.axis_span * 100, r.quality.sphere_ppm, d.sphere_radius * 100);
  if (!out.empty()) fmt::print("  results      {}/\n", printable(out));
}

int design(const MagnetArguments& m) {
  const MagnetConfig c = resolve_config(m);
  c.design.validate();
  // Under mpirun every rank solves its part and designs from the whole potential; rank 0
  // alone prints and writes.
  const bool root = Communicator::world().is_root();
  const MagnetSolveSettings s = solve_settings(c, m.quiet || !root);
  const MagnetResult r = run_magnet(c.design, s);
  if (!root) return r.field.report.converged ? exit_ok : exit_not_converged;
  if (!r.field.report.converged) {
    const SolveReport& rep = r.field.report;
    std::fprintf(stderr,
                 "gridsolve magnet: the potential solve did not converge (%s; %d iterations, "
                 "relative residual %.3e); no wires placed, no files written\n",
                 rep.reason.c_str(), rep.iterations, rep.relative_residual);
    return exit_not_converged;
  }
  nlohmann::json extra;
  extra["files"]["data"] = write_magnet_data(c.out, r);
  PlotOutcome plots;
  if (!m.no_plots)
    plots = write_magnet_plots(c.out, r);
  else
    plots.problem = "plots not requested (--no-plots)";
  extra["files"]["plots"] = plots.written;
  extra["plots_problem"] =
      plots.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(plots.problem);
  write_magnet_summary(c.out, r, extra);
  if (!m.quiet) {
    print_design(r, c.out);
    if (!plots.written.empty()) fmt::print("  plots        {}\n", fmt::join(plots.written, ", "));
  }
  if (!plots.problem.empty() && !m.no_plots)
    std::fprintf(stderr, "gridsolve magnet: %s\n", plots.problem.c_str());
  return r.field.report.converged ? exit_ok : exit_not_converged;
}

std::string study_csv(const std::vector<StudyStep>& steps) {
  std::string out =
      "sweep,h,r1,z1,nodes_r,nodes_z,iterations,seconds,converged,total_current,"
      "current_change,dphi_change,order,current_order\n";
  auto num = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
  for (const StudyStep& s : steps)
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", s.sweep, s.h, s.r1, s.z1,
                    s.nodes_r, s.nodes_z, s.iterations, s.seconds, s.converged, s.total_current,
                    num(s.current_change), num(s.dphi_change), num(s.order), num(s.current_order));
  return out;
}

void print_steps(const std::vector<StudyStep>& steps) {
  fmt::print("  {:>8} {:>6} {:>6} {:>11} {:>7} {:>8} {:>12} {:>10} {:>7} {:>11} {:>7}\n", "h (m)",
             "r1", "z1", "nodes", "iters", "time s", "I (A)", "dI / I", "order", "max ddPhi/I",
             "order");
  auto num = [](double v, const char* f) {
    return std::isfinite(v) ? fmt::format(fmt::runtime(f), v) : std::string("-");
  };
  for (const StudyStep& s : steps)
    fmt::print(
        "  {:>8.4g} {:>6.3g} {:>6.3g} {:>11} {:>7} {:>8.2f} {:>12.3f} {:>10} {:>7} {:>11} {:>7}\n",
        s.h, s.r1, s.z1, fmt::format("{}x{}", s.nodes_r, s.nodes_z), s.iterations, s.seconds,
        s.total_current, num(s.current_change, "{:.2e}"), num(s.current_order, "{:.2f}"),
        num(s.dphi_change, "{:.2e}"), num(s.order, "{:.2f}"));
}

int study(const MagnetArguments& m) {
  const MagnetConfig c = resolve_config(m);
  c.design.validate();
  // Under mpirun every rank solves its part of each step; rank 0 alone prints and writes.
  const bool root = Communicator::world().is_root();
  const bool quiet = m.quiet || !root;
  MagnetSolveSettings s = solve_settings(c, true);
  if (!quiet) fmt::print("gridsolve magnet study: {}\n", c.design.describe());
  if (!quiet)
    fmt::print("mesh sweep (dr = dz = h, box r1 = {} m, z1 = {} m):\n", c.design.r1, c.design.z1);
  const std::vector<StudyStep> mesh = mesh_study(c.design, s, c.study_spacings);
  if (!quiet) print_steps(mesh);
  if (!quiet) fmt::print("outer box sweep (r1 = z1, h = {} m):\n", c.study_box_spacing);
  const std::vector<StudyStep> box = box_study(c.design, s, c.study_boxes, c.study_box_spacing);
  if (!quiet) print_steps(box);
  std::vector<StudyStep> all = mesh;
  all.insert(all.end(), box.begin(), box.end());
  bool converged = true;
  for (const StudyStep& st : all) converged = converged && st.converged;
  if (!root) return converged ? exit_ok : exit_not_converged;
  create_output_directory(c.out);
  write_file_atomically(c.out + "/study.csv", study_csv(all));
  if (!quiet) fmt::print("  results      {}/study.csv\n", printable(c.out));
  return converged ? exit_ok : exit_not_converged;
}

}  // namespace

CLI::App* add_magnet_command(CLI::App& app, MagnetArguments& m) {
  m.magnet = app.add_subcommand(
      "magnet",
      "design a cylindrical coil for a uniform field: axisymmetric scalar potential, "
      "surface current, wire layout, field homogeneity (no options: the source's case)");
  add_design_options(m.magnet, m);
  m.magnet->add_flag("--no-plots", m.no_plots, "write the data but no PNG plots");
  m.magnet->require_subcommand(0, 1);
  m.study = m.magnet->add_subcommand(
      "study", "convergence of dPhi as the mesh is refined and the outer box grows");
  add_design_options(m.study, m);
  m.study->add_option("--spacings", m.spacings,
                      "mesh spacings to sweep, m (default 0.025 0.0125 0.00625)");
  m.study->add_option("--boxes", m.boxes, "outer box sizes r1 = z1 to sweep, m (default 1 2 3 4)");
  m.study->add_option("--box-spacing", m.box_spacing,
                      "mesh spacing of the box sweep, m (default 0.01)");
  return m.magnet;
}

int magnet_command(const MagnetArguments& m) {
  if (m.study && *m.study) return study(m);
  return design(m);
}

}  // namespace gridsolve::cli
