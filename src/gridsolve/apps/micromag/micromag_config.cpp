// Reading and checking `gridsolve micromag` configurations; shapes and initial states.
#include "gridsolve/apps/micromag/micromag_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>
#include <toml++/toml.h>

#include "gridsolve/apps/micromag/stop_condition.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/expression.hpp"
#include "gridsolve/io/ovf_writer.hpp"
#include "gridsolve/io/toml_reader.hpp"

namespace gridsolve::micromag {

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

  std::vector<const toml::table*> tables(const toml::table& root, std::string_view name) const {
    std::vector<const toml::table*> out;
    const toml::node* n = root.get(name);
    if (!n) return out;
    const auto* a = n->as_array();
    if (!a) fail(n, fmt::format("'{}' must be an array of tables ([[{}]])", name, name));
    for (const toml::node& e : *a) {
      if (!e.is_table()) fail(&e, fmt::format("each '{}' must be a table ([[{}]])", name, name));
      out.push_back(e.as_table());
    }
    return out;
  }

  bool number(const toml::table* t, const std::string& path, std::string_view key,
              double& out) const {
    if (!t) return false;
    const toml::node* n = t->get(key);
    if (!n) return false;
    if (const auto* f = n->as_floating_point())
      out = f->get();
    else if (const auto* i = n->as_integer())
      out = double(i->get());
    else
      fail(n, fmt::format("'{}.{}' must be a number", path, key));
    if (!std::isfinite(out)) fail(n, fmt::format("'{}.{}' must be finite", path, key));
    return true;
  }
  template <class I>
  bool integer(const toml::table* t, const std::string& path, std::string_view key, I& out) const {
    if (!t) return false;
    const toml::node* n = t->get(key);
    if (!n) return false;
    const auto* i = n->as_integer();
    if (!i) fail(n, fmt::format("'{}.{}' must be an integer", path, key));
    out = I(i->get());
    return true;
  }
  bool boolean(const toml::table* t, const std::string& path, std::string_view key,
               bool& out) const {
    if (!t) return false;
    const toml::node* n = t->get(key);
    if (!n) return false;
    const auto* b = n->as_boolean();
    if (!b) fail(n, fmt::format("'{}.{}' must be true or false", path, key));
    out = b->get();
    return true;
  }
  bool text(const toml::table* t, const std::string& path, std::string_view key,
            std::string& out) const {
    if (!t) return false;
    const toml::node* n = t->get(key);
    if (!n) return false;
    const auto* s = n->as_string();
    if (!s) fail(n, fmt::format("'{}.{}' must be a string", path, key));
    out = s->get();
    return true;
  }
  const toml::array* triple(const toml::table* t, const std::string& path,
                            std::string_view key) const {
    if (!t) return nullptr;
    const toml::node* n = t->get(key);
    if (!n) return nullptr;
    const auto* a = n->as_array();
    if (!a || a->size() != 3)
      fail(n, fmt::format("'{}.{}' must be an array of three values", path, key));
    return a;
  }
  bool vec3(const toml::table* t, const std::string& path, std::string_view key,
            std::array<double, 3>& out) const {
    const toml::array* a = triple(t, path, key);
    if (!a) return false;
    for (int c = 0; c < 3; ++c) {
      const toml::node& e = (*a)[c];
      if (const auto* f = e.as_floating_point())
        out[c] = f->get();
      else if (const auto* i = e.as_integer())
        out[c] = double(i->get());
      else
        fail(&e, fmt::format("'{}.{}' must hold numbers", path, key));
      if (!std::isfinite(out[c])) fail(&e, fmt::format("'{}.{}' must be finite", path, key));
    }
    return true;
  }
  bool ints3(const toml::table* t, const std::string& path, std::string_view key,
             std::array<int, 3>& out) const {
    const toml::array* a = triple(t, path, key);
    if (!a) return false;
    for (int c = 0; c < 3; ++c) {
      const auto* i = (*a)[c].as_integer();
      if (!i) fail(&(*a)[c], fmt::format("'{}.{}' must hold integers", path, key));
      out[c] = int(std::clamp<std::int64_t>(i->get(), -1, 1 << 24));
    }
    return true;
  }
  bool bools3(const toml::table* t, const std::string& path, std::string_view key,
              std::array<bool, 3>& out) const {
    const toml::array* a = triple(t, path, key);
    if (!a) return false;
    for (int c = 0; c < 3; ++c) {
      const auto* b = (*a)[c].as_boolean();
      if (!b) fail(&(*a)[c], fmt::format("'{}.{}' must hold true or false", path, key));
      out[c] = b->get();
    }
    return true;
  }
  // Three numbers or formula strings in t.
  bool formulas(const toml::table* t, const std::string& path, std::string_view key,
                std::array<std::string, 3>& out) const {
    const toml::array* a = triple(t, path, key);
    if (!a) return false;
    for (int c = 0; c < 3; ++c) {
      const toml::node& e = (*a)[c];
      if (const auto* f = e.as_floating_point())
        out[c] = fmt::format("{:.17g}", f->get());
      else if (const auto* i = e.as_integer())
        out[c] = fmt::format("{}", i->get());
      else if (const auto* s = e.as_string())
        out[c] = s->get();
      else
        fail(&e, fmt::format("'{}.{}' must hold numbers or formulas in t", path, key));
      try {
        field_of_time({out[c], "0", "0"})(0.0);
      } catch (const Error& err) {
        fail(&e, fmt::format("'{}.{}': {}", path, key, err.what()));
      }
    }
    return true;
  }

