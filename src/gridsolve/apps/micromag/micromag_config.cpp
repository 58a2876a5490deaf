// Reading and checking `gridsolve micromag` configurations; shapes and initial states.
#include "gridsolve/apps/micromag/micromag_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <muParser.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>

#include "gridsolve/apps/micromag/micromag_outputs.hpp"
#include "gridsolve/apps/micromag/stop_condition.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/problem/expression.hpp"
#include "gridsolve/io/ovf_writer.hpp"
#include "gridsolve/io/toml_reader.hpp"

namespace gridsolve::micromag {

namespace {

// [mesh] periodic = [bool, bool, bool].
std::optional<std::array<bool, 3>> booleans3(const TomlReader& rd, const toml::table& t,
                                             std::string_view key, const std::string& path) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string name = join_key(path, key);
  const toml::array* a = rd.sized_array(*n, name, 3, "booleans");
  std::array<bool, 3> out{};
  for (std::size_t c = 0; c < 3; ++c) {
    const auto* b = a->get(c)->as_boolean();
    if (!b)
      rd.fail(a->get(c), fmt::format("{}[{}] must be true or false, got {}", name, c,
                                     describe(*a->get(c))));
    out[c] = b->get();
  }
  return out;
}

// Three numbers or formula strings in t (seconds), each checked by parsing it.
std::optional<std::array<std::string, 3>> formulas3(const TomlReader& rd, const toml::table& t,
                                                    std::string_view key,
                                                    const std::string& path) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string name = join_key(path, key);
  const toml::array* a = rd.sized_array(*n, name, 3, "numbers or formulas in t");
  std::array<std::string, 3> out;
  for (std::size_t c = 0; c < 3; ++c) {
    const toml::node& e = *a->get(c);
    if (e.is_integer() || e.is_floating_point())
      out[c] = fmt::format("{:.17g}", rd.number_value(e, fmt::format("{}[{}]", name, c)));
    else if (const auto* s = e.as_string())
      out[c] = s->get();
    else
      rd.fail(&e, fmt::format("{}[{}] must be a number or a formula in t, got {}", name, c,
                              describe(e)));
    try {
      field_of_time({out[c], "0", "0"})(0.0);
    } catch (const Error& err) {
      rd.fail(&e, fmt::format("{}[{}]: {}", name, c, err.what()));
    }
  }
  return out;
}

template <class I>
void read_integer(const TomlReader& rd, const toml::table& t, std::string_view key,
                  const std::string& path, std::int64_t lo, std::int64_t hi, I& out) {
  if (auto v = rd.integer(t, key, path, lo, hi)) out = I(*v);
}
void read_number(const TomlReader& rd, const toml::table& t, std::string_view key,
                 const std::string& path, double& out) {
  if (auto v = rd.number(t, key, path)) out = *v;
}
void read_vector(const TomlReader& rd, const toml::table& t, std::string_view key,
                 const std::string& path, std::array<double, 3>& out) {
  if (auto v = rd.vector(t, key, path, 3)) out = *v;
}

const TomlReader::Names region_keys = {"Ms",
                                       "A",
                                       "alpha",
                                       "Ku1",
                                       "anis_u",
                                       "Kc1",
                                       "anis_c1",
                                       "anis_c2",
                                       "Dind",
                                       "Dbulk",
                                       "Temp",
                                       "Pol",
                                       "xi",
                                       "Lambda",
                                       "epsilon_prime",
                                       "fixed_layer",
                                       "free_layer_thickness"};

