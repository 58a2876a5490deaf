// The gridsolve command line: sub-commands, their options, and the exit codes.
#include "gridsolve/cli/option_checks.hpp"
#include "gridsolve/cli/commands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "gridsolve/apps/heat/heat_plate.hpp"
#include "gridsolve/cli/bench_command.hpp"
#include "gridsolve/cli/info_command.hpp"
#include "gridsolve/cli/magnet_command.hpp"
#include "gridsolve/cli/flow_command.hpp"
#include "gridsolve/cli/micromag_command.hpp"
#include "gridsolve/cli/run_problem.hpp"
#include "gridsolve/cli/sort_command.hpp"
#include "gridsolve/cli/tridiag_command.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/config.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::cli {

namespace {

// Solver options as typed on the command line, before they are checked.
struct SolverArguments {
  std::string solver, device, precision, rule, cycle, smoother;
  double tolerance = 0;
};

// Options every solving command shares. Defaults shown in the help come from `s`.
void add_solver_options(CLI::App* app, RunSettings& s, SolverArguments& a) {
  a.solver = s.solve.solver;
  a.device = s.solve.device;
  a.precision = to_string(s.solve.precision);
  a.rule = s.solve.options.rule == StopRule::residual ? "residual" : "update";
  a.cycle = to_string(s.solve.multigrid.cycle);
  a.smoother = to_string(s.solve.multigrid.smoother);
  app->add_option("--solver", a.solver, solver_choices())->capture_default_str();
  app->add_option("--device", a.device, "auto | cpu | cuda (auto takes the GPU when present)")
      ->capture_default_str();
  app->add_option("--precision", a.precision, "double | float")->capture_default_str();
  app->add_option(
      "--tol", a.tolerance,
      s.solve.default_tolerance
          ? fmt::format("stop when the watched quantity falls below this (default {})",
                        s.solve.default_tolerance(Precision::fp64, find_solver(s.solve.solver)))
          : std::string("stop when the watched quantity falls below this (default: the "
                        "solver's for the precision, e.g. 1e-8 double, 1e-4 float)"));
  app->add_option("--rule", a.rule,
                  "residual: ||b - Au|| / ||b|| < tol;  update: max |u_new - u_old| < tol")
      ->capture_default_str();
  app->add_option("--max-iter", s.solve.options.max_iterations, "iteration cap")
      ->capture_default_str();
  app->add_option("--check-every", s.solve.options.check_every,
                  "iterations between convergence checks (0: the solver's default)")
      ->capture_default_str();
  app->add_option("--omega", s.solve.options.omega, "SOR factor in (0, 2); 0 picks the optimum")
      ->capture_default_str();
  app->add_option("--weight", s.solve.options.weight, "Jacobi damping in (0, 1]")
      ->capture_default_str();
  app->add_flag(
      "--generic", [&s](std::int64_t) { s.solve.options.tuned = false; },
      "use the generic loop bodies instead of the tuned GPU kernels");
  app->add_option("--cycle", a.cycle, "multigrid cycle: V | W | F")->capture_default_str();
  app->add_option("--pre", s.solve.multigrid.pre_smooth, "multigrid pre-smoothing sweeps")
      ->capture_default_str();
  app->add_option("--post", s.solve.multigrid.post_smooth, "multigrid post-smoothing sweeps")
      ->capture_default_str();
  app->add_option(
         "--smoother", a.smoother,
         "multigrid smoother: rb-gs | jacobi | line (zebra lines along the strongest axis)")
      ->capture_default_str();
  app->add_flag("--fmg", s.solve.multigrid.full_multigrid,
                "multigrid: start from a full-multigrid guess");
  app->add_option("--out", s.out,
                  "folder for summary.json, history.csv and the solution (HDF5 + XDMF)");
  app->add_flag("-q,--quiet", s.quiet, "print nothing but errors");
  app->add_option("--ranks-grid", s.ranks_grid,
                  "under mpirun: ranks per axis, PxQ (2D) or PxQxR (3D); default: chosen");
}

StopRule parse_rule(const std::string& rule) {
  if (rule == "residual") return StopRule::residual;
  if (rule == "update") return StopRule::update;
  throw Error(fmt::format("--rule must be residual or update, got '{}'", printable(rule)));
}

// The typed settings from what was typed.
void take_solver_arguments(const CLI::App* app, const SolverArguments& a, RunSettings& s) {
  s.solve.solver = a.solver;
  s.solve.device = a.device;
  s.solve.precision = parse_precision(a.precision);
  s.solve.options.rule = parse_rule(a.rule);
  s.solve.multigrid.cycle = parse_cycle(a.cycle);
  s.solve.multigrid.smoother = parse_smoother(a.smoother);
  if (app->count("--tol") > 0) s.solve.tolerance = a.tolerance;
}

// An option given an empty value ("--tol ''", "--solver ''") would read as 0 or as the
// default; refuse it, in every command at once.
void refuse_empty_values(const CLI::App* app) {
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->get_items_expected_min() == 0 || opt->count() == 0) continue;
    for (const std::string& value : opt->results())
      if (value.find_first_not_of(" \t") == std::string::npos)
        throw Error(fmt::format("{} was given an empty value; give one or leave the option out",
                                opt->get_name()));
  }
  for (const CLI::App* sub : app->get_subcommands()) refuse_empty_values(sub);
}

