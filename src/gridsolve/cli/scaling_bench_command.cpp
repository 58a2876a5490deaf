#include "gridsolve/cli/scaling_bench_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gridsolve/bench/scaling_bench.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/summary_json.hpp"

namespace gridsolve {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ScalingRow, kind, ranks, process_grid, grid, kernel,
                                   ms_per_iteration, one_rank_ms_per_iteration,
                                   one_rank_unknowns_ratio, speedup, efficiency,
                                   exchange_ms_per_iteration, all_reduce_ms_per_iteration,
                                   exchanges_per_iteration, all_reduces_per_iteration,
                                   bytes_per_iteration)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ScalingReport, ranks, device, link, link_gbs, copy_gbs, rows)
}  // namespace gridsolve

namespace gridsolve::cli {

int scaling_bench_command(const BenchSettings& s) {
  const Communicator& comm = Communicator::world();
  ScalingBenchSettings b;
  b.device = select_device(s.device);
  b.dims = s.dims;
  b.n = s.n;
  b.n_per_rank = s.per_rank > 0 ? s.per_rank : (s.dims == 3 ? 511 : 8191);
  b.solver = s.solver;
  b.iterations = s.iterations;
  b.repeats = s.repeats;
  b.validate();
  // Checked before the benchmark runs, not after (rank 0 writes).
  const std::string json_path =
      s.out.empty() || !comm.is_root() ? "" : prepare_output_file(s.out, "bench_scaling.json");
  if (comm.is_root())
    fmt::print(
        "gridsolve bench scaling: {}D Poisson, random source, zero sides; {} for {} iterations, "
        "median of {}; {} rank{}\n",
        b.dims, b.solver, b.iterations, b.repeats, comm.size(), comm.size() == 1 ? "" : "s");
  const ScalingReport r = run_scaling_bench(b);
  if (!comm.is_root()) return 0;
  fmt::print("device {}; copy bandwidth {:.0f} GB/s (rank 0); link: {}{}\n", r.device, r.copy_gbs,
             r.link,
             r.link_gbs > 0 ? fmt::format(", {:.1f} GB/s one way per rank", r.link_gbs) : "");
  fmt::print("{:<7} {:>5} {:>7} {:>13} {:>10} {:>10} {:>8} {:>7} {:>9} {:>9} {:>10} {:>9}\n",
             "kind", "ranks", "procs", "grid", "ms/iter", "1-rank ms", "speedup", "effic", "exch %",
             "reduce %", "KB/iter", "link us");
  for (const ScalingRow& w : r.rows) {
    const double exchange_share = w.exchange_ms_per_iteration / w.ms_per_iteration;
    const double reduce_share = w.all_reduce_ms_per_iteration / w.ms_per_iteration;
    // The time the ghost bytes of one iteration need at the measured link bandwidth.
    const double link_us = r.link_gbs > 0 ? w.bytes_per_iteration / (r.link_gbs * 1e3) : 0;
    fmt::print(
        "{:<7} {:>5} {:>7} {:>13} {:>10.4f} {:>10.4f} {:>8.2f} {:>6.0f}% {:>8.1f}% {:>8.1f}% "
        "{:>10.1f} {:>9.1f}\n",
        w.kind, w.ranks, w.process_grid, w.grid, w.ms_per_iteration, w.one_rank_ms_per_iteration,
        w.speedup, 100 * w.efficiency, 100 * exchange_share, 100 * reduce_share,
        w.bytes_per_iteration / 1e3, link_us);
  }
  fmt::print(
      "strong: the same grid on every rank count, beside rank 0 alone on it; weak: about "
      "{}^{} nodes per rank, beside rank 0 alone on {}^{} (efficiency scaled by the unknowns). "
      "exch % / reduce %: ghost exchanges / all-reduces alone, as many as the iterations made, "
      "as a share of the iteration; link us: one iteration's ghost bytes at the link "
      "bandwidth\n",
      b.n_per_rank, b.dims, b.n_per_rank, b.dims);
  if (!json_path.empty()) {
    nlohmann::json j = r;  // every field of the report and its rows, by their names
    j["bench"] = "scaling", j["solver"] = b.solver, j["iterations"] = b.iterations;
    j["dims"] = b.dims;
    write_json_file(json_path, j);
  }
  return 0;
}

}  // namespace gridsolve::cli