void read_region(const TomlReader& rd, const toml::table& t, const std::string& path, Region& r) {
  read_number(rd, t, "Ms", path, r.ms);
  read_number(rd, t, "A", path, r.aex);
  read_number(rd, t, "alpha", path, r.alpha);
  read_number(rd, t, "Ku1", path, r.ku1);
  read_vector(rd, t, "anis_u", path, r.anis_u);
  read_number(rd, t, "Kc1", path, r.kc1);
  read_vector(rd, t, "anis_c1", path, r.anis_c1);
  read_vector(rd, t, "anis_c2", path, r.anis_c2);
  read_number(rd, t, "Dind", path, r.dind);
  read_number(rd, t, "Dbulk", path, r.dbulk);
  read_number(rd, t, "Temp", path, r.temp);
  read_number(rd, t, "Pol", path, r.pol);
  read_number(rd, t, "xi", path, r.xi);
  read_vector(rd, t, "fixed_layer", path, r.fixed_layer);
  read_number(rd, t, "Lambda", path, r.lambda);
  read_number(rd, t, "epsilon_prime", path, r.epsilon_prime);
  read_number(rd, t, "free_layer_thickness", path, r.free_layer_thickness);
  if (!(r.lambda > 0 && r.lambda <= 100))
    rd.fail(&t, fmt::format("'{}.Lambda' must be in (0, 100], got {}", path, r.lambda));
  if (std::abs(r.epsilon_prime) > 10)
    rd.fail(&t, fmt::format("'{}.epsilon_prime' {} is beyond any stack (|eps'| at most 10)", path,
                            r.epsilon_prime));
  if (!(r.free_layer_thickness >= 0 && r.free_layer_thickness <= 1e-3))
    rd.fail(&t, fmt::format("'{}.free_layer_thickness' must be in [0, 1e-3] m (0: the mesh's "
                            "thickness), got {}",
                            path, r.free_layer_thickness));
  if (std::abs(r.pol) > 1)
    rd.fail(&t, fmt::format("'{}.Pol' must be in [-1, 1], got {}", path, r.pol));
  if (std::abs(r.xi) > 10)
    rd.fail(&t, fmt::format("'{}.xi' {} is beyond any material (|xi| at most 10)", path, r.xi));
  if (r.temp < 0 || r.temp > 1e5)
    rd.fail(&t, fmt::format("'{}.Temp' must be in [0, 1e5] K, got {}", path, r.temp));
  if (r.ms < 0) rd.fail(&t, fmt::format("'{}.Ms' must not be negative", path));
  if (r.aex < 0) rd.fail(&t, fmt::format("'{}.A' must not be negative", path));
  if (r.alpha < 0) rd.fail(&t, fmt::format("'{}.alpha' must not be negative", path));
  // Far past every known material (iron: Ms 1.7e6 A/m; A ~1e-11 J/m; rare-earth magnets:
  // K ~1e7 J/m^3): values beyond these are typos, and would only overflow the fields.
  if (r.ms > 1e8)
    rd.fail(&t, fmt::format("'{}.Ms' {} A/m is beyond any material (at most 1e8)", path, r.ms));
  if (r.aex > 1e-8)
    rd.fail(&t, fmt::format("'{}.A' {} J/m is beyond any material (at most 1e-8)", path, r.aex));
  if (std::abs(r.dind) > 1 || std::abs(r.dbulk) > 1)
    rd.fail(&t, fmt::format("'{}.Dind' / '{}.Dbulk' beyond any material (|D| at most 1 J/m^2)",
                            path, path));
  if (std::abs(r.ku1) > 1e9 || std::abs(r.kc1) > 1e9)
    rd.fail(&t, fmt::format("'{}.Ku1' / '{}.Kc1' beyond any material (|K| at most 1e9 J/m^3)",
                            path, path));
}

void read_scan(const TomlReader& rd, const toml::table& sc, MicromagConfig& c) {
  rd.only_keys(sc, "scan", {"edge_lex", "stage"});
  const auto edges = rd.numbers(sc, "edge_lex", "scan");
  if (!edges || edges->size() < 2)
    rd.fail(&sc, "'scan.edge_lex' must be an array of at least two edges");
  for (double x : *edges) {
    if (!(x > 0)) rd.fail(sc.get("edge_lex"), "'scan.edge_lex' must hold positive numbers");
    c.scan_edge_lex.push_back(x);
  }
  if (auto v = rd.choice(sc, "stage", "scan", {"relax", "minimize"})) c.scan_stage = *v;
}

