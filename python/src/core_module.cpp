// gridsolve._core: Poisson problems from keyword arguments (the command's model problems) or
// from a NumPy array of sources, assembled and solved by the library's one solve path. The
// interpreter's lock is released while a solve runs (Ctrl-C still stops it); the library's
// errors (bad input) arrive as ValueError with the command line's message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/apps/micromag/micromag_config.hpp"
#include "gridsolve/apps/micromag/micromag_run.hpp"
#include "array_algorithms.hpp"
#include "flow_case_run.hpp"
#include "magnet_design.hpp"
#include "poisson_solver.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/io/config.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solve_on_ranks.hpp"
#include "gridsolve/solve/solve_settings.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace nb = nanobind;

namespace gridsolve {
namespace {

using Array = nb::ndarray<nb::numpy, double>;

// A field's node values as a NumPy array that owns them: shape (ny, nx) or (nz, ny, nx), so
// x runs fastest as in the library.
Array owned_array(std::vector<double>&& values, const std::array<int, 3>& n, int dims);

template <class T>
Array to_numpy(const Field<T>& field, const Grid& g) {
  const std::vector<T> v = field.to_vector();
  return owned_array(std::vector<double>(v.begin(), v.end()), g.n, g.dims);
}

// Ctrl-C: a solve runs without the interpreter's lock, so the signal only sets a flag; the
// progress hook (its first call 0.2 s in, then once a second) takes the lock, lets Python
// run its handlers and, on KeyboardInterrupt, unwinds the solve with it.
constexpr double interrupt_check_after = 0.2;
void check_interrupt(const ProgressInfo&) {
  nb::gil_scoped_acquire locked;
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

// Node values (x fastest) as a NumPy array that owns them, shaped (ny, nx) or (nz, ny, nx).
// (dims 1: a line of n[0] values.)
Array owned_array(std::vector<double>&& values, const std::array<int, 3>& n, int dims) {
  auto* held = new std::vector<double>(std::move(values));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  if (dims == 3)
    return Array(held->data(), {std::size_t(n[2]), std::size_t(n[1]), std::size_t(n[0])}, owner);
  if (dims == 1) return Array(held->data(), {std::size_t(n[0])}, owner);
  return Array(held->data(), {std::size_t(n[1]), std::size_t(n[0])}, owner);
}

// Solves `spec` as the command would: the settings resolved (and refused) first, the
// assembly and solve without the interpreter's lock. Returns the solution, the exact
// solution where the problem has one (else None) and the report as summary.json's JSON.
// `comm`: the MPI_Comm handle of an mpi4py communicator whose ranks all call it alike: the
// problem assembled whole on each, solved by all of them (each its part, on its GPU or the
// CPU), the solution gathered on every rank. None: this process alone.
std::tuple<Array, nb::object, std::string> solve_spec(const ProblemSpec& spec,
                                                      const SolveSettings& settings,
                                                      std::optional<std::uintptr_t> comm) {
  std::optional<RanksScope> ranks;
  if (comm) ranks.emplace(*comm);
  ResolvedSolve r = resolve(settings);
  r.options.progress_after = interrupt_check_after;
  r.options.on_progress = check_interrupt;
  const bool on_ranks = Communicator::world().size() > 1;
  return with_precision(r.precision, [&]<class T>() {
    std::optional<Discretization<T>> d;
    SolveReport report;
    RanksUsed used;
    {
      nb::gil_scoped_release unlocked;
      if (on_ranks) {
        d.emplace(assemble<T>(spec, Device::cpu));
        report = solve_on_ranks<T>(r, d->op, d->u, "", used, SolutionOn::every_rank);
      } else {
        d.emplace(assemble<T>(spec, r.device));
        report = run_solve<T>(r, d->op, d->u);
      }
    }
    nb::object exact = nb::none();
    nlohmann::json j = to_json(report);
    j["max_error"] = nullptr;
    if (spec.exact) {
      const Field<T> sampled = sample_exact<T>(spec, Device::cpu);
      exact = nb::cast(to_numpy(sampled, spec.grid));
      // As the command reports it: over the nodes of the domain (cut-outs left out).
      j["max_error"] = json_number(max_error(*d, sampled));
    }
    j["device"] = to_string(r.device);
    j["precision"] = to_string(r.precision);
    j["unknowns"] = d->op.unknowns;
    j["ranks"] = used.ranks;
    if (on_ranks) j["ranks_used"] = describe(used);
    return std::make_tuple(to_numpy(d->u, spec.grid), exact, json_text(j));
  });
}

std::tuple<Array, nb::object, std::string> solve_spec(const ProblemSpec& spec,
                                                      const std::string& solver,
                                                      const std::string& device,
                                                      const std::string& precision,
                                                      std::optional<double> tolerance,
                                                      std::optional<std::uintptr_t> comm) {
  SolveSettings settings;
  settings.solver = solver;
  settings.device = device;
  settings.precision = parse_precision(precision);
  settings.tolerance = tolerance;
  return solve_spec(spec, settings, comm);
}

// A problem file's text (docs/config.md; `gridsolve solve` reads the same through the same
// reader), its [solver] table overridden where an argument is given.
std::tuple<Array, nb::object, std::string> config_poisson(
    const std::string& text, const std::string& source, std::optional<std::string> solver,
    std::optional<std::string> device, std::optional<std::string> precision,
    std::optional<double> tolerance, std::optional<std::uintptr_t> comm) {
  RunConfig c = parse_config(text, source);
  if (solver) c.solve.solver = *solver;
  if (device) c.solve.device = *device;
  if (precision) c.solve.precision = parse_precision(*precision);
  if (tolerance) c.solve.tolerance = tolerance;
  return solve_spec(c.spec, c.solve, comm);
}

std::tuple<Array, nb::object, std::string> model_poisson(
    int n, int dims, const std::string& sides, const std::string& mask, const std::string& k,
    const std::string& rhs, const std::string& solver, const std::string& device,
    const std::string& precision, std::optional<double> tolerance,
    std::optional<std::uintptr_t> comm) {
  ModelProblem m;
  m.n = n, m.dims = dims, m.sides = sides, m.mask = mask, m.coefficient = k, m.rhs = rhs;
  return solve_spec(make_model_problem(m), solver, device, precision, tolerance, comm);
}

using Sources = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;

// -div(k grad u) = f on the box [0, lengths] with the nodes of f's shape, u = 0 on every
// side (or the sides' kind with zero data). The source values are read in place.
// The node counts (x first) of a (ny, nx) or (nz, ny, nx) array of node values.
template <class A>
std::array<int, 3> nodes_of(const A& a, const char* what) {
  const int dims = int(a.ndim());
  require(dims == 2 || dims == 3,
          fmt::format("{} must be a 2D (ny, nx) or 3D (nz, ny, nx) array of node values, got {} "
                      "dimensions",
                      what, dims));
  std::array<int, 3> nodes{1, 1, 1};
  for (int a_ = 0; a_ < dims; ++a_)
    nodes[std::size_t(a_)] = int(a.shape(std::size_t(dims - 1 - a_)));
  return nodes;
}

// One face's condition from Python: (face, type, value, formula, node values, alpha): the
// data is the node values when given, else the formula when not empty, else the value.
using FaceData =
    std::tuple<std::string, std::string, double, std::string, std::optional<Sources>, double>;

// A face's node values as the condition's data: g(x, y, z) reads the value of the face node
// nearest (x, y, z). The array holds the face's nodes, shaped as f's shape without the
// face's axis ((ny,) or (nx,) in 2D; (nz, ny), (nz, nx) or (ny, nx) in 3D).
Expression face_values(const Grid& g, int face, const Sources& a) {
  const int axis = face / 2;
  std::vector<int> across;  // the face's axes, x first
  for (int b = 0; b < g.dims; ++b)
    if (b != axis) across.push_back(b);
  require(int(a.ndim()) == int(across.size()),
          fmt::format("boundary data of {} must be a {}D array of the face's node values, got "
                      "{} dimensions",
                      face_name(face), across.size(), a.ndim()));
  for (std::size_t t = 0; t < across.size(); ++t)
    require(int(a.shape(across.size() - 1 - t)) == g.n[std::size_t(across[t])],
            fmt::format("boundary data of {} must have the face's node counts (f's shape "
                        "without axis {}), got {} along axis {}",
                        face_name(face), "xyz"[axis], a.shape(across.size() - 1 - t),
                        "xyz"[across[t]]));
  std::vector<double> values(a.data(), a.data() + a.size());
  for (double v : values)
    require(std::isfinite(v), fmt::format("boundary data of {} must be finite", face_name(face)));
  const Grid grid = g;
  return Expression::from(
      [values = std::move(values), across, grid](double x, double y, double z) {
        const double at[3] = {x, y, z};
        std::size_t q = 0, stride = 1;
        for (const int b : across) {
          const long i =
              std::lround((at[b] - grid.origin[std::size_t(b)]) / grid.spacing[std::size_t(b)]);
          const long n = grid.n[std::size_t(b)];
          q += std::size_t(std::clamp(i, 0L, n - 1)) * stride;
          stride *= std::size_t(n);
        }
        return values[q];
      },
      fmt::format("node values of {}", face_name(face)));
}

std::tuple<Array, nb::object, std::string> array_poisson(
    Sources f, std::vector<double> lengths, const std::string& sides, double k,
    std::optional<Sources> k_nodes, const std::vector<FaceData>& faces, const std::string& solver,
    const std::string& device, const std::string& precision, std::optional<double> tolerance,
    std::optional<std::uintptr_t> comm) {
  const int dims = int(f.ndim());
  require(dims == 2 || dims == 3,
          "f must be a 2D (ny, nx) or 3D (nz, ny, nx) array of node values, got " +
              std::to_string(dims) + " dimensions");
  std::array<int, 3> nodes{1, 1, 1};
  for (int a = 0; a < dims; ++a) nodes[std::size_t(a)] = int(f.shape(std::size_t(dims - 1 - a)));
  if (lengths.empty()) lengths.assign(std::size_t(dims), 1.0);
  require(int(lengths.size()) == dims, "lengths must give one length per axis of f");
  std::array<double, 3> hi{0, 0, 0};
  for (int a = 0; a < dims; ++a) hi[std::size_t(a)] = lengths[std::size_t(a)];
  ProblemSpec spec;
  spec.grid = Grid::box(dims, nodes, {0, 0, 0}, hi);
  spec.k = Expression::value(k);
  if (k_nodes) {
    require(nodes_of(*k_nodes, "k") == nodes, "k must have f's shape");
    spec.k_nodes.assign(k_nodes->data(), k_nodes->data() + k_nodes->size());
  }
  spec.f_nodes.assign(f.data(), f.data() + f.size());
  const BoundaryKind kind = parse_boundary_kind(sides);
  for (BoundaryCondition& b : spec.boundaries) b.kind = kind;
  for (const auto& [name, type, value, formula, values, alpha] : faces) {
    int face = -1;
    for (int q = 0; q < 2 * dims; ++q)
      if (face_name(q) == name) face = q;
    require(face >= 0, fmt::format("boundary face '{}' is not one of a {}D box's: x_low, x_high, "
                                   "y_low, y_high{}",
                                   name, dims, dims == 3 ? ", z_low, z_high" : ""));
    BoundaryCondition& b = spec.boundaries[std::size_t(face)];
    b.kind = parse_boundary_kind(type);
    require(b.kind != BoundaryKind::periodic || (value == 0 && formula.empty() && !values),
            fmt::format("boundary face {} is periodic: it takes no data", name));
    b.g = values            ? face_values(spec.grid, face, *values)
          : formula.empty() ? Expression::value(value)
                            : Expression::parse(formula);
    require(b.kind == BoundaryKind::robin ? alpha > 0 && std::isfinite(alpha) : alpha == 0,
            fmt::format("boundary face {}: alpha is robin's, and there a positive number", name));
    b.alpha = alpha;
  }
  spec.name = "poisson from an array";
  return solve_spec(spec, solver, device, precision, tolerance, comm);
}

// Where an array handed over lives: the host, or a CUDA GPU (CuPy, PyTorch: DLPack device
// arrays are used in place); the GPU must be the current one.
template <class A>
Device location(const A& a, const char* what) {
  if (a.device_type() == nb::device::cpu::value) return Device::cpu;
  require(a.device_type() == nb::device::cuda::value,
          fmt::format("{} must be a host array or a CUDA device array", what));
  require(cuda_available(),
          fmt::format("{} is a CUDA device array, but {}", what, cuda_unavailable_reason()));
  require(a.device_id() == current_gpu(),
          fmt::format("{} lives on GPU {}, the library runs on GPU {}", what, a.device_id(),
                      current_gpu()));
  return Device::cuda;
}

// tridiag(a, b, c, d): solves in place in d; every array (count, n) or (n,), C-contiguous,
// all on the host or all on one GPU.
template <class T>
void bind_tridiag(nb::module_& m) {
  using In = nb::ndarray<const T, nb::c_contig>;
  using Out = nb::ndarray<T, nb::c_contig>;
  m.def(
      "tridiag",
      [](In a, In b, In c, Out d, const std::string& method, const std::string& device) {
        require(d.ndim() == 1 || d.ndim() == 2,
                "d must be one system (n,) or a batch (count, n), got " +
                    std::to_string(d.ndim()) + " dimensions");
        for (const std::size_t size : {a.size(), b.size(), c.size()})
          require(size == d.size(), "a, b, c and d must have the same shape");
        const Device where = location(d, "d");
        for (const Device w : {location(a, "a"), location(b, "b"), location(c, "c")})
          require(w == where, "a, b, c and d must all be host arrays or all device arrays");
        const int n = int(d.shape(d.ndim() - 1));
        const int count = d.ndim() == 2 ? int(d.shape(0)) : 1;
        nb::gil_scoped_release unlocked;
        tridiag_arrays<T>(a.data(), b.data(), c.data(), d.data(), n, count, where, method, device);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("d"), nb::arg("method"),
      nb::arg("device"));
}

// PoissonSolver.solve(f, u): the solution for the sources f written into u, both of the
// solver's shape and precision, C-contiguous, each a host array or an array on the current
// GPU (CuPy, PyTorch by DLPack), read and written in place on the solver's device. Returns
// the report's JSON.
template <class T>
void bind_solver_solve(nb::class_<PoissonSolver>& c) {
  using In = nb::ndarray<const T, nb::c_contig>;
  using Out = nb::ndarray<T, nb::c_contig>;
  c.def(
      "solve",
      [](PoissonSolver& s, In f, Out u) {
        require(int(f.ndim()) == s.dims() && nodes_of(f, "f") == s.nodes(),
                "f must have the solver's shape");
        require(int(u.ndim()) == s.dims() && nodes_of(u, "u") == s.nodes(),
                "u must have the solver's shape");
        const Device f_at = location(f, "f"), u_at = location(u, "u");
        nb::gil_scoped_release unlocked;
        return s.solve<T>(f.data(), f_at, u.data(), u_at, f.size());
      },
      nb::arg("f").noconvert(), nb::arg("u").noconvert());
}

// sort(keys): in place; (n,) one array, (count, length) each row; host or device keys.
template <class K>
void bind_sort(nb::module_& m) {
  using Keys = nb::ndarray<K, nb::c_contig>;
  m.def(
      "sort",
      [](Keys keys, const std::string& network, const std::string& order,
         const std::string& device) {
        require(keys.ndim() == 1 || keys.ndim() == 2,
                "keys must be one array (n,) or rows (count, length), got " +
                    std::to_string(keys.ndim()) + " dimensions");
        const std::size_t length = keys.shape(keys.ndim() - 1);
        const std::size_t count = keys.ndim() == 2 ? keys.shape(0) : 1;
        const Device where = location(keys, "keys");
        if (length == 0 || count == 0) return;
        nb::gil_scoped_release unlocked;
        sort_arrays<K>(keys.data(), count, length, where, network, order, device);
      },
      nb::arg("keys"), nb::arg("network"), nb::arg("order"), nb::arg("device"));
}

}  // namespace
}  // namespace gridsolve

NB_MODULE(_core, m) {
  using namespace gridsolve;
  m.doc() = "gridsolve's compiled core: assembly and solvers of the C++ library";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  bind_tridiag<double>(m);
  bind_tridiag<float>(m);
  bind_sort<double>(m);
  bind_sort<float>(m);
  bind_sort<std::int32_t>(m);
  bind_sort<std::uint32_t>(m);
  m.def("solver_names", &solver_names, "Every solver name, in the order the help texts list them.");
  m.def("cuda_available", &cuda_available, "Whether a CUDA GPU can be used here.");
  m.def("model_poisson", &model_poisson, nb::arg("n"), nb::arg("dims"), nb::arg("sides"),
        nb::arg("mask"), nb::arg("k"), nb::arg("rhs"), nb::arg("solver"), nb::arg("device"),
        nb::arg("precision"), nb::arg("tolerance").none(), nb::arg("comm").none());
  m.def("config_poisson", &config_poisson, nb::arg("text"), nb::arg("source"),
        nb::arg("solver").none(), nb::arg("device").none(), nb::arg("precision").none(),
        nb::arg("tolerance").none(), nb::arg("comm").none());
  m.def("array_poisson", &array_poisson, nb::arg("f"), nb::arg("lengths"), nb::arg("sides"),
        nb::arg("k"), nb::arg("k_nodes").none(), nb::arg("faces"), nb::arg("solver"),
        nb::arg("device"), nb::arg("precision"), nb::arg("tolerance").none(),
        nb::arg("comm").none());
  m.def("mpi_library", &mpi_description,
        "The MPI library this build runs on (an mpi4py communicator must share it).");
  nb::class_<PoissonSolver> poisson_solver(
      m, "PoissonSolver", "One operator on a box, its solver set up once, many sources.");
  poisson_solver
      .def(
          "__init__",
          [](PoissonSolver* self, std::vector<int> shape, std::vector<double> lengths,
             const std::string& sides, double k, std::optional<Sources> k_nodes,
             const std::string& solver, const std::string& device, const std::string& precision,
             std::optional<double> tolerance) {
            const int dims = int(shape.size());
            require(dims == 2 || dims == 3,
                    fmt::format("shape must be (ny, nx) or (nz, ny, nx), got {} values", dims));
            std::array<int, 3> nodes{1, 1, 1};
            for (int a = 0; a < dims; ++a) nodes[std::size_t(a)] = shape[std::size_t(dims - 1 - a)];
            std::vector<double> kn;
            if (k_nodes) {
              require(nodes_of(*k_nodes, "k") == nodes, "k must have the solver's shape");
              kn.assign(k_nodes->data(), k_nodes->data() + k_nodes->size());
            }
            nb::gil_scoped_release unlocked;
            new (self) PoissonSolver(dims, nodes, std::move(lengths), sides, k, std::move(kn),
                                     solver, device, precision, tolerance);
            self->on_progress(check_interrupt, interrupt_check_after);
          },
          nb::arg("shape"), nb::arg("lengths"), nb::arg("sides"), nb::arg("k"),
          nb::arg("k_nodes").none(), nb::arg("solver"), nb::arg("device"), nb::arg("precision"),
          nb::arg("tolerance").none())
      .def(
          "update",
          [](PoissonSolver& s, Sources k) {
            require(nodes_of(k, "k") == s.nodes() && int(k.ndim()) == s.dims(),
                    "k must have the solver's shape");
            nb::gil_scoped_release unlocked;
            s.update(k.data(), k.size());
          },
          nb::arg("k"))
      .def_prop_ro("setup_seconds", &PoissonSolver::setup_seconds)
      .def_prop_ro("single_precision", &PoissonSolver::single_precision,
                   "Whether it solves in float32 (its arrays' dtype).")
      .def_prop_ro(
          "device", [](const PoissonSolver& s) { return to_string(s.device()); },
          "Where it solves: cpu or cuda.");
  bind_solver_solve<double>(poisson_solver);
  bind_solver_solve<float>(poisson_solver);
  m.def(
      "magnet_design",
      [](double r0, double z0, double r1, double z1, double h, double B, int wires,
         double axis_span, double sphere_radius, const std::string& solver,
         const std::string& device, const std::string& precision,
         std::optional<double> tolerance) {
        MagnetArguments a{r0,           z0,     r1,     z1,        h,         B,
                          wires,        axis_span, sphere_radius, solver, device, precision,
                          tolerance,    check_interrupt};
        MagnetOutcome out;
        {
          nb::gil_scoped_release unlocked;
          out = design_magnet(a);
        }
        const std::array<int, 3> grid{out.nr, out.nz, 1};
        const std::size_t samples = out.axis_z.size();
        auto line = [samples](std::vector<double>&& v) {
          return owned_array(std::move(v), {int(samples), 1, 1}, 1);
        };
        return std::make_tuple(out.summary, owned_array(std::move(out.phi), grid, 2),
                               line(std::move(out.axis_z)), line(std::move(out.axis_bz)),
                               line(std::move(out.axis_ppm)));
      },
      nb::arg("r0"), nb::arg("z0"), nb::arg("r1"), nb::arg("z1"), nb::arg("h"), nb::arg("B"),
      nb::arg("wires"), nb::arg("axis_span"), nb::arg("sphere_radius"), nb::arg("solver"),
      nb::arg("device"), nb::arg("precision"), nb::arg("tolerance").none(),
      "The magnet design as `gridsolve magnet` runs it: (summary JSON, phi (nz, nr), axis z, "
      "B_z, ppm).");
  m.def(
      "micromag_run",
      [](const std::string& toml_text, const std::string& source, const std::string& device,
         const std::string& precision) {
        micromag::MicromagConfig c = micromag::parse_micromag_config(toml_text, source);
        micromag::MicromagRecord record;
        micromag::RunOverrides o;
        o.device = device;
        o.precision = precision;
        o.quiet = true;
        o.files = false;
        o.record = &record;
        o.each_step = [] { check_interrupt(ProgressInfo{}); };
        int code = 0;
        {
          nb::gil_scoped_release unlocked;
          code = micromag::run_micromag(c, o);
        }
        // The table: one row per line, the columns of table.csv.
        constexpr int columns = 12;
        std::vector<double> table;
        for (const micromag::TableRow& r : record.rows)
          table.insert(table.end(),
                       {r.t, r.m[0], r.m[1], r.m[2], r.e.total(), r.e.exchange, r.e.anisotropy,
                        r.e.zeeman, r.e.demag, r.e.dmi, r.max_torque, r.dt});
        const int rows = int(record.rows.size());
        const std::array<int, 3> n = c.problem.mesh.n;
        std::vector<double> m;
        for (int k = 0; k < 3; ++k) m.insert(m.end(), record.m[k].begin(), record.m[k].end());
        // m as (3, nz, ny, nx), owned by the array.
        auto vectors = [&n](std::vector<double>&& values) {
          auto* held = new std::vector<double>(std::move(values));
          nb::capsule owner(held,
                            [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
          return Array(held->data(), {3, std::size_t(n[2]), std::size_t(n[1]), std::size_t(n[0])},
                       owner);
        };
        std::vector<std::pair<std::string, Array>> snapshots;
        for (auto& [name, s] : record.snapshots) {
          std::vector<double> v;
          for (int k = 0; k < 3; ++k) v.insert(v.end(), s[k].begin(), s[k].end());
          snapshots.emplace_back(name, vectors(std::move(v)));
        }
        return std::make_tuple(code, record.summary,
                               owned_array(std::move(table), {columns, rows, 1}, 2),
                               vectors(std::move(m)), snapshots);
      },
      nb::arg("toml_text"), nb::arg("source"), nb::arg("device"), nb::arg("precision"),
      "A `gridsolve micromag` configuration run without writing files: (exit code, summary "
      "JSON, table (rows, 12 columns of table.csv), m (3, nz, ny, nx), snapshots [(name, m)] "
      "in the order the run takes them).");
  m.def(
      "flow_run",
      [](const std::string& kind, const std::string& toml_text, const std::string& source,
         double re, int n, const std::string& which, int cells_per_diameter,
         const std::map<std::string, double>& numbers,
         const std::map<std::string, std::string>& words, const std::string& device, int frames,
         int checkpoint_every, const std::string& checkpoint, const std::string& restart,
         long long stop_after) {
        require(frames >= 0 && frames <= 100000, "frames must be in [0, 100000]");
        require(checkpoint_every >= 0 && stop_after >= 0,
                "checkpoint_every and stop_after must not be negative");
        FlowRequest r;
        r.frames = frames;
        r.checkpoint_every = checkpoint_every;
        r.checkpoint_file = checkpoint;
        r.restart = restart;
        r.stop_after = stop_after;
        r.kind = kind;
        r.toml = toml_text;
        r.source = source;
        r.re = re;
        r.n = n;
        r.which = which;
        r.cells_per_diameter = cells_per_diameter;
        r.numbers = numbers;
        r.words = words;
        r.device = device;
        r.each_step = [] { check_interrupt(ProgressInfo{}); };
        FlowOutcome out;
        {
          nb::gil_scoped_release unlocked;
          out = run_flow_case(r);
        }
        const int history_rows = int(out.history.size() / 7), force_rows = int(out.forces.size() / 3);
        nb::list u;
        for (int q = 0; q < out.dims; ++q)
          u.append(owned_array(std::move(out.u[std::size_t(q)]), out.cells, out.dims));
        nb::list frames_out;
        for (std::size_t f = 0; f < out.frame_times.size() && f < out.frame_p.size(); ++f) {
          nb::list fu;
          for (int q = 0; q < out.dims; ++q)
            fu.append(owned_array(std::move(out.frame_u[f][std::size_t(q)]), out.cells, out.dims));
          frames_out.append(nb::make_tuple(
              out.frame_times[f], fu, owned_array(std::move(out.frame_p[f]), out.cells, out.dims)));
        }
        return std::make_tuple(out.summary,
                               owned_array(std::move(out.history), {7, history_rows, 1}, 2),
                               owned_array(std::move(out.forces), {3, force_rows, 1}, 2), u,
                               owned_array(std::move(out.p), out.cells, out.dims), frames_out);
      },
      nb::arg("kind"), nb::arg("toml_text"), nb::arg("source"), nb::arg("re"), nb::arg("n"),
      nb::arg("which"), nb::arg("cells_per_diameter"), nb::arg("numbers"), nb::arg("words"),
      nb::arg("device"), nb::arg("frames"), nb::arg("checkpoint_every"), nb::arg("checkpoint"),
      nb::arg("restart"), nb::arg("stop_after"),
      "A flow case run without writing files: (summary JSON, history (rows, 7 columns of "
      "history.csv), forces (rows: t, c_d, c_l), [u, v(, w)] and p at the cell centres, "
      "shaped (ny, nx) or (nz, ny, nx), frames [(t, [u, v(, w)], p)] of a transient run).");
}