 private:
  std::string file_;
};

void read_region(const Reader& rd, const toml::table* t, const std::string& path, Region& r) {
  rd.number(t, path, "Ms", r.ms);
  rd.number(t, path, "A", r.aex);
  rd.number(t, path, "alpha", r.alpha);
  rd.number(t, path, "Ku1", r.ku1);
  rd.vec3(t, path, "anis_u", r.anis_u);
  rd.number(t, path, "Kc1", r.kc1);
  rd.vec3(t, path, "anis_c1", r.anis_c1);
  rd.vec3(t, path, "anis_c2", r.anis_c2);
  if (r.ms < 0) rd.fail(t, fmt::format("'{}.Ms' must not be negative", path));
  if (r.aex < 0) rd.fail(t, fmt::format("'{}.A' must not be negative", path));
  if (r.alpha < 0) rd.fail(t, fmt::format("'{}.alpha' must not be negative", path));
  // Far past every known material (iron: Ms 1.7e6 A/m; A ~1e-11 J/m; rare-earth magnets:
  // K ~1e7 J/m^3): values beyond these are typos, and would only overflow the fields.
  if (r.ms > 1e8)
    rd.fail(t, fmt::format("'{}.Ms' {} A/m is beyond any material (at most 1e8)", path, r.ms));
  if (r.aex > 1e-8)
    rd.fail(t, fmt::format("'{}.A' {} J/m is beyond any material (at most 1e-8)", path, r.aex));
  if (std::abs(r.ku1) > 1e9 || std::abs(r.kc1) > 1e9)
    rd.fail(t, fmt::format("'{}.Ku1' / '{}.Kc1' beyond any material (|K| at most 1e9 J/m^3)", path,
                           path));
}

const std::vector<std::string_view> region_keys = {"Ms",     "A",   "alpha",   "Ku1",
                                                   "anis_u", "Kc1", "anis_c1", "anis_c2"};

}  // namespace

