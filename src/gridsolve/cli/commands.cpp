#include "gridsolve/cli/commands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "gridsolve/apps/heat/heat_plate.hpp"
#include "gridsolve/cli/bench_command.hpp"
#include "gridsolve/cli/info_command.hpp"
#include "gridsolve/cli/magnet_command.hpp"
#include "gridsolve/cli/micromag_command.hpp"
#include "gridsolve/cli/run_problem.hpp"
#include "gridsolve/cli/tridiag_command.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/config.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve::cli {

namespace {

// Options every solving command shares.
void add_solver_options(CLI::App* app, RunSettings& s, std::string& rule) {
  app->add_option("--solver", s.solver,
                  "jacobi | gauss-seidel | sor | rb-gs | mg | mgcg | mgcg-mixed | cg | pcg | buneman | fft")
      ->capture_default_str();
  app->add_option("--device", s.device, "auto | cpu | cuda (auto takes the GPU when present)")
      ->capture_default_str();
  app->add_option("--precision", s.precision, "double | float")->capture_default_str();
  app->add_option("--tol", s.options.tolerance,
                  "stop when the watched quantity falls below this (float: 1e-4 unless given)")
      ->capture_default_str();
  app->add_option("--rule", rule,
                  "residual: ||b - Au|| / ||b|| < tol;  update: max |u_new - u_old| < tol")
      ->capture_default_str();
  app->add_option("--max-iter", s.options.max_iterations, "iteration cap")->capture_default_str();
  app->add_option("--check-every", s.options.check_every,
                  "iterations between convergence checks (0: the solver's default)")
      ->capture_default_str();
  app->add_option("--omega", s.options.omega, "SOR factor in (0, 2); 0 picks the optimum")
      ->capture_default_str();
  app->add_option("--weight", s.options.weight, "Jacobi damping in (0, 1]")->capture_default_str();
  app->add_flag(
      "--generic", [&s](std::int64_t) { s.options.tuned = false; },
      "use the generic loop bodies instead of the tuned GPU kernels");
  app->add_option("--cycle", s.multigrid.cycle, "multigrid cycle: V | W | F")
      ->capture_default_str();
  app->add_option("--pre", s.multigrid.pre_smooth, "multigrid pre-smoothing sweeps")
      ->capture_default_str();
  app->add_option("--post", s.multigrid.post_smooth, "multigrid post-smoothing sweeps")
      ->capture_default_str();
  app->add_option("--smoother", s.multigrid.smoother, "multigrid smoother: rb-gs | jacobi")
      ->capture_default_str();
  app->add_flag("--fmg", s.multigrid.full_multigrid,
                "multigrid: start from a full-multigrid guess");
  app->add_option("--out", s.out,
                  "folder for summary.json, history.csv and the solution (HDF5 + XDMF)");
  app->add_flag("-q,--quiet", s.quiet, "print nothing but errors");
}

// Single precision cannot reach a relative residual of 1e-8; unless the user chose a
// tolerance, a float solve stops at 1e-4, above its rounding floor.
void default_float_tolerance(const CLI::App* app, RunSettings& s) {
  const bool single = s.precision == "float" || s.precision == "fp32" || s.precision == "single";
  if (single && s.options.rule == StopRule::residual && app->count("--tol") == 0)
    s.options.tolerance = 1e-4;
}

StopRule parse_rule(const std::string& rule) {
  if (rule == "residual") return StopRule::residual;
  if (rule == "update") return StopRule::update;
  throw Error(fmt::format("--rule must be residual or update, got '{}'", rule));
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "gridsolve: fast solvers for field problems on structured grids, on CPUs and NVIDIA GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gridsolve 0.1.0");

  // info
  CLI::App* info = app.add_subcommand("info", "devices, build features and solvers");

  // poisson
  RunSettings poisson_run;
  poisson_run.command = "poisson";
  std::string poisson_rule = "residual";
  ModelProblem model;
  CLI::App* poisson = app.add_subcommand(
      "poisson",
      "model Poisson problems: manufactured solutions (checked against the exact "
      "answer) or a random right-hand side");
  poisson->add_option("--n", model.n, "nodes per side")->capture_default_str();
  poisson->add_option("--dims", model.dims, "2 or 3")->capture_default_str();
  poisson
      ->add_option("--sides", model.sides,
                   "dirichlet | neumann (low sides Neumann, high sides Dirichlet) | robin")
      ->capture_default_str();
  poisson
      ->add_option("--mask", model.mask,
                   "none | fixed (L-shape, fixed re-entrant sides) | hole (L-shape, "
                   "insulated re-entrant sides)")
      ->capture_default_str();
  poisson->add_option("--k", model.coefficient, "constant | variable")->capture_default_str();
  poisson->add_option("--rhs", model.rhs, "manufactured | random")->capture_default_str();
  poisson->add_option("--seed", model.seed, "random right-hand side seed")->capture_default_str();
  add_solver_options(poisson, poisson_run, poisson_rule);

