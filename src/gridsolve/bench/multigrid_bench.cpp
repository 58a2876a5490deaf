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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
MultigridBenchRow run_one(const ProblemSpec& spec, const std::string& solver, Device device,
                          double tolerance, int repeats) {
  Discretization<T> d = assemble<T>(spec, device);
  const Field<T> start = d.u.copy_to(device);
  std::vector<double> times, setups;
  SolveReport report;
  SolveOptions o;
  o.tolerance = tolerance;
  o.max_iterations = 500;
  // Setup and solve timed apart; one untimed round first (module loading, allocator
  // warm-up, CUDA context creation stay out of the numbers). Each round sets up a fresh
  // solver, so the setup time is a median too.
  std::unique_ptr<Solver<T>> s;
  for (int r = 0; r <= repeats; ++r) {
    s = make_solver<T>(solver);
    synchronize(device);
    const auto t0 = std::chrono::steady_clock::now();
    s->setup(d.op);
    synchronize(device);
    if (r > 0) setups.push_back(seconds_since(t0));
    d.u.copy_from(start);
    synchronize(device);
    const auto t1 = std::chrono::steady_clock::now();
    report = s->solve(d.u, o);
    synchronize(device);
    if (r > 0) times.push_back(seconds_since(t1));
  }
  std::sort(times.begin(), times.end());
  std::sort(setups.begin(), setups.end());
  MultigridBenchRow row;
  row.solver = solver;
  row.device = to_string(device);
  row.precision = sizeof(T) == 8 ? "double" : "float";
  row.dims = spec.grid.dims;
  row.unknowns_per_side = spec.grid.n[0] - 2;
  row.setup_seconds = setups[setups.size() / 2];
  row.solve_seconds = times[times.size() / 2];
  row.seconds = row.setup_seconds + row.solve_seconds;
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

MultigridBenchRow run_many_rhs_bench(Device device, int dims, int unknowns, double tolerance,
                                     const std::string& solver, int count) {
  require(count >= 1, fmt::format("the right-hand side count must be positive, got {}", count));
  ModelProblem m;
  m.dims = dims;
  m.n = unknowns + 2;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  Discretization<double> d = assemble<double>(spec, device);
  const Field<double> start = d.u.copy_to(device);
  SolveOptions o;
  o.tolerance = tolerance;
  o.max_iterations = 500;
  auto s = make_solver<double>(solver);
  s->setup(d.op);  // warm-up round, untimed
  {
    Field<double> u = start.copy_to(device);
    s->solve(u, o);
  }
  synchronize(device);
  auto t0 = std::chrono::steady_clock::now();
  s = make_solver<double>(solver);
  s->setup(d.op);
  synchronize(device);
  const double setup = seconds_since(t0);
  Field<double> host_b(d.op.grid, Device::cpu), b(d.op.grid, device);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  double solving = 0;
  int iterations = 0;
  double worst = 0;
  bool all_converged = true;
  for (int c = 0; c < count; ++c) {
    // A new right-hand side in [-1, 1) at every node (xorshift: cheap, never all zero).
    const FieldView<double> v = host_b.view();
    for (int k = 0; k < d.op.grid.n[2]; ++k)
      for (int j = 0; j < d.op.grid.n[1]; ++j)
        for (int i = 0; i < d.op.grid.n[0]; ++i) {
          state ^= state << 13, state ^= state >> 7, state ^= state << 17;
          v(i, j, k) = double(state >> 11) * 0x1.0p-52 - 1.0;
        }
    b.copy_from(host_b);
    d.u.copy_from(start);
    synchronize(device);
    const auto t1 = std::chrono::steady_clock::now();
    const SolveReport r = s->solve(b, d.u, o);
    synchronize(device);
    solving += seconds_since(t1);
    iterations += r.iterations;
    worst = std::max(worst, r.relative_residual);
    all_converged = all_converged && r.converged;
  }
  MultigridBenchRow row;
  row.solver = fmt::format("{}, {} right-hand sides", solver, count);
  row.device = to_string(device);
  row.precision = "double";
  row.dims = dims;
  row.unknowns_per_side = unknowns;
  row.setup_seconds = setup;
  row.solve_seconds = solving / count;
  row.seconds = setup + solving;
  row.iterations = iterations / count;
  row.relative_residual = worst;
  row.ns_per_unknown = row.solve_seconds * 1e9 / double(d.op.unknowns);
  row.note = all_converged ? fmt::format("set up once, {:.2f} ms a solve", 1e3 * row.solve_seconds)
                           : "some solves did not converge";
  return row;
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
      row.setup_seconds = setup;
      row.solve_seconds = solve;
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