MicromagConfig parse_micromag_config(std::string_view toml_text, const std::string& source_name) {
  // The project's reader bounds the text and parses it; the typed reads below follow its
  // message style.
  const TomlReader document(toml_text, source_name);
  const toml::table& root = document.root();
  MicromagConfig c;
  c.source = source_name;
  Reader rd(source_name);
  rd.only_keys(root, "",
               {"mesh", "material", "region", "shape", "initial", "field", "solver", "output",
                "stage", "scan"});
  if (const toml::table* sc = rd.section(root, "scan")) {
    rd.only_keys(*sc, "scan", {"edge_lex", "stage"});
    const toml::node* e = sc->get("edge_lex");
    const auto* a = e ? e->as_array() : nullptr;
    if (!a || a->size() < 2) rd.fail(sc, "'scan.edge_lex' must be an array of at least two edges");
    for (const toml::node& v : *a) {
      const double x = v.as_floating_point() ? v.as_floating_point()->get()
                       : v.as_integer()      ? double(v.as_integer()->get())
                                             : -1.0;
      if (!(x > 0)) rd.fail(&v, "'scan.edge_lex' must hold positive numbers");
      c.scan_edge_lex.push_back(x);
    }
    rd.text(sc, "scan", "stage", c.scan_stage);
    if (c.scan_stage != "relax" && c.scan_stage != "minimize")
      rd.fail(sc->get("stage"), "'scan.stage' must be relax or minimize");
  }
  // mesh
  const toml::table* mesh = rd.section(root, "mesh");
  if (!mesh) rd.fail(nullptr, "a [mesh] with 'cells' and 'size' or 'cell_size' is required");
  rd.only_keys(*mesh, "mesh", {"cells", "size", "cell_size", "periodic", "images"});
  Mesh& m = c.problem.mesh;
  if (!rd.ints3(mesh, "mesh", "cells", m.n))
    rd.fail(mesh, "'mesh.cells' = [nx, ny, nz] is required");
  for (int a = 0; a < 3; ++a)
    if (m.n[a] < 1 || m.n[a] > 65536)
      rd.fail(mesh->get("cells"), fmt::format("'mesh.cells' must be 1 .. 65536 per axis, got {}",
                                              fmt::join(m.n, ", ")));
  if (double(m.n[0]) * m.n[1] * m.n[2] > 2e9)
    rd.fail(mesh->get("cells"), "'mesh.cells': too many cells (at most 2e9)");
  std::array<double, 3> size{}, cell{};
  bool has_size = rd.vec3(mesh, "mesh", "size", size);
  const bool has_cell = rd.vec3(mesh, "mesh", "cell_size", cell);
  if (!c.scan_edge_lex.empty() && !has_size && !has_cell) {
    size = {1e-8, 1e-8, 1e-8};  // a scan sets the size itself
    has_size = true;
  }
  if (has_size == has_cell) rd.fail(mesh, "[mesh] needs exactly one of 'size' and 'cell_size'");
  for (int a = 0; a < 3; ++a) {
    m.cell[a] = has_size ? size[a] / m.n[a] : cell[a];
    // Below a picometre (a hundredth of an atom) the demag kernel's geometry underflows.
    if (!(m.cell[a] >= 1e-12) || m.cell[a] > 1e-3)
      rd.fail(mesh,
              fmt::format("[mesh]: the cell size along axis {} must be in [1 pm, 1 mm], got {} m",
                          a, m.cell[a]));
  }
  rd.bools3(mesh, "mesh", "periodic", m.periodic);
  const bool any_periodic = m.periodic[0] || m.periodic[1] || m.periodic[2];
  m.images = any_periodic ? 10 : 0;
  if (rd.integer(mesh, "mesh", "images", m.images)) {
    if (!any_periodic)
      rd.fail(mesh->get("images"), "'mesh.images' goes with 'mesh.periodic' (some axis true)");
    if (m.images < 0 || m.images > 100000)
      rd.fail(mesh->get("images"),
              fmt::format("'mesh.images' must be 0 .. 100000 copies per side, got {}", m.images));
    // The demag tensor sums every image copy for every cell pair offset: bound the work.
    double copies = 1;
    for (int a = 0; a < 3; ++a)
      if (m.periodic[a]) copies *= 2.0 * m.images + 1;
    const double work = copies * 8.0 * double(m.n[0]) * m.n[1] * m.n[2];
    if (work > 1e12)
      rd.fail(mesh->get("images"),
              fmt::format("'mesh.images' {} makes {:.3g} image copies of the mesh; with its "
                          "cells the demag tensor would take {:.3g} terms (at most 1e12): give "
                          "fewer images",
                          m.images, copies, work));
  }
  // regions
  if (const toml::table* mat = rd.section(root, "material")) {
    rd.only_keys(*mat, "material",
                 {"Ms", "A", "alpha", "Ku1", "anis_u", "Kc1", "anis_c1", "anis_c2"});
    read_region(rd, mat, "material", c.problem.regions[0]);
  }
  std::vector<bool> region_given(std::size_t(vacuum), false);
  for (const toml::table* r : rd.tables(root, "region")) {
    int id = -1;
    if (!rd.integer(r, "region", "id", id)) rd.fail(r, "each [[region]] needs an 'id' (0 .. 254)");
    if (id < 0 || id >= int(vacuum))
      rd.fail(r->get("id"), fmt::format("'region.id' must be 0 .. 254, got {}", id));
    // A second table of the same id would silently replace the first one's material.
    if (region_given[std::size_t(id)])
      rd.fail(r->get("id"), fmt::format("region {} is given twice", id));
    region_given[std::size_t(id)] = true;
    for (const auto& [key, node] : *r)
      if (key.str() != "id" &&
          std::find(region_keys.begin(), region_keys.end(), key.str()) == region_keys.end())
        rd.fail(&node, fmt::format("unknown key 'region.{}'; valid keys here: id, {}", key.str(),
                                   fmt::join(region_keys, ", ")));
    read_region(rd, r, fmt::format("region {}", id), c.problem.regions[id]);
  }
  // shapes
  for (const toml::table* s : rd.tables(root, "shape")) {
    rd.only_keys(*s, "shape", {"kind", "center", "size", "axis", "region", "subtract"});
    ShapeSpec sp;
    if (!rd.text(s, "shape", "kind", sp.kind) ||
        (sp.kind != "box" && sp.kind != "cylinder" && sp.kind != "ellipsoid"))
      rd.fail(s, "'shape.kind' must be box, cylinder or ellipsoid");
    rd.vec3(s, "shape", "center", sp.center);
    if (!rd.vec3(s, "shape", "size", sp.size))
      rd.fail(s, "'shape.size' = [x, y, z] (m) is required");
    for (double v : sp.size)
      if (!(v > 0)) rd.fail(s->get("size"), "'shape.size' must be positive");
    std::string axis = "z";
    rd.text(s, "shape", "axis", axis);
    if (axis != "x" && axis != "y" && axis != "z")
      rd.fail(s->get("axis"), "'shape.axis' must be x, y or z");
    sp.axis = axis[0] - 'x';
    rd.integer(s, "shape", "region", sp.region);
    if (sp.region < 0 || sp.region >= int(vacuum))
      rd.fail(s->get("region"), fmt::format("'shape.region' must be 0 .. 254, got {}", sp.region));
    rd.boolean(s, "shape", "subtract", sp.subtract);
    c.shapes.push_back(sp);
  }
  // initial state
  if (const toml::table* i = rd.section(root, "initial")) {
    rd.only_keys(*i, "initial",
                 {"state", "direction", "seed", "circulation", "polarity", "core_radius", "file"});
    rd.text(i, "initial", "state", c.initial.kind);
    if (c.initial.kind != "uniform" && c.initial.kind != "random" && c.initial.kind != "vortex" &&
        c.initial.kind != "file")
      rd.fail(i->get("state"),
              fmt::format("'initial.state' must be uniform, random, vortex or file, got '{}'",
                          c.initial.kind));
    rd.text(i, "initial", "file", c.initial.file);
    if ((c.initial.kind == "file") != !c.initial.file.empty())
      rd.fail(i, "'initial.file' (an OVF 2.0 file) goes with state = \"file\", and only with it");
    if (!c.initial.file.empty() && std::filesystem::path(c.initial.file).is_relative())
      c.initial.file = (std::filesystem::path(source_name).parent_path() / c.initial.file).string();
    if (rd.vec3(i, "initial", "direction", c.initial.direction) &&
        std::hypot(c.initial.direction[0], c.initial.direction[1], c.initial.direction[2]) == 0)
      rd.fail(i->get("direction"), "'initial.direction' must not be zero");
    rd.integer(i, "initial", "seed", c.initial.seed);
    rd.integer(i, "initial", "circulation", c.initial.circulation);
    rd.integer(i, "initial", "polarity", c.initial.polarity);
    rd.number(i, "initial", "core_radius", c.initial.core_radius);
    if (c.initial.core_radius < 0)
      rd.fail(i->get("core_radius"),
              fmt::format("'initial.core_radius' must not be negative (0: two cells), got {}",
                          c.initial.core_radius));
    if (std::abs(c.initial.circulation) != 1 || std::abs(c.initial.polarity) != 1)
      rd.fail(i, "'initial.circulation' and 'initial.polarity' must be 1 or -1");
  }
  if (const toml::table* f = rd.section(root, "field")) {
    rd.only_keys(*f, "field", {"B"});
    rd.formulas(f, "field", "B", c.field);
  }
  if (const toml::table* s = rd.section(root, "solver")) {
    rd.only_keys(*s, "solver",
                 {"method", "tolerance", "dt", "max_dt", "device", "precision", "fft",
                  "relax_max_steps", "minimize_stop", "minimize_max_iterations"});
    std::string method = "rk45";
    if (rd.text(s, "solver", "method", method)) {
      try {
        c.stepper.method = parse_method(method);
      } catch (const Error& e) {
        rd.fail(s->get("method"), fmt::format("'solver.method': {}", e.what()));
      }
    }
    rd.number(s, "solver", "tolerance", c.stepper.tolerance);
    rd.number(s, "solver", "dt", c.stepper.dt);
    rd.number(s, "solver", "max_dt", c.stepper.max_dt);
    if (!(c.stepper.tolerance > 0 && c.stepper.tolerance < 1))
      rd.fail(s->get("tolerance"),
              "'solver.tolerance' must be in (0, 1): |m| is 1, so an error bound of 1 or more "
              "would control nothing");
    if (!(c.stepper.dt > 0) || c.stepper.dt > 1e-9)
      rd.fail(s->get("dt"), "'solver.dt' must be in (0, 1e-9] s");
    if (!(c.stepper.max_dt >= c.stepper.dt))
      rd.fail(s->get("max_dt"), "'solver.max_dt' must be at least 'solver.dt'");
    rd.text(s, "solver", "device", c.device);
    rd.text(s, "solver", "precision", c.precision);
    if (c.precision != "float" && c.precision != "double")
      rd.fail(s->get("precision"),
              fmt::format("'solver.precision' must be float or double, got '{}'", c.precision));
    rd.text(s, "solver", "fft", c.fft);
    if (c.fft != "auto" && c.fft != "skip" && c.fft != "plain" && c.fft != "fused")
      rd.fail(s->get("fft"),
              fmt::format("'solver.fft' must be auto, skip, plain or fused, got '{}'", c.fft));
    rd.integer(s, "solver", "relax_max_steps", c.relax_max_steps);
    rd.number(s, "solver", "minimize_stop", c.minimize_stop);
    rd.integer(s, "solver", "minimize_max_iterations", c.minimize_max_iterations);
    if (c.relax_max_steps < 1 || c.minimize_max_iterations < 1 || c.minimize_stop < 0)
      rd.fail(s,
              "'solver.relax_max_steps' and 'minimize_max_iterations' must be positive, "
              "'minimize_stop' not negative");
  }
  if (const toml::table* o = rd.section(root, "output")) {
    rd.only_keys(*o, "output",
                 {"dir", "table_interval", "snapshot_interval", "ovf", "hdf5", "plots"});
    rd.text(o, "output", "dir", c.out);
    rd.number(o, "output", "table_interval", c.table_interval);
    rd.number(o, "output", "snapshot_interval", c.snapshot_interval);
    rd.boolean(o, "output", "ovf", c.ovf);
    rd.boolean(o, "output", "hdf5", c.hdf5);
    rd.boolean(o, "output", "plots", c.plots);
    if (!(c.table_interval > 0))
      rd.fail(o->get("table_interval"), "'output.table_interval' must be positive");
    if (c.snapshot_interval < 0)
      rd.fail(o->get("snapshot_interval"), "'output.snapshot_interval' must not be negative");
  }
  const auto stages = rd.tables(root, "stage");
  if (stages.empty() && c.scan_edge_lex.empty())
    rd.fail(nullptr, "at least one [[stage]] (kind = relax, minimize or run) is required");
  for (const toml::table* s : stages) {
    rd.only_keys(*s, "stage", {"kind", "time", "B", "until"});
    StageSpec st;
    if (!rd.text(s, "stage", "kind", st.kind) ||
        (st.kind != "relax" && st.kind != "minimize" && st.kind != "run"))
      rd.fail(s, "'stage.kind' must be relax, minimize or run");
    rd.number(s, "stage", "time", st.time);
    if (rd.text(s, "stage", "until", st.until)) {
      if (st.kind != "run") rd.fail(s->get("until"), "'stage.until' belongs to run stages only");
      try {
        StopCondition check(st.until);
      } catch (const Error& e) {
        rd.fail(s->get("until"), fmt::format("'stage.until': {}", e.what()));
      }
    }
    if (st.kind == "run" && !(st.time > 0 && st.time <= 1e-3))
      rd.fail(s, st.until.empty()
                     ? "a run stage needs 'time' in (0, 1e-3] s"
                     : "a run stage with 'until' needs 'time' in (0, 1e-3] s: the most it may "
                       "run before the condition holds");
    if (st.kind != "run" && s->get("time"))
      rd.fail(s->get("time"), "'stage.time' belongs to run stages only");
    st.set_field = rd.formulas(s, "stage", "B", st.field);
    c.stages.push_back(st);
  }
  // Runs that could not end, or would bury the disk: the steps the run stages need at
  // the smallest step the settings allow, and the table rows and snapshots they write.
  double run_time = 0;
  for (const StageSpec& st : c.stages)
    if (st.kind == "run") run_time += st.time;
  if (run_time > 0) {
    const bool fixed = c.stepper.method == Method::rk4;
    const double longest_step = std::min(fixed ? c.stepper.dt : c.stepper.max_dt, c.table_interval);
    if (run_time / longest_step > 1e9)
      rd.fail(nullptr, fmt::format("the run stages ({:.3g} s) would take at least {:.3g} steps of "
                                   "at most {:.3g} s (solver dt / max_dt, output.table_interval); "
                                   "at most 1e9",
                                   run_time, run_time / longest_step, longest_step));
    if (c.snapshot_interval > 0 && run_time / c.snapshot_interval > 1e5)
      rd.fail(nullptr, fmt::format("'output.snapshot_interval' {:.3g} s would write {:.3g} "
                                   "snapshots over the run stages ({:.3g} s); at most 1e5",
                                   c.snapshot_interval, run_time / c.snapshot_interval, run_time));
  }
  apply_shapes(c);
  bool any = false;
  for (std::uint8_t r : c.problem.region)
    if (r != vacuum && c.problem.regions[r].ms > 0) any = true;
  if (!any)
    rd.fail(
        nullptr,
        "no cell holds magnetic material: give [material] Ms > 0 (or the regions the shapes use)");
  return c;
}