void read_mesh(const TomlReader& rd, const toml::table& mesh, MicromagConfig& c) {
  rd.only_keys(mesh, "mesh", {"cells", "size", "cell_size", "periodic", "images"});
  Mesh& m = c.problem.mesh;
  const toml::node* cells = mesh.get("cells");
  if (!cells) rd.fail(&mesh, "'mesh.cells' = [nx, ny, nz] is required");
  const toml::array* counts = rd.sized_array(*cells, "mesh.cells", 3, "cell counts");
  for (std::size_t a = 0; a < 3; ++a)
    m.n[a] = int(rd.integer_value(*counts->get(a), fmt::format("mesh.cells[{}]", a), 1, 65536));
  if (double(m.n[0]) * m.n[1] * m.n[2] > 2e9)
    rd.fail(cells, "'mesh.cells': too many cells (at most 2e9)");
  std::array<double, 3> size{}, cell{};
  bool has_size = false, has_cell = false;
  if (auto v = rd.vector(mesh, "size", "mesh", 3)) size = *v, has_size = true;
  if (auto v = rd.vector(mesh, "cell_size", "mesh", 3)) cell = *v, has_cell = true;
  if (!c.scan_edge_lex.empty() && !has_size && !has_cell) {
    size = {1e-8, 1e-8, 1e-8};  // a scan sets the size itself
    has_size = true;
  }
  if (has_size == has_cell) rd.fail(&mesh, "[mesh] needs exactly one of 'size' and 'cell_size'");
  for (std::size_t a = 0; a < 3; ++a) {
    m.cell[a] = has_size ? size[a] / m.n[a] : cell[a];
    // Below a picometre (a hundredth of an atom) the demag kernel's geometry underflows.
    if (!(m.cell[a] >= 1e-12) || m.cell[a] > 1e-3)
      rd.fail(&mesh,
              fmt::format("[mesh]: the cell size along axis {} must be in [1 pm, 1 mm], got {} m",
                          a, m.cell[a]));
  }
  if (auto v = booleans3(rd, mesh, "periodic", "mesh")) m.periodic = *v;
  const bool any_periodic = m.periodic[0] || m.periodic[1] || m.periodic[2];
  m.images = any_periodic ? 10 : 0;
  if (const toml::node* images = mesh.get("images")) {
    if (!any_periodic)
      rd.fail(images, "'mesh.images' goes with 'mesh.periodic' (some axis true)");
    m.images = int(rd.integer_value(*images, "mesh.images", 0, 100000));
    // The demag tensor sums every image copy for every cell pair offset: bound the work.
    double copies = 1;
    for (std::size_t a = 0; a < 3; ++a)
      if (m.periodic[a]) copies *= 2.0 * m.images + 1;
    const double work = copies * 8.0 * double(m.n[0]) * m.n[1] * m.n[2];
    if (work > 1e12)
      rd.fail(images,
              fmt::format("'mesh.images' {} makes {:.3g} image copies of the mesh; with its "
                          "cells the demag tensor would take {:.3g} terms (at most 1e12): give "
                          "fewer images",
                          m.images, copies, work));
  }
}

void read_regions(const TomlReader& rd, const toml::table& root, MicromagConfig& c) {
  if (const toml::table* mat = rd.table(root, "material", "")) {
    rd.only_keys(*mat, "material", region_keys);
    read_region(rd, *mat, "material", c.problem.regions[0]);
  }
  std::vector<bool> region_given(std::size_t(vacuum), false);
  TomlReader::Names keys = region_keys;
  keys.insert(keys.begin(), "id");
  for (const toml::table* r : rd.tables(root, "region", "")) {
    rd.only_keys(*r, "region", keys);
    const toml::node* id_node = r->get("id");
    if (!id_node) rd.fail(r, "each [[region]] needs an 'id' (0 .. 254)");
    const auto id = std::size_t(rd.integer_value(*id_node, "region.id", 0, vacuum - 1));
    // A second table of the same id would silently replace the first one's material.
    if (region_given[id]) rd.fail(id_node, fmt::format("region {} is given twice", id));
    region_given[id] = true;
    read_region(rd, *r, fmt::format("region {}", id), c.problem.regions[id]);
  }
}

