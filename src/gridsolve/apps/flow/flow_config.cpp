#include "gridsolve/apps/flow/flow_config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/boundary.hpp"

namespace gridsolve::flow {

namespace {

struct Reader {
  std::string source;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw Error(fmt::format("{}: {}: {}", source, key, message));
  }
  void only(const toml::table& t, const std::string& path, std::set<std::string> allowed) const {
    for (const auto& [k, v] : t) {
      (void)v;
      if (!allowed.count(std::string(k.str()))) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(path.empty() ? std::string(k.str()) : path + "." + std::string(k.str()),
             fmt::format("unknown key; valid here: {}", list));
      }
    }
  }
  double number(const toml::table& t, const std::string& path, const char* key, double def) const {
    const toml::node* n = t.get(key);
    if (!n) return def;
    if (auto v = n->value<double>()) {
      // TOML spells nan and inf; no setting of a flow case means either.
      if (!std::isfinite(*v))
        fail(path + "." + key, fmt::format("is {}; give a finite number", *v));
      return *v;
    }
    fail(path + "." + key, "must be a number");
  }
  int integer(const toml::table& t, const std::string& path, const char* key, int def) const {
    const toml::node* n = t.get(key);
    if (!n) return def;
    if (auto v = n->value<std::int64_t>()) {
      if (*v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
        fail(path + "." + key, fmt::format("{} is out of range", *v));
      return int(*v);
    }
    fail(path + "." + key, "must be an integer");
  }
  std::string text(const toml::table& t, const std::string& path, const char* key,
                   const std::string& def) const {
    const toml::node* n = t.get(key);
    if (!n) return def;
    if (auto v = n->value<std::string>()) return *v;
    fail(path + "." + key, "must be a string");
  }
  std::vector<double> numbers(const toml::table& t, const std::string& path,
                              const char* key) const {
    std::vector<double> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) fail(path + "." + key, "must be an array of numbers");
    for (const auto& e : *a) {
      auto v = e.value<double>();
      if (!v) fail(path + "." + key, "must be an array of numbers");
      if (!std::isfinite(*v))
        fail(path + "." + key, fmt::format("holds {}; give finite numbers", *v));
      out.push_back(*v);
    }
    return out;
  }
  // A number or a formula string.
  Expression expression(const toml::table& t, const std::string& path, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return Expression::value(0);
    if (auto v = n->value<double>()) return Expression::value(*v);
    if (auto s = n->value<std::string>()) return Expression::parse(*s);
    fail(path + "." + key, "must be a number or a formula of x, y, z");
  }
};

}  // namespace

