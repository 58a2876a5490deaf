#include "gridsolve/cli/multigrid_bench_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "gridsolve/bench/multigrid_bench.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve::cli {

int multigrid_bench_command(const BenchSettings& s) {
  const int unknowns = s.unknowns;
  require(s.dims == 2 || s.dims == 3, fmt::format("--dims must be 2 or 3, got {}", s.dims));
  require(unknowns >= 3, fmt::format("--unknowns must be at least 3, got {}", unknowns));
  require(s.repeats >= 1, fmt::format("--repeats must be at least 1, got {}", s.repeats));
  require(s.tolerance > 0, fmt::format("--tol must be positive, got {}", s.tolerance));
  // Checked before the benchmark runs, not after.
  const std::string json_path = s.out.empty() ? "" : prepare_output_file(s.out, "bench_mg.json");
  std::vector<Device> devices;
  if (s.device == "auto") {
    devices.push_back(Device::cpu);
    if (cuda_available()) devices.push_back(Device::cuda);
  } else {
    devices.push_back(select_device(s.device));
  }
  fmt::print(
      "gridsolve bench mg: {}D Poisson, {}^{} unknowns, random right-hand side, zero "
      "Dirichlet sides, to relative residual {:.0e}; median of {} runs; setup (once per "
      "operator) and solve apart\n",
      s.dims, unknowns, s.dims, s.tolerance, s.repeats);
  std::vector<MultigridBenchRow> rows;
  for (Device d : devices) {
    std::vector<std::string> precisions = {"double"};
    if (d == Device::cuda) precisions.push_back("float");
    for (auto& r : run_multigrid_bench(d, s.dims, unknowns, s.tolerance, s.repeats, precisions))
      rows.push_back(r);
    // A time loop's case: one operator, many right-hand sides.
    rows.push_back(run_many_rhs_bench(d, s.dims, unknowns, s.tolerance, "mgcg", s.rhs_count));
  }
  std::string why;
  if (s.dims == 2) {
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    for (int ranks : {1, 2}) {
      auto peer = run_hypre_peer(self, unknowns, s.tolerance, ranks, why);
      rows.insert(rows.end(), peer.begin(), peer.end());
      if (peer.empty()) break;
    }
  }
  fmt::print("{:<28} {:>6} {:>6} {:>10} {:>10} {:>10} {:>6} {:>10} {:>8} {:>9}\n", "solver",
             "device", "prec", "total s", "setup s", "solve s", "iter", "residual", "factor",
             "ns/unkn");
  nlohmann::json out = nlohmann::json::array();
  for (const MultigridBenchRow& r : rows) {
    fmt::print(
        "{:<28} {:>6} {:>6} {:>10.4f} {:>10.4f} {:>10.5f} {:>6} {:>10.2e} {:>8.3f} {:>9.2f}  {}\n",
        r.solver, r.device, r.precision, r.seconds, r.setup_seconds, r.solve_seconds, r.iterations,
        r.relative_residual, r.convergence_factor, r.ns_per_unknown, r.note);
    out.push_back({{"solver", r.solver},
                   {"device", r.device},
                   {"precision", r.precision},
                   {"dims", r.dims},
                   {"unknowns_per_side", r.unknowns_per_side},
                   {"seconds", r.seconds},
                   {"setup_seconds", r.setup_seconds},
                   {"solve_seconds", r.solve_seconds},
                   {"iterations", r.iterations},
                   {"relative_residual", json_number(r.relative_residual)},
                   {"convergence_factor", r.convergence_factor},
                   {"ns_per_unknown", r.ns_per_unknown},
                   {"note", r.note}});
  }
  if (!why.empty()) fmt::print("peer: {}\n", why);
  if (!json_path.empty()) {
    write_json_file(json_path, {{"bench", "mg"},
                                {"dims", s.dims},
                                {"unknowns_per_side", unknowns},
                                {"tolerance", s.tolerance},
                                {"rows", out}});
  }
  return 0;
}

}  // namespace gridsolve::cli