MicromagConfig load_micromag_config(const std::string& path) {
  return parse_micromag_config(read_input_file(path, TomlReader::max_bytes, "config"), path);
}

void apply_shapes(MicromagConfig& c) {
  const Mesh& m = c.problem.mesh;
  c.problem.region.assign(std::size_t(m.cells()), c.shapes.empty() ? 0 : vacuum);
  for (const ShapeSpec& s : c.shapes) {
    for (int k = 0; k < m.n[2]; ++k)
      for (int j = 0; j < m.n[1]; ++j)
        for (int i = 0; i < m.n[0]; ++i) {
          // Cell centre relative to the shape's centre, in units of its half sizes.
          const int idx[3] = {i, j, k};
          double u[3];
          for (int a = 0; a < 3; ++a)
            u[a] = ((idx[a] + 0.5 - 0.5 * m.n[a]) * m.cell[a] - s.center[a]) / (0.5 * s.size[a]);
          bool inside = false;
          if (s.kind == "box") {
            inside = std::abs(u[0]) <= 1 && std::abs(u[1]) <= 1 && std::abs(u[2]) <= 1;
          } else if (s.kind == "ellipsoid") {
            inside = u[0] * u[0] + u[1] * u[1] + u[2] * u[2] <= 1;
          } else {
            const int a = s.axis, b = (a + 1) % 3, d = (a + 2) % 3;
            inside = std::abs(u[a]) <= 1 && u[b] * u[b] + u[d] * u[d] <= 1;
          }
          if (inside)
            c.problem.region[(std::size_t(k) * m.n[1] + j) * m.n[0] + i] =
                s.subtract ? vacuum : std::uint8_t(s.region);
        }
  }
}