FlowConfig parse_flow_config(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}: not valid TOML: {}", source, e.description()));
  }
  Reader r{source};
  r.only(root, "", {"flow", "boundary", "obstacle", "initial", "method", "measure", "output"});
  FlowConfig cfg;
  FlowCase& c = cfg.flow_case;
  const toml::table* f = root["flow"].as_table();
  if (!f) r.fail("flow", "the [flow] table is missing (cells, domain, viscosity)");
  r.only(*f, "flow",
         {"name", "benchmark", "dims", "cells", "lo", "hi", "spacing", "nu", "re", "device"});
  c.name = r.text(*f, "flow", "name", "flow");
  const std::string bm = r.text(*f, "flow", "benchmark", "none");
  if (bm == "cavity")
    c.benchmark = Benchmark::cavity;
  else if (bm == "dfg")
    c.benchmark = Benchmark::dfg;
  else if (bm != "none")
    r.fail("flow.benchmark", fmt::format("'{}' is not known; valid: none, cavity, dfg", bm));
  c.dims = r.integer(*f, "flow", "dims", 2);
  if (c.dims != 2 && c.dims != 3) r.fail("flow.dims", "valid: 2 or 3");
  const auto cells = r.numbers(*f, "flow", "cells");
  if (int(cells.size()) != c.dims) r.fail("flow.cells", fmt::format("give {} cell counts", c.dims));
  for (int a = 0; a < c.dims; ++a) {
    const double n = cells[std::size_t(a)];
    if (n != std::floor(n) || n < 4 || n > 65536)
      r.fail("flow.cells",
             fmt::format("{} cells along {}; give whole numbers from 4 to 65536", n, "xyz"[a]));
    c.cells[std::size_t(a)] = int(n);
  }
  if (c.dims == 2) c.cells[2] = 1;
  const auto lo = r.numbers(*f, "flow", "lo"), hi = r.numbers(*f, "flow", "hi");
  if (!lo.empty() && int(lo.size()) != c.dims)
    r.fail("flow.lo", fmt::format("give {} numbers", c.dims));
  if (!hi.empty() && int(hi.size()) != c.dims)
    r.fail("flow.hi", fmt::format("give {} numbers", c.dims));
  for (std::size_t a = 0; a < lo.size(); ++a) c.lo[a] = lo[a];
  for (std::size_t a = 0; a < hi.size(); ++a) c.hi[a] = hi[a];
  if (const toml::node* s = f->get("spacing")) {
    const toml::array* a = s->as_array();
    if (!a || int(a->size()) != c.dims)
      r.fail("flow.spacing", fmt::format("give {} strings", c.dims));
    for (int q = 0; q < c.dims; ++q) {
      auto v = (*a)[std::size_t(q)].value<std::string>();
      if (!v) r.fail("flow.spacing", "give strings: uniform or tanh:BETA");
      c.spacing[std::size_t(q)] = AxisSpacing::parse(*v);
    }
  }
  cfg.device = r.text(*f, "flow", "device", "auto");
  if (cfg.device != "auto" && cfg.device != "cpu" && cfg.device != "cuda")
    r.fail("flow.device", fmt::format("'{}' is not known; valid: auto, cpu, cuda", cfg.device));
  const toml::table* meas = root["measure"].as_table();
  if (meas) {
    r.only(*meas, "measure", {"u_ref", "length_ref", "probe_a", "probe_b"});
    c.u_ref = r.number(*meas, "measure", "u_ref", 1);
    c.length_ref = r.number(*meas, "measure", "length_ref", 1);
    const auto pa = r.numbers(*meas, "measure", "probe_a"),
               pb = r.numbers(*meas, "measure", "probe_b");
    if (pa.size() != pb.size()) r.fail("measure.probe_b", "give both probes or neither");
    if (!pa.empty()) {
      if (int(pa.size()) != c.dims)
        r.fail("measure.probe_a", fmt::format("give {} numbers", c.dims));
      c.has_probes = true;
      for (std::size_t q = 0; q < pa.size(); ++q) c.probe_a[q] = pa[q], c.probe_b[q] = pb[q];
    }
  }
  const bool has_nu = f->get("nu") != nullptr, has_re = f->get("re") != nullptr;
  if (has_nu == has_re)
    r.fail("flow.nu", "give exactly one of nu (viscosity) and re (Reynolds number)");
  if (has_nu)
    c.nu = r.number(*f, "flow", "nu", 0);
  else {
    const double re = r.number(*f, "flow", "re", 0);
    if (!(re > 0))
      r.fail("flow.re", fmt::format("the Reynolds number is {}; it must be positive", re));
    // nu = u_ref length_ref / re: the references must be valid before they define it.
    if (!(c.u_ref > 0 && c.length_ref > 0))
      r.fail("measure", fmt::format("u_ref {} and length_ref {} must be positive (with re, they "
                                    "set the viscosity)",
                                    c.u_ref, c.length_ref));
    c.nu = c.u_ref * c.length_ref / re;
  }

  for (auto& s : c.sides) s = SideCondition{};
  if (const toml::table* b = root["boundary"].as_table()) {
    r.only(*b, "boundary", {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"});
    for (int s = 0; s < 6; ++s) {
      const toml::table* t = (*b)[face_name(s)].as_table();
      if (!t) continue;
      const std::string path = std::string("boundary.") + face_name(s);
      if (s >= 2 * c.dims) r.fail(path, "a 2D case has no z sides");
      r.only(*t, path, {"type", "velocity", "u", "v", "w"});
      SideCondition& sc = c.sides[std::size_t(s)];
      sc.type = parse_side_type(r.text(*t, path, "type", "wall"));
      const auto vel = r.numbers(*t, path, "velocity");
      if (!vel.empty()) {
        if (sc.type != SideType::wall)
          r.fail(path + ".velocity", "only walls move; inflows give u, v, w");
        if (int(vel.size()) != c.dims)
          r.fail(path + ".velocity", fmt::format("give {} numbers", c.dims));
        for (std::size_t q = 0; q < vel.size(); ++q) sc.velocity[q] = vel[q];
      }
      const char* comps[3] = {"u", "v", "w"};
      for (int q = 0; q < 3; ++q)
        if (t->get(comps[q])) {
          if (sc.type != SideType::velocity)
            r.fail(path + "." + comps[q], "velocity formulas belong to sides of type inflow");
          sc.profile[std::size_t(q)] = r.expression(*t, path, comps[q]);
        }
    }
  }
  if (const toml::node* obs = root.get("obstacle")) {
    const toml::array* arr = obs->as_array();
    if (!arr) r.fail("obstacle", "write obstacles as [[obstacle]] tables");
    int idx = 0;
    for (const auto& e : *arr) {
      const toml::table* t = e.as_table();
      const std::string path = fmt::format("obstacle[{}]", idx++);
      if (!t) r.fail(path, "must be a table");
      r.only(*t, path, {"shape", "centre", "radius", "lo", "hi", "vertices"});
      Obstacle o;
      const std::string shape = r.text(*t, path, "shape", "circle");
      if (shape == "circle") {
        const auto ce = r.numbers(*t, path, "centre");
        if (ce.size() != 2) r.fail(path + ".centre", "give 2 numbers");
        o.centre = {ce[0], ce[1]};
        o.radius = r.number(*t, path, "radius", 0);
      } else if (shape == "rectangle") {
        o.shape = Obstacle::Shape::rectangle;
        const auto l = r.numbers(*t, path, "lo"), h = r.numbers(*t, path, "hi");
        if (l.size() != 2 || h.size() != 2)
          r.fail(path, "a rectangle needs lo and hi, 2 numbers each");
        o.lo = {l[0], l[1]};
        o.hi = {h[0], h[1]};
      } else if (shape == "polygon") {
        o.shape = Obstacle::Shape::polygon;
        const toml::node* v = t->get("vertices");
        const toml::array* list = v ? v->as_array() : nullptr;
        if (!list) r.fail(path + ".vertices", "a polygon needs vertices = [[x, y], [x, y], ...]");
        for (const auto& vertex : *list) {
          const toml::array* xy = vertex.as_array();
          auto x = xy && xy->size() == 2 ? (*xy)[0].value<double>() : std::nullopt;
          auto y = xy && xy->size() == 2 ? (*xy)[1].value<double>() : std::nullopt;
          if (!x || !y) r.fail(path + ".vertices", "each vertex is [x, y], two numbers");
          if (!std::isfinite(*x) || !std::isfinite(*y))
            r.fail(path + ".vertices",
                   fmt::format("vertex ({}, {}) is not a finite point", *x, *y));
          o.vertices.push_back({*x, *y});
        }
      } else {
        r.fail(path + ".shape",
               fmt::format("'{}' is not known; valid: circle, rectangle, polygon", shape));
      }
      c.obstacles.push_back(o);
    }
  }
  if (const toml::table* init = root["initial"].as_table()) {
    r.only(*init, "initial", {"u", "v", "w", "p"});
    c.has_initial = true;
    const char* comps[3] = {"u", "v", "w"};
    for (int q = 0; q < 3; ++q) {
      if (!init->get(comps[q])) continue;
      if (q >= c.dims) r.fail(std::string("initial.") + comps[q], "a 2D case has no w");
      c.initial_velocity[std::size_t(q)] = r.expression(*init, "initial", comps[q]);
    }
    if (init->get("p")) c.initial_pressure = r.expression(*init, "initial", "p");
  }
  if (const toml::table* m = root["method"].as_table()) {
    r.only(*m, "method",
           {"coupling",
            "convection",
            "time",
            "relax_u",
            "relax_p",
            "max_iterations",
            "tolerance",
            "t_end",
            "cfl",
            "dt",
            "correctors",
            "momentum_solver",
            "momentum_sweeps",
            "momentum_omega",
            "momentum_tolerance",
            "pressure_tolerance",
            "pressure_solver",
            "check_every",
            "inflow_period",
            "obstacle_treatment"});
    c.coupling = parse_coupling(r.text(*m, "method", "coupling", to_string(c.coupling)));
    c.convection = parse_convection(r.text(*m, "method", "convection", to_string(c.convection)));
    c.time_scheme = parse_time_scheme(r.text(*m, "method", "time", to_string(c.time_scheme)));
    c.relax_u = r.number(*m, "method", "relax_u", c.relax_u);
    c.relax_p = r.number(*m, "method", "relax_p", c.relax_p);
    c.max_iterations = r.integer(*m, "method", "max_iterations", c.max_iterations);
    c.steady_tolerance = r.number(*m, "method", "tolerance", c.steady_tolerance);
    c.t_end = r.number(*m, "method", "t_end", c.t_end);
    c.cfl = r.number(*m, "method", "cfl", c.cfl);
    c.dt = r.number(*m, "method", "dt", c.dt);
    c.correctors = r.integer(*m, "method", "correctors", c.correctors);
    c.momentum_solver = r.text(*m, "method", "momentum_solver", c.momentum_solver);
    c.momentum_sweeps = r.integer(*m, "method", "momentum_sweeps", c.momentum_sweeps);
    c.momentum_omega = r.number(*m, "method", "momentum_omega", c.momentum_omega);
    if (m->get("momentum_omega") && !(c.momentum_omega > 0 && c.momentum_omega < 2))
      r.fail("method.momentum_omega", fmt::format("is {}; valid: (0, 2)", c.momentum_omega));
    c.momentum_tolerance = r.number(*m, "method", "momentum_tolerance", c.momentum_tolerance);
    if (m->get("momentum_tolerance") && !(c.momentum_tolerance >= 0 && c.momentum_tolerance < 1))
      r.fail("method.momentum_tolerance",
             fmt::format("is {}; valid: 0 (a fixed count of sweeps) up to below 1",
                         c.momentum_tolerance));
    c.pressure_tolerance = r.number(*m, "method", "pressure_tolerance", c.pressure_tolerance);
    c.pressure_solver = r.text(*m, "method", "pressure_solver", c.pressure_solver);
    c.check_every = r.integer(*m, "method", "check_every", c.check_every);
    c.inflow_period = r.number(*m, "method", "inflow_period", c.inflow_period);
    c.obstacle_treatment = parse_obstacle_treatment(
        r.text(*m, "method", "obstacle_treatment", to_string(c.obstacle_treatment)));
  }
  if (const toml::table* o = root["output"].as_table()) {
    r.only(*o, "output", {"out", "frames", "checkpoint_every", "checkpoint_file"});
    cfg.out = r.text(*o, "output", "out", "");
    cfg.frames = r.integer(*o, "output", "frames", 10);
    if (cfg.frames < 0)
      r.fail("output.frames", fmt::format("is {}; give 0 (none) or more", cfg.frames));
    cfg.checkpoint_every = r.integer(*o, "output", "checkpoint_every", 0);
    if (cfg.checkpoint_every < 0)
      r.fail("output.checkpoint_every",
             fmt::format("is {}; give a positive number of steps, or 0 for none",
                         cfg.checkpoint_every));
    cfg.checkpoint_file = r.text(*o, "output", "checkpoint_file", "");
  }
  c.validate();
  return cfg;
}

FlowConfig load_flow_config(const std::string& path) {
  std::error_code ec;
  require(!std::filesystem::is_directory(path, ec),
          fmt::format("'{}' is a folder; give a flow case file (.toml)", path));
  std::ifstream in(path);
  require(bool(in), fmt::format("cannot read the flow case '{}'", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_flow_config(ss.str(), path);
}

}  // namespace gridsolve::flow
