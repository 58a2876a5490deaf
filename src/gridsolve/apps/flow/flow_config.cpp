// Reading a flow case: the [flow], [measure], [boundary.*], [[obstacle]], [initial],
// [method] and [output] tables through the shared TOML reader, the [method] numbers
// from the declared parameter rows.
#include "gridsolve/apps/flow/flow_config.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <string>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/io/toml_reader.hpp"
#include "gridsolve/problem/boundary.hpp"

namespace gridsolve::flow {

const std::vector<Parameter<FlowCase>>& flow_method_parameters() {
  static const std::vector<Parameter<FlowCase>> params = {
      {"relax_u", "", "velocity under-relaxation of the steady couplings", &FlowCase::relax_u},
      {"relax_p", "", "pressure under-relaxation of SIMPLE", &FlowCase::relax_p},
      {"max_iterations", "", "iteration cap of the steady couplings", &FlowCase::max_iterations},
      {"tolerance", "", "steady convergence: largest velocity change per iteration / u_ref",
       &FlowCase::steady_tolerance},
      {"t_end", "", "end time of a transient run", &FlowCase::t_end},
      {"cfl", "", "CFL target of a transient run (0: the fixed dt)", &FlowCase::cfl},
      {"dt", "", "fixed time step (0: from the CFL target)", &FlowCase::dt},
      {"correctors", "", "PISO pressure correctors per step", &FlowCase::correctors},
      {"momentum_sweeps", "", "red-black SOR sweeps per momentum predictor",
       &FlowCase::momentum_sweeps},
      {"momentum_omega", "", "SOR factor of the momentum predictor, in (0, 2)",
       &FlowCase::momentum_omega},
      {"momentum_tolerance", "", "residual fall of the momentum predictor, in [0, 1)",
       &FlowCase::momentum_tolerance},
      {"pressure_tolerance", "", "relative residual of the pressure solves",
       &FlowCase::pressure_tolerance},
      {"check_every", "", "steps between residual checks", &FlowCase::check_every},
      {"inflow_period", "", "period of a sin(pi t / T) inflow (0: constant)",
       &FlowCase::inflow_period},
  };
  return params;
}

namespace {

// The enumerations' parsers throw without the file and line: say where.
template <class F>
auto parsed(const TomlReader& rd, const toml::table& t, std::string_view key,
            const std::string& path, F parse) {
  const std::string text = *rd.string(t, key, path);
  try {
    return parse(text);
  } catch (const Error& e) {
    rd.fail(t.get(key), fmt::format("{}: {}", join_key(path, key), e.what()));
  }
}

void read_flow_table(const TomlReader& rd, const toml::table& f, FlowConfig& cfg) {
  FlowCase& c = cfg.flow_case;
  rd.only_keys(f, "flow",
               {"name", "benchmark", "dims", "cells", "lo", "hi", "spacing", "nu", "re", "device"});
  if (auto v = rd.string(f, "name", "flow")) c.name = *v;
  if (auto v = rd.choice(f, "benchmark", "flow", {"none", "cavity", "dfg"}))
    c.benchmark = *v == "cavity" ? Benchmark::cavity
                  : *v == "dfg"  ? Benchmark::dfg
                                 : Benchmark::none;
  if (auto v = rd.integer(f, "dims", "flow", 2, 3)) c.dims = int(*v);
  const toml::node* cells = f.get("cells");
  if (!cells) rd.fail(&f, "flow.cells is required: one cell count per axis");
  const toml::array* counts = rd.sized_array(*cells, "flow.cells", c.dims, "cell counts");
  for (int a = 0; a < c.dims; ++a) {
    const toml::node& e = *counts->get(std::size_t(a));
    const double n = rd.number_value(e, fmt::format("flow.cells[{}]", a));
    if (n != std::floor(n) || n < 4 || n > 65536)
      rd.fail(&e, fmt::format("flow.cells: {} cells along {}; give whole numbers from 4 to 65536",
                              n, "xyz"[a]));
    c.cells[std::size_t(a)] = int(n);
  }
  if (c.dims == 2) c.cells[2] = 1;
  if (auto v = rd.vector(f, "lo", "flow", c.dims))
    for (int a = 0; a < c.dims; ++a) c.lo[std::size_t(a)] = (*v)[std::size_t(a)];
  if (auto v = rd.vector(f, "hi", "flow", c.dims))
    for (int a = 0; a < c.dims; ++a) c.hi[std::size_t(a)] = (*v)[std::size_t(a)];
  if (const toml::node* s = f.get("spacing")) {
    const toml::array* a = rd.sized_array(*s, "flow.spacing", c.dims, "strings");
    for (int q = 0; q < c.dims; ++q) {
      const toml::node& e = *a->get(std::size_t(q));
      const auto* text = e.as_string();
      if (!text)
        rd.fail(&e, fmt::format("flow.spacing[{}] must be a string (uniform, tanh:BETA or "
                                "band:LO:HI:H), got {}",
                                q, describe(e)));
      try {
        c.spacing[std::size_t(q)] = AxisSpacing::parse(text->get());
      } catch (const Error& err) {
        rd.fail(&e, fmt::format("flow.spacing[{}]: {}", q, err.what()));
      }
    }
  }
  if (auto v = rd.choice(f, "device", "flow", {"auto", "cpu", "cuda"})) cfg.device = *v;
}

void read_measure_table(const TomlReader& rd, const toml::table& m, FlowCase& c) {
  rd.only_keys(m, "measure", {"u_ref", "length_ref", "probe_a", "probe_b"});
  if (auto v = rd.number(m, "u_ref", "measure")) c.u_ref = *v;
  if (auto v = rd.number(m, "length_ref", "measure")) c.length_ref = *v;
  const auto pa = rd.vector(m, "probe_a", "measure", c.dims);
  const auto pb = rd.vector(m, "probe_b", "measure", c.dims);
  if (bool(pa) != bool(pb)) rd.fail(&m, "measure: give both probes (probe_a, probe_b) or neither");
  if (pa) {
    c.has_probes = true;
    c.probe_a = *pa;
    c.probe_b = *pb;
  }
}

// nu directly, or from re and the reference scales.
void read_viscosity(const TomlReader& rd, const toml::table& f, FlowCase& c) {
  const auto nu = rd.number(f, "nu", "flow"), re = rd.number(f, "re", "flow");
  if (bool(nu) == bool(re))
    rd.fail(&f, "flow.nu: give exactly one of nu (viscosity) and re (Reynolds number)");
  if (nu) {
    c.nu = *nu;
    return;
  }
  if (!(*re > 0))
    rd.fail(f.get("re"),
            fmt::format("flow.re: the Reynolds number is {}; it must be positive", *re));
  // nu = u_ref length_ref / re: the references must be valid before they define it.
  if (!(c.u_ref > 0 && c.length_ref > 0))
    rd.fail(&f, fmt::format("measure: u_ref {} and length_ref {} must be positive (with re, they "
                            "set the viscosity)",
                            c.u_ref, c.length_ref));
  c.nu = c.u_ref * c.length_ref / *re;
}

void read_boundary_table(const TomlReader& rd, const toml::table& b, FlowCase& c) {
  rd.only_keys(b, "boundary", {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"});
  for (int s = 0; s < 6; ++s) {
    const toml::table* t = rd.table(b, face_name(s), "boundary");
    if (!t) continue;
    const std::string path = "boundary." + face_name(s);
    if (s >= 2 * c.dims) rd.fail(t, fmt::format("{}: a 2D case has no z sides", path));
    rd.only_keys(*t, path, {"type", "velocity", "u", "v", "w"});
    SideCondition& sc = c.sides[std::size_t(s)];
    if (t->get("type")) sc.type = parsed(rd, *t, "type", path, parse_side_type);
    if (auto v = rd.vector(*t, "velocity", path, c.dims)) {
      if (sc.type != SideType::wall)
        rd.fail(t->get("velocity"),
                fmt::format("{}.velocity: only walls move; inflows give u, v, w", path));
      sc.velocity = *v;
    }
    for (int q = 0; q < 3; ++q) {
      const std::string_view comp = std::string_view("uvw").substr(std::size_t(q), 1);
      if (!t->get(comp)) continue;
      if (sc.type != SideType::velocity)
        rd.fail(t->get(comp),
                fmt::format("{}.{}: velocity formulas belong to sides of type inflow", path, comp));
      sc.profile[std::size_t(q)] = *rd.expression(*t, comp, path);
    }
  }
}

Obstacle read_obstacle(const TomlReader& rd, const toml::table& t, const std::string& path) {
  rd.only_keys(t, path, {"shape", "centre", "radius", "lo", "hi", "vertices"});
  Obstacle o;
  const std::string shape =
      rd.choice(t, "shape", path, {"circle", "rectangle", "polygon"}).value_or("circle");
  auto plane_point = [&](std::string_view key) {
    const auto v = rd.vector(t, key, path, 2);
    if (!v) rd.fail(&t, fmt::format("{}: a {} needs {} = [x, y]", path, shape, key));
    return std::array<double, 2>{(*v)[0], (*v)[1]};
  };
  if (shape == "circle") {
    o.centre = plane_point("centre");
    o.radius = rd.number(t, "radius", path).value_or(0);
  } else if (shape == "rectangle") {
    o.shape = Obstacle::Shape::rectangle;
    o.lo = plane_point("lo");
    o.hi = plane_point("hi");
  } else {
    o.shape = Obstacle::Shape::polygon;
    const toml::node* v = t.get("vertices");
    const toml::array* list = v ? v->as_array() : nullptr;
    if (!list)
      rd.fail(v ? v : &t,
              fmt::format("{}.vertices: a polygon needs vertices = [[x, y], [x, y], ...]", path));
    for (std::size_t k = 0; k < list->size(); ++k) {
      const toml::node& vertex = *list->get(k);
      const std::string name = fmt::format("{}.vertices[{}]", path, k);
      const toml::array* xy = vertex.as_array();
      if (!xy || xy->size() != 2)
        rd.fail(&vertex, fmt::format("{}: each vertex is [x, y], two numbers", name));
      o.vertices.push_back({rd.number_value(*xy->get(0), name + "[0]"),
                            rd.number_value(*xy->get(1), name + "[1]")});
    }
  }
  return o;
}

void read_initial_table(const TomlReader& rd, const toml::table& init, FlowCase& c) {
  rd.only_keys(init, "initial", {"u", "v", "w", "p"});
  c.has_initial = true;
  for (int q = 0; q < 3; ++q) {
    const std::string_view comp = std::string_view("uvw").substr(std::size_t(q), 1);
    if (!init.get(comp)) continue;
    if (q >= c.dims) rd.fail(init.get(comp), "initial.w: a 2D case has no w");
    c.initial_velocity[std::size_t(q)] = *rd.expression(init, comp, "initial");
  }
  if (auto p = rd.expression(init, "p", "initial")) c.initial_pressure = *p;
}

void read_method_table(const TomlReader& rd, const toml::table& m, FlowCase& c) {
  TomlReader::Names keys{"coupling",        "convection",      "time",
                         "momentum_solver", "pressure_solver", "obstacle_treatment"};
  for (const Parameter<FlowCase>& p : flow_method_parameters()) keys.push_back(p.key);
  rd.only_keys(m, "method", keys);
  if (m.get("coupling")) c.coupling = parsed(rd, m, "coupling", "method", parse_coupling);
  if (m.get("convection")) c.convection = parsed(rd, m, "convection", "method", parse_convection);
  if (m.get("time"))
    c.time_scheme = parsed(rd, m, "time", "method", parse_time_scheme);
  else
    c.default_time_scheme();
  if (m.get("obstacle_treatment"))
    c.obstacle_treatment =
        parsed(rd, m, "obstacle_treatment", "method", parse_obstacle_treatment);
  if (auto v = rd.string(m, "momentum_solver", "method")) c.momentum_solver = *v;
  if (auto v = rd.string(m, "pressure_solver", "method")) c.pressure_solver = *v;
  for (const Parameter<FlowCase>& p : flow_method_parameters()) {
    if (const auto* dm = std::get_if<double FlowCase::*>(&p.member)) {
      if (auto v = rd.number(m, p.key, "method")) c.**dm = *v;
    } else if (const auto* im = std::get_if<int FlowCase::*>(&p.member)) {
      if (auto v = rd.integer(m, p.key, "method", 0, INT_MAX)) c.**im = int(*v);
    }
  }
  if (m.get("dt") && m.get("cfl"))
    rd.fail(m.get("dt"), "method: give dt (a fixed time step) or cfl (a step from the CFL "
                         "number), not both: dt would silently win");
  // Both use -1 for "unset", so an explicit value is checked here, where it is still
  // known to have been given.
  if (m.get("momentum_omega") && !(c.momentum_omega > 0 && c.momentum_omega < 2))
    rd.fail(m.get("momentum_omega"),
            fmt::format("method.momentum_omega is {}; valid: (0, 2)", c.momentum_omega));
  if (m.get("momentum_tolerance") && !(c.momentum_tolerance >= 0 && c.momentum_tolerance < 1))
    rd.fail(m.get("momentum_tolerance"),
            fmt::format("method.momentum_tolerance is {}; valid: 0 (a fixed count of sweeps) up "
                        "to below 1",
                        c.momentum_tolerance));
}

void read_output_table(const TomlReader& rd, const toml::table& o, FlowConfig& cfg) {
  rd.only_keys(o, "output", {"out", "frames", "checkpoint_every", "checkpoint_file"});
  if (auto v = rd.string(o, "out", "output")) cfg.out = *v;
  if (auto v = rd.integer(o, "frames", "output", 0, INT_MAX)) cfg.frames = int(*v);
  if (auto v = rd.integer(o, "checkpoint_every", "output", 0, INT_MAX))
    cfg.checkpoint_every = int(*v);
  if (auto v = rd.string(o, "checkpoint_file", "output")) cfg.checkpoint_file = *v;
}

}  // namespace

FlowConfig parse_flow_config(std::string_view text, const std::string& source) {
  const TomlReader rd(text, source);
  const toml::table& root = rd.root();
  rd.only_keys(root, "",
               {"flow", "boundary", "obstacle", "initial", "method", "measure", "output"});
  FlowConfig cfg;
  FlowCase& c = cfg.flow_case;
  const toml::table* f = rd.table(root, "flow", "");
  if (!f) rd.fail(nullptr, "the [flow] table is missing (cells, domain, viscosity)");
  read_flow_table(rd, *f, cfg);
  if (const toml::table* m = rd.table(root, "measure", "")) read_measure_table(rd, *m, c);
  read_viscosity(rd, *f, c);
  for (auto& s : c.sides) s = SideCondition{};
  if (const toml::table* b = rd.table(root, "boundary", "")) read_boundary_table(rd, *b, c);
  const std::vector<const toml::table*> obstacles = rd.tables(root, "obstacle", "");
  for (std::size_t k = 0; k < obstacles.size(); ++k)
    c.obstacles.push_back(read_obstacle(rd, *obstacles[k], fmt::format("obstacle[{}]", k)));
  if (const toml::table* init = rd.table(root, "initial", "")) read_initial_table(rd, *init, c);
  if (const toml::table* m = rd.table(root, "method", "")) read_method_table(rd, *m, c);
  if (const toml::table* o = rd.table(root, "output", "")) read_output_table(rd, *o, cfg);
  try {
    c.validate();
  } catch (const Error& e) {
    throw Error(fmt::format("config '{}': {}", printable(source), e.what()));
  }
  return cfg;
}

FlowConfig load_flow_config(const std::string& path) {
  return parse_flow_config(read_input_file(path, TomlReader::max_bytes, "config"), path);
}

}  // namespace gridsolve::flow