std::array<std::vector<double>, 3> initial_magnetization(const MicromagConfig& c) {
  const Mesh& m = c.problem.mesh;
  const std::int64_t cells = m.cells();
  if (c.initial.kind == "file") {
    OvfMesh om;
    std::array<std::vector<double>, 3> v = read_ovf2(c.initial.file, om);
    require(om.n == m.n,
            fmt::format("initial state '{}' has {} x {} x {} cells, the mesh {} x {} x {}",
                        c.initial.file, om.n[0], om.n[1], om.n[2], m.n[0], m.n[1], m.n[2]));
    for (std::int64_t q = 0; q < cells; ++q) {
      const std::size_t k = std::size_t(q);
      if (v[0][k] == 0 && v[1][k] == 0 && v[2][k] == 0) v[0][k] = 1;  // cells without material
    }
    return v;
  }
  std::array<std::vector<double>, 3> v;
  for (auto& x : v) x.assign(cells, 0.0);
  std::mt19937_64 rng(std::uint64_t(c.initial.seed));
  std::normal_distribution<double> normal(0, 1);
  const double core =
      c.initial.core_radius > 0 ? c.initial.core_radius : 2 * std::max(m.cell[0], m.cell[1]);
  for (int k = 0; k < m.n[2]; ++k)
    for (int j = 0; j < m.n[1]; ++j)
      for (int i = 0; i < m.n[0]; ++i) {
        const std::int64_t q = (std::int64_t(k) * m.n[1] + j) * m.n[0] + i;
        double d[3];
        if (c.initial.kind == "uniform") {
          for (int a = 0; a < 3; ++a) d[a] = c.initial.direction[a];
        } else if (c.initial.kind == "random") {
          do {
            for (double& x : d) x = normal(rng);
          } while (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < 1e-12);
        } else {
          // Vortex about the z axis through the mesh centre: in-plane circulation, an
          // out-of-plane core of the given radius.
          const double x = (i + 0.5 - 0.5 * m.n[0]) * m.cell[0];
          const double y = (j + 0.5 - 0.5 * m.n[1]) * m.cell[1];
          const double r = std::hypot(x, y);
          const double mz = c.initial.polarity * std::exp(-(r * r) / (core * core));
          const double inplane = std::sqrt(std::max(0.0, 1 - mz * mz));
          const double phi = std::atan2(y, x) + c.initial.circulation * std::numbers::pi / 2;
          d[0] = inplane * std::cos(phi);
          d[1] = inplane * std::sin(phi);
          d[2] = mz;
        }
        const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int a = 0; a < 3; ++a) v[a][q] = d[a] / n;
      }
  return v;
}

