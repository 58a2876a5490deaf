#include "gridsolve/cli/bench_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "gridsolve/bench/micromag_bench.hpp"
#include "gridsolve/bench/stencil_bench.hpp"
#include "gridsolve/cli/direct_bench_command.hpp"
#include "gridsolve/cli/multigrid_bench_command.hpp"
#include "gridsolve/cli/scaling_bench_command.hpp"
#include "gridsolve/cli/flow_command.hpp"
#include "gridsolve/cli/sort_command.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::cli {

void add_bench_options(CLI::App* app, BenchSettings& s) {
  app->add_option(
         "what", s.what,
         "stencil: Jacobi sweep and red-black SOR iteration; tridiag: batched and long "
         "tridiagonal solves against cuSPARSE; poisson: fast Poisson solvers against cuFFT; "
         "mg: multigrid time to solution against HYPRE; sort: sorting networks against CUB and "
         "thrust; flow: PISO step and steady cavity against icoFoam; micromag: demag evaluation "
         "and LLG step against cuFFT and mumax3; scaling: strong and weak scaling on the "
         "ranks of an mpirun launch")
      ->capture_default_str();
  app->add_option("--n", s.n, "nodes per side of the square grid")->capture_default_str();
  app->add_option("--repeats", s.repeats, "timed repetitions (the median is reported)")
      ->capture_default_str();
  app->add_option("--device", s.device, "auto | cpu | cuda")->capture_default_str();
  app->add_option("--out", s.out, "folder for bench.json");
  app->add_option("--dims", s.dims, "mg: 2 or 3")->capture_default_str();
  app->add_option("--unknowns", s.unknowns, "mg: unknowns per side")->capture_default_str();
  app->add_option("--rhs-count", s.rhs_count,
                  "mg: right-hand sides solved with one operator set up once")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app->add_option("--tol", s.tolerance, "mg: relative residual to reach")->capture_default_str();
  app->add_option("--mesh", s.mesh, "micromag: cells, NXxNYxNZ")->capture_default_str();
  app->add_option("--peer", s.peer, "micromag: folder of a mumax3 build (bin/mumax3) to run beside");
  app->add_option("--per-rank", s.per_rank,
                  "scaling: nodes per side of one rank's share in weak scaling (default 8191 in "
                  "2D, 511 in 3D)")
      ->check(CLI::Range(9, 1 << 20));
  app->add_option("--solver", s.solver, "scaling: jacobi | sor | rb-gs | cg | pcg | bicgstab")
      ->capture_default_str();
  app->add_option("--iterations", s.iterations, "scaling: iterations per timed solve")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
}

int bench_command(const BenchSettings& s) {
  if (s.what == "tridiag" || s.what == "poisson") return direct_bench_command(s);
  if (s.what == "mg") return multigrid_bench_command(s);
  if (s.what == "sort") return sort_bench_command(s);
  if (s.what == "flow") return flow_bench_command(s);
  if (s.what == "micromag")
    return micromag_bench({s.mesh, s.device, s.repeats, s.peer, s.out});
  if (s.what == "scaling") return scaling_bench_command(s);
  require(s.what == "stencil",
          fmt::format("bench knows 'stencil', 'tridiag', 'poisson', 'mg', 'sort', 'flow', "
                      "'micromag' and 'scaling', got '{}'",
                      s.what));
  require(s.n >= 16, fmt::format("--n must be at least 16, got {}", s.n));
  require(s.repeats >= 1, fmt::format("--repeats must be at least 1, got {}", s.repeats));
  const Device device = select_device(s.device);
  // Checked before the benchmark runs, not after.
  const std::string json_path = s.out.empty() ? "" : prepare_output_file(s.out, "bench.json");
  fmt::print("gridsolve bench stencil: {} x {} nodes on {}, median of {} runs\n", s.n, s.n,
             to_string(device), s.repeats);
  const std::vector<BenchRow> rows = run_stencil_bench(device, s.n, s.repeats);
  fmt::print("{:<44} {:>6} {:>10} {:>10} {:>10} {:>8}  {}\n", "kernel", "prec", "ms", "Gcell/s",
             "GB/s", "of copy", "traffic counted");
  nlohmann::json out = nlohmann::json::array();
  for (const BenchRow& r : rows) {
    fmt::print("{:<44} {:>6} {:>10.4f} {:>10.2f} {:>10.1f} {:>7.1f}%  {}\n", r.name, r.precision,
               r.ms, r.gcells_per_s, r.gbytes_per_s, 100 * r.fraction_of_copy, r.traffic);
    out.push_back({{"kernel", r.name},
                   {"precision", r.precision},
                   {"ms", r.ms},
                   {"gcells_per_s", r.gcells_per_s},
                   {"gbytes_per_s", r.gbytes_per_s},
                   {"fraction_of_copy", r.fraction_of_copy},
                   {"traffic", r.traffic}});
  }
  if (!json_path.empty()) {
    nlohmann::json doc = {{"bench", "stencil"},
                          {"n", s.n},
                          {"device", to_string(device)},
                          {"repeats", s.repeats},
                          {"rows", out}};
    write_json_file(json_path, doc);
  }
  return 0;
}

}  // namespace gridsolve::cli
