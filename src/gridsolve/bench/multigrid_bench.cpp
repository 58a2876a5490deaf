#include "gridsolve/bench/multigrid_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

namespace {

template <class T>
MultigridBenchRow run_one(const ProblemSpec& spec, const std::string& solver, Device device,
                          double tolerance, int repeats) {
  Discretization<T> d = assemble<T>(spec, device);
  const Field<T> start = d.u.copy_to(device);
  std::vector<double> times;
  SolveReport report;
  // One untimed run first: module loading, allocator warm-up and CUDA context creation
  // stay out of the numbers.
  for (int r = 0; r <= repeats; ++r) {
    d.u.copy_from(start);
    synchronize(device);
    SolveOptions o;
    o.tolerance = tolerance;
    o.max_iterations = 500;
    const auto t0 = std::chrono::steady_clock::now();
    report = make_solver<T>(solver)->solve(d.op, d.u, o);
    synchronize(device);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  MultigridBenchRow row;
  row.solver = solver;
  row.device = to_string(device);
  row.precision = sizeof(T) == 8 ? "double" : "float";
  row.dims = spec.grid.dims;
  row.unknowns_per_side = spec.grid.n[0] - 2;
  row.seconds = times[times.size() / 2];
  row.iterations = report.iterations;
  row.relative_residual = report.relative_residual;
  row.convergence_factor = report.convergence_factor;
  row.ns_per_unknown = row.seconds * 1e9 / double(d.op.unknowns);
  row.note = report.converged ? report.kernel : report.reason;
  return row;
}

}  // namespace

std::vector<MultigridBenchRow> run_multigrid_bench(Device device, int dims, int unknowns,
                                                   double tolerance, int repeats,
                                                   const std::vector<std::string>& precisions) {
  require(unknowns >= 1, fmt::format("unknowns per side must be positive, got {}", unknowns));
  ModelProblem m;
  m.dims = dims;
  m.n = unknowns + 2;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  std::vector<MultigridBenchRow> rows;
  for (const std::string& p : precisions) {
    if (p == "double") {
      for (const char* solver : {"mg", "mgcg", "mgcg-mixed"})
        rows.push_back(run_one<double>(spec, solver, device, tolerance, repeats));
    } else {
      // Single precision cannot reach 1e-8; 1e-4 is safely above its rounding floor.
      for (const char* solver : {"mg", "mgcg"})
        rows.push_back(run_one<float>(spec, solver, device, std::max(tolerance, 1e-4), repeats));
    }
  }
  return rows;
}

std::vector<MultigridBenchRow> run_hypre_peer(const std::string& gridsolve_path, int unknowns,
                                              double tolerance, int ranks, std::string& why) {
  namespace fs = std::filesystem;
  const fs::path peer = fs::path(gridsolve_path).parent_path() / "gridsolve-hypre-peer";
  std::error_code ec;
  if (!fs::exists(peer, ec)) {
    why = "HYPRE peer not built (install libhypre-dev and rebuild)";
    return {};
  }
  std::string cmd = fmt::format("'{}' {} {}", peer.string(), unknowns, tolerance);
  if (ranks > 1)
    cmd = fmt::format("mpirun --allow-run-as-root --oversubscribe -np {} {}", ranks, cmd);
  cmd += " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) {
    why = "could not start the HYPRE peer";
    return {};
  }
  std::array<char, 512> line{};
  MultigridBenchRow row;
  bool found = false;
  while (std::fgets(line.data(), int(line.size()), p.get())) {
    int n = 0, r = 0, it = 0;
    double setup = 0, solve = 0, res = 0;
    if (std::sscanf(line.data(),
                    "hypre_pfmg_pcg n=%d ranks=%d setup_s=%lf solve_s=%lf iterations=%d relres=%lf",
                    &n, &r, &setup, &solve, &it, &res) == 6) {
      row.solver = fmt::format("HYPRE PFMG-PCG ({} rank{})", r, r > 1 ? "s" : "");
      row.device = "cpu";
      row.precision = "double";
      row.unknowns_per_side = n;
      row.seconds = setup + solve;
      row.iterations = it;
      row.relative_residual = res;
      row.ns_per_unknown = row.seconds * 1e9 / (double(n) * n);
      row.note = fmt::format("setup {:.3f} s + solve {:.3f} s", setup, solve);
      found = true;
    }
  }
  if (!found) {
    why = fmt::format("the HYPRE peer printed no result ({} ranks)", ranks);
    return {};
  }
  return {row};
}

}  // namespace gridsolve