  // heat
  RunSettings heat_run;
  heat_run.command = "heat";
  heat_run.solver = "jacobi";
  heat_run.options.tolerance = 1e-4;
  heat_run.options.max_iterations = 15000;
  std::string heat_rule = "update";
  HeatPlate plate;
  CLI::App* heat = app.add_subcommand(
      "heat", "steady heat plate: hot central patch, cold edges (Jacobi, stop on max update)");
  heat->add_option("--n", plate.n, "nodes per side")->capture_default_str();
  heat->add_option("--patch", plate.patch, "side of the hot patch, fraction of the plate")
      ->capture_default_str();
  heat->add_option("--hot", plate.hot, "patch temperature")->capture_default_str();
  heat->add_option("--cold", plate.cold, "edge temperature")->capture_default_str();
  add_solver_options(heat, heat_run, heat_rule);

  // solve CONFIG.toml
  std::string config_path;
  RunSettings solve_overrides;
  CLI::App* solve = app.add_subcommand("solve", "solve a problem described in a TOML file");
  solve->add_option("config", config_path, "the problem file (see docs/config.md)")->required();
  std::string solve_device, solve_precision, solve_out, solve_solver;
  solve->add_option("--device", solve_device, "override the file's device");
  solve->add_option("--precision", solve_precision, "override the file's precision");
  solve->add_option("--solver", solve_solver, "override the file's solver");
  solve->add_option("--out", solve_out, "override the file's output folder");
  bool solve_quiet = false;
  solve->add_flag("-q,--quiet", solve_quiet, "print nothing but errors");

  // magnet [study]
  MagnetArguments magnet_args;
  CLI::App* magnet = add_magnet_command(app, magnet_args);

  // micromag CONFIG.toml
  MicromagArguments micromag_args;
  CLI::App* micromag = add_micromag_command(app, micromag_args);

  // tridiag FILE
  TridiagSettings tridiag_settings;
  CLI::App* tridiag_cmd = add_tridiag_command(app, tridiag_settings);

  // bench
  BenchSettings bench_settings;
  CLI::App* bench =
      app.add_subcommand("bench", "measure kernels against the copy bandwidth and peers");
  add_bench_options(bench, bench_settings);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "gridsolve: %s\n", e.what());
    std::fprintf(stderr,
                 "run 'gridsolve --help' or 'gridsolve <command> --help' for the options\n");
    return exit_bad_input;
  }

  try {
    if (*info) return info_command();
    if (*poisson) {
      poisson_run.options.rule = parse_rule(poisson_rule);
      default_float_tolerance(poisson, poisson_run);
      canonical_solver_name(poisson_run.solver);
      poisson_run.multigrid.validate();
      return run_problem(make_model_problem(model), poisson_run);
    }
    if (*heat) {
      heat_run.options.rule = parse_rule(heat_rule);
      canonical_solver_name(heat_run.solver);
      heat_run.multigrid.validate();
      return run_problem(make_heat_plate(plate), heat_run);
    }
    if (*solve) {
      RunConfig cfg = load_config(config_path);
      RunSettings s;
      s.command = "solve";
      s.solver = solve_solver.empty() ? cfg.solver : solve_solver;
      s.device = solve_device.empty() ? cfg.device : solve_device;
      s.precision = solve_precision.empty() ? cfg.precision : solve_precision;
      s.out = solve_out.empty() ? cfg.out : solve_out;
      s.options = cfg.options;
      s.multigrid = cfg.multigrid;
      s.quiet = solve_quiet;
      canonical_solver_name(s.solver);
      return run_problem(cfg.spec, s);
    }
    if (*bench) return bench_command(bench_settings);
    if (*tridiag_cmd) return tridiag_command(tridiag_settings);
    if (*magnet) return magnet_command(magnet_args);
    if (*micromag) return micromag_command(micromag_args);
  } catch (const Error& e) {
    std::fprintf(stderr, "gridsolve: error: %s\n", e.what());
    return e.kind() == Error::Kind::invalid_input ? exit_bad_input : exit_failure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridsolve: unexpected failure: %s\n", e.what());
    return exit_failure;
  }
  return exit_failure;
}

}  // namespace gridsolve::cli
