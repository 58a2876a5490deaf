#include "gridsolve/apps/magnet/magnet_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <toml++/toml.h>

#include "gridsolve/core/error.hpp"

namespace gridsolve::magnet {

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node* at, const std::string& message) const {
    if (at && at->source().begin.line > 0)
      throw Error(fmt::format("config '{}', line {}: {}", file_, at->source().begin.line, message));
    throw Error(fmt::format("config '{}': {}", file_, message));
  }

  void only_keys(const toml::table& t, const std::string& path,
                 std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, node] : t) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      fail(&node, fmt::format("unknown key '{}{}'; valid keys here: {}",
                              path.empty() ? "" : path + ".", key.str(), fmt::join(allowed, ", ")));
    }
  }

  const toml::table* section(const toml::table& root, std::string_view name) const {
    const toml::node* n = root.get(name);
    if (!n) return nullptr;
    if (!n->is_table()) fail(n, fmt::format("'{}' must be a table ([{}])", name, name));
    return n->as_table();
  }

  void number(const toml::table* t, const std::string& path, std::string_view key,
              double& out) const {
    if (!t) return;
    const toml::node* n = t->get(key);
    if (!n) return;
    if (const auto* f = n->as_floating_point())
      out = f->get();
    else if (const auto* i = n->as_integer())
      out = double(i->get());
    else
      fail(n, fmt::format("'{}.{}' must be a number", path, key));
  }
  void integer(const toml::table* t, const std::string& path, std::string_view key,
               int& out) const {
    if (!t) return;
    const toml::node* n = t->get(key);
    if (!n) return;
    const auto* i = n->as_integer();
    if (!i || i->get() < -2147483647 || i->get() > 2147483647)
      fail(n, fmt::format("'{}.{}' must be an integer", path, key));
    out = int(i->get());
  }
  void text(const toml::table* t, const std::string& path, std::string_view key,
            std::string& out) const {
    if (!t) return;
    const toml::node* n = t->get(key);
    if (!n) return;
    const auto* s = n->as_string();
    if (!s) fail(n, fmt::format("'{}.{}' must be a string", path, key));
    out = s->get();
  }
  void numbers(const toml::table* t, const std::string& path, std::string_view key,
               std::vector<double>& out) const {
    if (!t) return;
    const toml::node* n = t->get(key);
    if (!n) return;
    const auto* a = n->as_array();
    if (!a || a->empty())
      fail(n, fmt::format("'{}.{}' must be a non-empty array of numbers", path, key));
    out.clear();
    for (const toml::node& e : *a) {
      if (const auto* f = e.as_floating_point())
        out.push_back(f->get());
      else if (const auto* i = e.as_integer())
        out.push_back(double(i->get()));
      else
        fail(&e, fmt::format("'{}.{}' must hold numbers only", path, key));
    }
  }

 private:
  std::string file_;
};

}  // namespace

double default_tolerance(const std::string& precision, const std::string& solver) {
  const bool single = precision == "float" || precision == "fp32" || precision == "single";
  if (!single) return 0.5e-6;
  // The true residual of a float multigrid solve stalls near 1e-5 on magnet problems.
  return solver == "mg" || solver == "mgcg" ? 1e-4 : 1e-3;
}

MagnetConfig parse_magnet_config(std::string_view toml_text, const std::string& source_name,
                                 MagnetConfig c) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("config '{}', line {}: {}", source_name, e.source().begin.line,
                            std::string(e.description())));
  }
  Reader rd(source_name);
  rd.only_keys(root, "", {"magnet", "solver", "study", "output"});
  if (const toml::table* m = rd.section(root, "magnet")) {
    rd.only_keys(
        *m, "magnet",
        {"r0", "z0", "r1", "z1", "h", "dr", "dz", "B", "wires", "axis_span", "sphere_radius"});
    MagnetDesign& d = c.design;
    rd.number(m, "magnet", "r0", d.r0);
    rd.number(m, "magnet", "z0", d.z0);
    rd.number(m, "magnet", "r1", d.r1);
    rd.number(m, "magnet", "z1", d.z1);
    double h = 0;
    rd.number(m, "magnet", "h", h);
    if (m->get("h")) d.dr = d.dz = h;
    rd.number(m, "magnet", "dr", d.dr);
    rd.number(m, "magnet", "dz", d.dz);
    rd.number(m, "magnet", "B", d.B);
    rd.integer(m, "magnet", "wires", d.wires);
    rd.number(m, "magnet", "axis_span", d.axis_span);
    rd.number(m, "magnet", "sphere_radius", d.sphere_radius);
  }
  if (const toml::table* s = rd.section(root, "solver")) {
    rd.only_keys(
        *s, "solver",
        {"name", "device", "precision", "tolerance", "max_iterations", "omega", "residual"});
    rd.text(s, "solver", "name", c.solver);
    rd.text(s, "solver", "device", c.device);
    rd.text(s, "solver", "precision", c.precision);
    rd.number(s, "solver", "tolerance", c.tolerance);
    rd.integer(s, "solver", "max_iterations", c.max_iterations);
    rd.number(s, "solver", "omega", c.omega);
    rd.text(s, "solver", "residual", c.residual);
  }
  if (const toml::table* s = rd.section(root, "study")) {
    rd.only_keys(*s, "study", {"spacings", "boxes", "box_spacing"});
    rd.numbers(s, "study", "spacings", c.study_spacings);
    rd.numbers(s, "study", "boxes", c.study_boxes);
    rd.number(s, "study", "box_spacing", c.study_box_spacing);
  }
  if (const toml::table* o = rd.section(root, "output")) {
    rd.only_keys(*o, "output", {"dir"});
    rd.text(o, "output", "dir", c.out);
  }
  return c;
}

MagnetConfig load_magnet_config(const std::string& path, MagnetConfig base) {
  std::ifstream in(path);
  require(bool(in), fmt::format("cannot read the config file '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_magnet_config(text.str(), path, std::move(base));
}

}  // namespace gridsolve::magnet
