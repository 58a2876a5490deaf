// PoissonSolver: the operator assembled once, its solver set up once; each source's
// right-hand side written by the SourceMap of the same assembly, solved with the set-up
// solver.
#include "poisson_solver.hpp"

#include <fmt/format.h>

#include <chrono>
#include <variant>

#include "gridsolve/core/error.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/exec/packed_slab.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/source_map.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/solve_settings.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

namespace {

template <class T>
struct Engine {
  ProblemSpec spec;
  ResolvedSolve r;
  Discretization<T> d;  // the operator, and u's fixed values
  SourceMap<T> sources;
  Field<T> rhs, u;  // kept between solves
  std::unique_ptr<Solver<T>> solver;
  double setup_seconds = 0;

  Engine(ProblemSpec s, const ResolvedSolve& resolved) : spec(std::move(s)), r(resolved) {
    spec.f_nodes.assign(std::size_t(spec.grid.node_count()), 0.0);
    assemble_operator();
    const auto t0 = std::chrono::steady_clock::now();
    solver = r.solver->make<T>(r.multigrid);
    solver->setup(d.op);
    setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void assemble_operator() {
    d = assemble<T>(spec, r.device);
    sources = SourceMap<T>(spec, r.device);
    rhs = sources.make_rhs();
    u = d.u.copy_to(r.device);
  }

  std::string solve(const T* f, Device f_at, T* out, Device out_at, std::size_t count) {
    const auto t0 = std::chrono::steady_clock::now();
    if (f_at == Device::cuda || out_at == Device::cuda) synchronize(Device::cuda);
    const int copies = int(f_at != r.device) + int(out_at != r.device);
    Buffer<T> f_here;  // f where the solver runs, when it lies elsewhere
    if (f_at != r.device) {
      f_here = Buffer<T>(r.device, count);
      copy_bytes(f_here.data(), r.device, f, f_at, count * sizeof(T));
      f = f_here.data();
    }
    sources.write(d.op, f, rhs);
    u.copy_from(d.u);  // the fixed nodes' values; the unknowns start at zero
    SolveReport report = solver->solve(rhs, u, r.options);
    if (report.stop == StopReason::none && report.converged) report.stop = StopReason::direct;
    confirm_finite_result(report);
    report.setup_seconds = setup_seconds;
    if (out_at == r.device) {
      packing::copy_slab(r.device, u.view(), u.interior(), 1, out, true);
    } else {
      Buffer<T> packed(r.device, count);
      packing::copy_slab(r.device, u.view(), u.interior(), 1, packed.data(), true);
      copy_bytes(out, out_at, packed.data(), r.device, count * sizeof(T));
    }
    synchronize(r.device);
    nlohmann::json j = to_json(report);
    j["device"] = to_string(r.device);
    j["precision"] = to_string(r.precision);
    j["unknowns"] = d.op.unknowns;
    j["arrays_copied"] = copies;  // 0: f read and u written where they lie
    // The whole call as a C++ caller of it spends it: the source written, the solve, the
    // solution packed, the GPU waited for (what a call from Python adds to is this).
    j["call_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return json_text(j);
  }

  void update(const double* k, std::size_t count) {
    spec.k_nodes.assign(k, k + count);
    assemble_operator();
    const auto t0 = std::chrono::steady_clock::now();
    solver->update(d.op);
    setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

}  // namespace

struct PoissonSolver::Typed {
  std::variant<std::unique_ptr<Engine<double>>, std::unique_ptr<Engine<float>>> engine;
};

PoissonSolver::PoissonSolver(int dims, std::array<int, 3> nodes, std::vector<double> lengths,
                             const std::string& sides, double k, std::vector<double> k_nodes,
                             const std::string& solver, const std::string& device,
                             const std::string& precision, std::optional<double> tolerance)
    : dims_(dims), nodes_(nodes), typed_(std::make_unique<Typed>()) {
  require(dims == 2 || dims == 3, fmt::format("a grid is 2D or 3D, got {} dimensions", dims));
  if (lengths.empty()) lengths.assign(std::size_t(dims), 1.0);
  require(int(lengths.size()) == dims, "lengths must give one length per axis");
  std::array<double, 3> hi{0, 0, 0};
  for (int a = 0; a < dims; ++a) hi[std::size_t(a)] = lengths[std::size_t(a)];
  ProblemSpec spec;
  spec.grid = Grid::box(dims, nodes, {0, 0, 0}, hi);
  spec.k = Expression::value(k);
  spec.k_nodes = std::move(k_nodes);
  const BoundaryKind kind = parse_boundary_kind(sides);
  for (BoundaryCondition& b : spec.boundaries) b.kind = kind;
  spec.name = "poisson from arrays";
  spec.validate();
  SolveSettings settings;
  settings.solver = solver;
  settings.device = device;
  settings.precision = parse_precision(precision);
  settings.tolerance = tolerance;
  const ResolvedSolve r = resolve(settings);
  if (r.precision == Precision::fp64)
    typed_->engine = std::make_unique<Engine<double>>(std::move(spec), r);
  else
    typed_->engine = std::make_unique<Engine<float>>(std::move(spec), r);
}

PoissonSolver::~PoissonSolver() = default;

template <class T>
std::string PoissonSolver::solve(const T* f, Device f_at, T* u, Device u_at, std::size_t count) {
  const std::size_t nodes = std::size_t(nodes_[0]) * nodes_[1] * nodes_[2];
  require(count == nodes,
          fmt::format("f has {} values, the solver's grid has {} nodes", count, nodes));
  auto* engine = std::get_if<std::unique_ptr<Engine<T>>>(&typed_->engine);
  require(engine != nullptr,
          fmt::format("the arrays are {} and the solver runs in {} precision: give arrays of "
                      "its precision",
                      sizeof(T) == 8 ? "float64" : "float32",
                      single_precision() ? "single" : "double"));
  return (*engine)->solve(f, f_at, u, u_at, count);
}

template std::string PoissonSolver::solve<double>(const double*, Device, double*, Device,
                                                  std::size_t);
template std::string PoissonSolver::solve<float>(const float*, Device, float*, Device, std::size_t);

Device PoissonSolver::device() const {
  return std::visit([](const auto& e) { return e->r.device; }, typed_->engine);
}

bool PoissonSolver::single_precision() const {
  return std::holds_alternative<std::unique_ptr<Engine<float>>>(typed_->engine);
}

void PoissonSolver::update(const double* k, std::size_t count) {
  const std::size_t nodes = std::size_t(nodes_[0]) * nodes_[1] * nodes_[2];
  require(count == nodes,
          fmt::format("k has {} values, the solver's grid has {} nodes", count, nodes));
  std::visit([&](auto& e) { e->update(k, count); }, typed_->engine);
}

void PoissonSolver::on_progress(std::function<void(const ProgressInfo&)> hook, double after) {
  std::visit(
      [&](auto& e) {
        e->r.options.on_progress = hook;
        e->r.options.progress_after = after;
      },
      typed_->engine);
}

double PoissonSolver::setup_seconds() const {
  return std::visit([](const auto& e) { return e->setup_seconds; }, typed_->engine);
}

}  // namespace gridsolve