void read_shapes(const TomlReader& rd, const toml::table& root, MicromagConfig& c) {
  for (const toml::table* s : rd.tables(root, "shape", "")) {
    rd.only_keys(*s, "shape", {"kind", "center", "size", "axis", "region", "subtract"});
    ShapeSpec sp;
    const auto kind = rd.choice(*s, "kind", "shape", {"box", "cylinder", "ellipsoid"});
    if (!kind) rd.fail(s, "'shape.kind' must be box, cylinder or ellipsoid");
    sp.kind = *kind;
    read_vector(rd, *s, "center", "shape", sp.center);
    const auto size = rd.vector(*s, "size", "shape", 3);
    if (!size) rd.fail(s, "'shape.size' = [x, y, z] (m) is required");
    sp.size = *size;
    for (double v : sp.size)
      if (!(v > 0)) rd.fail(s->get("size"), "'shape.size' must be positive");
    sp.axis = rd.choice(*s, "axis", "shape", {"x", "y", "z"}).value_or("z")[0] - 'x';
    read_integer(rd, *s, "region", "shape", 0, vacuum - 1, sp.region);
    sp.subtract = rd.boolean(*s, "subtract", "shape").value_or(sp.subtract);
    c.shapes.push_back(sp);
  }
}

void read_initial(const TomlReader& rd, const toml::table& i, const std::string& source_name,
                  MicromagConfig& c) {
  rd.only_keys(i, "initial",
               {"state", "direction", "seed", "circulation", "polarity", "core_radius", "file"});
  if (auto v =
          rd.choice(i, "state", "initial", {"uniform", "random", "vortex", "skyrmion", "file"}))
    c.initial.kind = *v;
  if (auto v = rd.string(i, "file", "initial")) c.initial.file = *v;
  if ((c.initial.kind == "file") != !c.initial.file.empty())
    rd.fail(&i, "'initial.file' (an OVF 2.0 file) goes with state = \"file\", and only with it");
  if (!c.initial.file.empty() && std::filesystem::path(c.initial.file).is_relative())
    c.initial.file = (std::filesystem::path(source_name).parent_path() / c.initial.file).string();
  if (auto v = rd.vector(i, "direction", "initial", 3)) {
    if (std::hypot((*v)[0], (*v)[1], (*v)[2]) == 0)
      rd.fail(i.get("direction"), "'initial.direction' must not be zero");
    c.initial.direction = *v;
  }
  read_integer(rd, i, "seed", "initial", INT_MIN, INT_MAX, c.initial.seed);
  read_integer(rd, i, "circulation", "initial", -1, 1, c.initial.circulation);
  read_integer(rd, i, "polarity", "initial", -1, 1, c.initial.polarity);
  read_number(rd, i, "core_radius", "initial", c.initial.core_radius);
  if (c.initial.core_radius < 0)
    rd.fail(i.get("core_radius"),
            fmt::format("'initial.core_radius' must not be negative (0: two cells), got {}",
                        c.initial.core_radius));
  if (std::abs(c.initial.circulation) != 1 || std::abs(c.initial.polarity) != 1)
    rd.fail(&i, "'initial.circulation' and 'initial.polarity' must be 1 or -1");
}