// " (did you mean '--tol'?)" for the first unknown long option, among the options of
// the commands given.
std::string option_hint(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  std::vector<CLI::App*> apps{&app};
  for (std::size_t a = 0; a < apps.size(); ++a) {
    for (const CLI::Option* opt : apps[a]->get_options())
      for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    for (CLI::App* sub : apps[a]->get_subcommands()) apps.push_back(sub);
  }
  const std::vector<std::string_view> views(names.begin(), names.end());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
    if (arg.rfind("--", 0) != 0 || std::find(names.begin(), names.end(), arg) != names.end())
      continue;
    return did_you_mean(arg, views);
  }
  return "";
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
  poisson_run.solve.solver = "sor";
  SolverArguments poisson_args;
  ModelProblem model;
  CLI::App* poisson = app.add_subcommand(
      "poisson",
      "model Poisson problems: manufactured solutions (checked against the exact "
      "answer) or a random right-hand side");
  poisson->add_option("--n", model.n, "nodes per side")->capture_default_str();
  poisson->add_option("--dims", model.dims, "2 or 3")->capture_default_str();
  poisson
      ->add_option("--sides", model.sides,
                   "dirichlet | neumann (low sides Neumann, high sides Dirichlet) | robin | "
                   "periodic (every axis but the last periodic) | periodic-all")
      ->capture_default_str();
  poisson
      ->add_option("--mask", model.mask,
                   "none | fixed (L-shape, fixed re-entrant sides) | hole (L-shape, "
                   "insulated re-entrant sides)")
      ->capture_default_str();
  poisson->add_option("--k", model.coefficient, "constant | variable")->capture_default_str();
  poisson->add_option("--rhs", model.rhs, "manufactured | random")->capture_default_str();
  // Unsigned options check their text first: CLI11 would read "-1" as 2^64 - 1.
  poisson->add_option("--seed", model.seed, "random right-hand side seed")
      ->check(not_negative())
      ->capture_default_str();
  add_solver_options(poisson, poisson_run, poisson_args);

  // heat: the article's method and stopping rule unless told otherwise
  RunSettings heat_run;
  heat_run.command = "heat";
  heat_run.solve.solver = "jacobi";
  heat_run.solve.default_tolerance = [](Precision, const SolverInfo&) {
    return heat_update_tolerance;
  };
  heat_run.solve.options.max_iterations = heat_max_sweeps;
  heat_run.solve.options.rule = StopRule::update;
  SolverArguments heat_args;
  HeatPlate plate;
  CLI::App* heat = app.add_subcommand(
      "heat", "steady heat plate: hot central patch, cold edges (Jacobi, stop on max update)");
  for (const Parameter<HeatPlate>& p : heat_parameters())
    std::visit([&](auto m) { heat->add_option(p.option(), plate.*m, p.help_text()); }, p.member);
  add_solver_options(heat, heat_run, heat_args);

  // solve CONFIG.toml
  std::string config_path;
  CLI::App* solve = app.add_subcommand("solve", "solve a problem described in a TOML file");
  solve->add_option("config", config_path, "the problem file (see docs/config.md)")->required();
  std::string solve_device, solve_precision, solve_out, solve_solver;
  solve->add_option("--device", solve_device, "override the file's device");
  solve->add_option("--precision", solve_precision, "override the file's precision");
  solve->add_option("--solver", solve_solver, "override the file's solver: " + solver_choices());
  solve->add_option("--out", solve_out, "override the file's output folder");
  bool solve_quiet = false;
  solve->add_flag("-q,--quiet", solve_quiet, "print nothing but errors");

  // magnet [study]
  MagnetArguments magnet_args;
  CLI::App* magnet = add_magnet_command(app, magnet_args);

  // cavity, channel, flow FILE
  FlowArguments flow_args;
  add_flow_commands(app, flow_args);
  // micromag CONFIG.toml
  MicromagArguments micromag_args;
  CLI::App* micromag = add_micromag_command(app, micromag_args);

  // tridiag FILE
  TridiagSettings tridiag_settings;
  CLI::App* tridiag_cmd = add_tridiag_command(app, tridiag_settings);

  // sort FILE
  SortSettings sort_settings;
  CLI::App* sort_cmd = add_sort_command(app, sort_settings);

  // bench
  BenchSettings bench_settings;
  CLI::App* bench =
      app.add_subcommand("bench", "measure kernels against the copy bandwidth and peers");
  add_bench_options(bench, bench_settings);

  // An unknown command: name it, with a hint, rather than "a subcommand is required".
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::vector<std::string_view> views(names.begin(), names.end());
      std::fprintf(stderr, "gridsolve: unknown command '%s'%s; commands: %s\n",
                   printable(argv[1]).c_str(), did_you_mean(argv[1], views).c_str(),
                   fmt::format("{}", fmt::join(names, ", ")).c_str());
      return exit_bad_input;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "gridsolve: %s%s\n", printable(e.what()).c_str(),
                 option_hint(app, argc, argv).c_str());
    std::fprintf(stderr,
                 "run 'gridsolve --help' or 'gridsolve <command> --help' for the options\n");
    return exit_bad_input;
  }

  try {
    refuse_empty_values(&app);
    if (*info) return info_command();
    if (*poisson) {
      take_solver_arguments(poisson, poisson_args, poisson_run);
      return run_problem(make_model_problem(model), poisson_run);
    }
    if (*heat) {
      take_solver_arguments(heat, heat_args, heat_run);
      heat_run.parameters = parameters_json(heat_parameters(), plate);
      return run_problem(make_heat_plate(plate), heat_run);
    }
    const bool ranks_bench = *bench && (bench_settings.what == "scaling" ||
                                        bench_settings.what == "micromag" ||
                                        bench_settings.what == "flow");
    if (!*solve && !*magnet && !*micromag && !ranks_bench && !flow_requested(flow_args) &&
        Communicator::world().size() > 1)
      // Each rank would run the whole command alone, all writing the same files.
      throw Error(
          fmt::format("{} runs on one process; under mpirun only poisson, heat, solve, "
                      "magnet, micromag, cavity, channel, flow, bench scaling, bench micromag, "
                      "bench flow and info run",
                      app.get_subcommands().front()->get_name()));
    if (*solve) {
      RunConfig cfg = load_config(config_path);
      RunSettings s;
      s.command = "solve";
      s.solve = cfg.solve;
      if (!solve_solver.empty()) s.solve.solver = solve_solver;
      if (!solve_device.empty()) s.solve.device = solve_device;
      if (!solve_precision.empty()) s.solve.precision = parse_precision(solve_precision);
      s.out = solve_out.empty() ? cfg.out : solve_out;
      s.quiet = solve_quiet;
      return run_problem(cfg.spec, s);
    }
    if (*bench) return bench_command(bench_settings);
    if (*tridiag_cmd) return tridiag_command(tridiag_settings);
    if (*sort_cmd) return sort_command(sort_settings);
    if (*magnet) return magnet_command(magnet_args);
    if (flow_requested(flow_args)) return flow_command(flow_args);
    if (*micromag) return micromag_command(micromag_args);
  } catch (const Error& e) {
    std::fprintf(stderr, "gridsolve: error: %s\n", printable(e.what()).c_str());
    return e.kind() == Error::Kind::invalid_input ? exit_bad_input : exit_failure;
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "gridsolve: error: %s\n", describe_allocation_failure(e).c_str());
    return exit_bad_input;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridsolve: unexpected failure: %s\n", printable(e.what()).c_str());
    return exit_failure;
  }
  return exit_failure;
}

}  // namespace gridsolve::cli