FieldOfTime field_of_time(const std::array<std::string, 3>& formulas) {
  struct Parsers {
    double t = 0;
    std::array<mu::Parser, 3> p;
    std::array<double, 3> constant{};
    std::array<bool, 3> is_constant{};
  };
  auto ps = std::make_shared<Parsers>();
  for (int c = 0; c < 3; ++c) {
    try {
      std::size_t used = 0;
      const double v = std::stod(formulas[c], &used);
      if (used == formulas[c].size()) {
        require(std::abs(v) <= 1e4,
                fmt::format("the field component {} T is not a finite number of at most 1e4 T",
                            formulas[c]));
        ps->constant[c] = v;
        ps->is_constant[c] = true;
        continue;
      }
    } catch (const std::exception&) {
    }
    require_one_expression(formulas[c]);
    double at_start = 0;
    try {
      ps->p[c].DefineVar("t", &ps->t);
      ps->p[c].DefineConst("pi", std::numbers::pi);
      ps->p[c].SetExpr(formulas[c]);
      at_start = ps->p[c].Eval();
    } catch (const mu::Parser::exception_type& e) {
      throw Error(fmt::format("the field formula '{}' is not valid: {} (a formula in t, seconds)",
                              formulas[c], e.GetMsg()));
    }
    require_one_result(formulas[c], ps->p[c].GetNumResults());
    // Where it starts, at least, a field must be a number (it is checked again as it runs).
    require(std::abs(at_start) <= 1e4,
            fmt::format("the field formula '{}' is {} T at t = 0; give one that is finite "
                        "(at most 1e4 T)",
                        formulas[c], at_start));
  }
  return [ps](double t) {
    ps->t = t;
    std::array<double, 3> b{};
    for (int c = 0; c < 3; ++c) b[c] = ps->is_constant[c] ? ps->constant[c] : ps->p[c].Eval();
    return b;
  };
}

}  // namespace gridsolve::micromag