void read_solver(const TomlReader& rd, const toml::table& s, MicromagConfig& c) {
  rd.only_keys(s, "solver",
               {"method", "tolerance", "dt", "max_dt", "device", "precision", "fft",
                "relax_max_steps", "minimize_stop", "minimize_max_iterations", "thermal_seed"});
  if (auto method = rd.string(s, "method", "solver")) {
    try {
      c.stepper.method = parse_method(*method);
    } catch (const Error& e) {
      rd.fail(s.get("method"), fmt::format("'solver.method': {}", e.what()));
    }
  }
  read_number(rd, s, "tolerance", "solver", c.stepper.tolerance);
  read_number(rd, s, "dt", "solver", c.stepper.dt);
  read_number(rd, s, "max_dt", "solver", c.stepper.max_dt);
  if (!(c.stepper.tolerance > 0 && c.stepper.tolerance < 1))
    rd.fail(s.get("tolerance"),
            "'solver.tolerance' must be in (0, 1): |m| is 1, so an error bound of 1 or more "
            "would control nothing");
  if (!(c.stepper.dt > 0) || c.stepper.dt > 1e-9)
    rd.fail(s.get("dt"), "'solver.dt' must be in (0, 1e-9] s");
  if (!(c.stepper.max_dt >= c.stepper.dt))
    rd.fail(s.get("max_dt"), "'solver.max_dt' must be at least 'solver.dt'");
  if (auto v = rd.choice(s, "device", "solver", {"auto", "cpu", "cuda"})) c.device = *v;
  if (auto v = rd.choice(s, "precision", "solver", {"float", "double"})) c.precision = *v;
  if (auto v = rd.choice(s, "fft", "solver", {"auto", "skip", "plain", "fused"})) c.fft = *v;
  read_integer(rd, s, "relax_max_steps", "solver", 1, INT64_MAX, c.relax_max_steps);
  std::int64_t seed = 0;
  read_integer(rd, s, "thermal_seed", "solver", 0, INT64_MAX, seed);
  c.problem.thermal_seed = std::uint64_t(seed);
  read_number(rd, s, "minimize_stop", "solver", c.minimize_stop);
  read_integer(rd, s, "minimize_max_iterations", "solver", 1, INT64_MAX,
               c.minimize_max_iterations);
  if (c.minimize_stop < 0) rd.fail(s.get("minimize_stop"), "'solver.minimize_stop' must not be negative");
}

void read_output(const TomlReader& rd, const toml::table& o, MicromagConfig& c) {
  rd.only_keys(o, "output",
               {"dir", "table_interval", "snapshot_interval", "ovf", "hdf5", "plots", "fields"});
  if (auto v = rd.string(o, "dir", "output")) c.out = *v;
  read_number(rd, o, "table_interval", "output", c.table_interval);
  read_number(rd, o, "snapshot_interval", "output", c.snapshot_interval);
  c.ovf = rd.boolean(o, "ovf", "output").value_or(c.ovf);
  c.hdf5 = rd.boolean(o, "hdf5", "output").value_or(c.hdf5);
  c.plots = rd.boolean(o, "plots", "output").value_or(c.plots);
  if (auto v = rd.choices(o, "fields", "output", saved_field_names())) c.fields = *v;
  if (!(c.table_interval > 0))
    rd.fail(o.get("table_interval"), "'output.table_interval' must be positive");
  if (c.snapshot_interval < 0)
    rd.fail(o.get("snapshot_interval"), "'output.snapshot_interval' must not be negative");
}

void read_stages(const TomlReader& rd, const toml::table& root, MicromagConfig& c) {
  const auto stages = rd.tables(root, "stage", "");
  if (stages.empty() && c.scan_edge_lex.empty())
    rd.fail(nullptr, "at least one [[stage]] (kind = relax, minimize or run) is required");
  for (const toml::table* s : stages) {
    rd.only_keys(*s, "stage", {"kind", "time", "B", "until"});
    StageSpec st;
    const auto kind = rd.choice(*s, "kind", "stage", {"relax", "minimize", "run"});
    if (!kind) rd.fail(s, "'stage.kind' must be relax, minimize or run");
    st.kind = *kind;
    read_number(rd, *s, "time", "stage", st.time);
    if (auto until = rd.string(*s, "until", "stage")) {
      st.until = *until;
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
    if (auto b = formulas3(rd, *s, "B", "stage")) {
      st.field = *b;
      st.set_field = true;
    }
    c.stages.push_back(st);
  }
}

// Runs that could not end, or would bury the disk: the steps the run stages need at
// the smallest step the settings allow, and the table rows and snapshots they write.
void check_run_length(const TomlReader& rd, const MicromagConfig& c) {
  double run_time = 0;
  for (const StageSpec& st : c.stages)
    if (st.kind == "run") run_time += st.time;
  if (run_time <= 0) return;
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

}  // namespace

MicromagConfig parse_micromag_config(std::string_view toml_text, const std::string& source_name) {
  const TomlReader rd(toml_text, source_name);
  const toml::table& root = rd.root();
  MicromagConfig c;
  c.source = source_name;
  rd.only_keys(root, "",
               {"mesh", "material", "region", "shape", "initial", "field", "solver", "output",
                "stage", "scan"});
  if (const toml::table* sc = rd.table(root, "scan", "")) read_scan(rd, *sc, c);
  const toml::table* mesh = rd.table(root, "mesh", "");
  if (!mesh) rd.fail(nullptr, "a [mesh] with 'cells' and 'size' or 'cell_size' is required");
  read_mesh(rd, *mesh, c);
  read_regions(rd, root, c);
  read_shapes(rd, root, c);
  if (const toml::table* i = rd.table(root, "initial", "")) read_initial(rd, *i, source_name, c);
  if (const toml::table* f = rd.table(root, "field", "")) {
    rd.only_keys(*f, "field", {"B", "demag", "J"});
    if (auto b = formulas3(rd, *f, "B", "field")) c.field = *b;
    c.problem.demag = rd.boolean(*f, "demag", "field").value_or(c.problem.demag);
    if (auto j = rd.vector(*f, "J", "field", 3)) {
      for (double v : *j)
        if (std::abs(v) > 1e15)
          rd.fail(f->get("J"), "'field.J' beyond any current (|J| at most 1e15 A/m^2)");
      c.problem.current = *j;
    }
  }
  if (const toml::table* s = rd.table(root, "solver", "")) read_solver(rd, *s, c);
  if (const toml::table* o = rd.table(root, "output", "")) read_output(rd, *o, c);
  read_stages(rd, root, c);
  bool warm = false;
  for (const Region& r : c.problem.regions) warm = warm || (r.temp > 0 && r.ms > 0);
  if (warm && c.stepper.method != Method::heun)
    rd.fail(rd.table(root, "solver", ""),
            "a region has a temperature (Temp): the stochastic LLG runs with method = \"heun\" "
            "in fixed steps of solver.dt (the thermal field is drawn once a step)");
  check_run_length(rd, c);
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
    // The largest file a state of this mesh can be: three values a cell, as text of at
    // most 40 characters each, and a header.
    const std::uintmax_t limit = std::uintmax_t(cells) * 3 * 40 + (std::uintmax_t(1) << 16);
    std::array<std::vector<double>, 3> v = read_ovf2(c.initial.file, om, limit);
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
        } else if (c.initial.kind == "skyrmion") {
          // Neel skyrmion about the z axis through the mesh centre: the core along
          // `polarity` z, the background against it, the wall at the core radius (one cell
          // wide) turning radially (outwards for circulation 1).
          const double x = (i + 0.5 - 0.5 * m.n[0]) * m.cell[0];
          const double y = (j + 0.5 - 0.5 * m.n[1]) * m.cell[1];
          const double r = std::hypot(x, y);
          const double theta = 2 * std::atan(std::exp((core - r) / std::max(m.cell[0], m.cell[1])));
          const double phi = std::atan2(y, x);
          d[0] = c.initial.circulation * std::sin(theta) * std::cos(phi);
          d[1] = c.initial.circulation * std::sin(theta) * std::sin(phi);
          d[2] = -c.initial.polarity * std::cos(theta);
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
  return [ps, formulas](double t) {
    ps->t = t;
    std::array<double, 3> b{};
    for (int c = 0; c < 3; ++c) {
      b[c] = ps->is_constant[c] ? ps->constant[c] : ps->p[c].Eval();
      // A formula that grows past any lab field (exp(t*1e13)) would shrink the adaptive
      // step towards nothing: it is bad input, named where it happens.
      if (!(std::abs(b[c]) <= 1e4))
        throw Error(fmt::format("the field formula '{}' is {} T at t = {:.6g} s; a field must stay "
                                "finite and at most 1e4 T over the run",
                                formulas[c], b[c], t));
    }
    return b;
  };
}

}  // namespace gridsolve::micromag
