// Run configuration from TOML: schema checks whose messages point at the key and line.
#include "gridsolve/io/config.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/io/toml_reader.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {

namespace {

using Reader = TomlReader;

constexpr const char* axis_name[3] = {"x", "y", "z"};

Grid read_grid(const Reader& r, const toml::table& root) {
  const toml::table* grid = r.table(root, "grid", "");
  if (!grid)
    r.fail(nullptr, "missing [grid] table; it needs at least nodes = [nx, ny] or [nx, ny, nz]");
  r.only_keys(*grid, "grid", {"dims", "nodes", "lo", "hi"});
  const toml::node* nodes = grid->get("nodes");
  if (!nodes) r.fail(grid, "grid.nodes is missing; give the node count per axis, e.g. [129, 129]");

  int dims = 0;
  if (const auto d = r.integer(*grid, "dims", "grid", 2, 3)) {
    dims = int(*d);
  } else {
    const toml::array* a = nodes->as_array();
    if (!a || (a->size() != 2 && a->size() != 3))
      r.fail(nodes, fmt::format("grid.nodes must be an array of 2 or 3 node counts, got {}",
                                describe(*nodes)));
    dims = int(a->size());
  }

  const toml::array* a = r.sized_array(*nodes, "grid.nodes", dims, "node counts");
  std::array<int, 3> n{1, 1, 1};
  for (int i = 0; i < dims; ++i)
    n[i] =
        int(r.integer_value(*a->get(std::size_t(i)), fmt::format("grid.nodes[{}]", i), 3, 1 << 20));
  const std::array<double, 3> lo =
      r.vector(*grid, "lo", "grid", dims).value_or(std::array<double, 3>{0, 0, 0});
  const std::array<double, 3> hi =
      r.vector(*grid, "hi", "grid", dims).value_or(std::array<double, 3>{1, 1, 1});
  for (int i = 0; i < dims; ++i)
    if (!(hi[i] > lo[i]) || !std::isfinite(lo[i]) || !std::isfinite(hi[i]))
      r.fail(grid->get("hi") ? grid->get("hi") : grid,
             fmt::format("grid.hi must exceed grid.lo on every axis; on {}: lo = {}, hi = {}",
                         axis_name[i], lo[i], hi[i]));
  try {
    return Grid::box(dims, n, lo, hi);
  } catch (const Error& e) {
    r.fail(grid, fmt::format("[grid] {}", e.what()));
  }
}

void read_boundaries(const Reader& r, const toml::table& root, int dims, Boundaries& sides) {
  const toml::table* boundary = r.table(root, "boundary", "");
  if (!boundary) return;
  r.only_keys(*boundary, "boundary", {"x_low", "x_high", "y_low", "y_high", "z_low", "z_high"});
  for (int face = 0; face < 6; ++face) {
    const std::string name = face_name(face);
    const toml::table* t = r.table(*boundary, name, "boundary");
    if (!t) continue;
    const std::string path = "boundary." + name;
    if (face >= 2 * dims)
      r.fail(t, fmt::format("{}: a 2D grid has no z faces; valid faces: x_low, x_high, y_low, "
                            "y_high",
                            path));
    r.only_keys(*t, path, {"type", "value", "alpha"});
    BoundaryCondition bc;
    const std::string type =
        r.choice(*t, "type", path, {"dirichlet", "neumann", "robin", "periodic"})
            .value_or("dirichlet");
    bc.kind = parse_boundary_kind(type);
    if (bc.kind == BoundaryKind::periodic && t->get("value"))
      r.fail(t->get("value"),
             fmt::format("{}.value does not apply to a periodic side (it repeats the opposite "
                         "side); remove it",
                         path));
    bc.g = r.expression(*t, "value", path).value_or(Expression::value(0));
    const std::optional<double> alpha = r.number(*t, "alpha", path);
    if (bc.kind == BoundaryKind::robin) {
      if (!alpha)
        r.fail(t, fmt::format("{}.alpha is missing; robin sides need du/dn + alpha u = value with "
                              "alpha > 0",
                              path));
      if (!(*alpha > 0) || !std::isfinite(*alpha))
        r.fail(t->get("alpha"), fmt::format("{}.alpha must be positive, got {}", path, *alpha));
      bc.alpha = *alpha;
    } else if (alpha) {
      r.fail(t->get("alpha"),
             fmt::format("{}.alpha applies to robin sides only, this side is {}", path, type));
    }
    sides[face] = bc;
  }
}

void read_masks(const Reader& r, const toml::table& root, int dims,
                std::vector<MaskRegion>& regions) {
  const toml::node* node = root.get("mask");
  if (!node) return;
  const toml::array* boxes = node->as_array();
  if (!boxes)
    r.fail(node, fmt::format("mask must be a list of boxes written [[mask]] (double brackets), "
                             "got {}",
                             describe(*node)));
  for (std::size_t b = 0; b < boxes->size(); ++b) {
    const std::string path = fmt::format("mask[{}]", b);
    const toml::node& entry = *boxes->get(b);
    const toml::table* t = entry.as_table();
    if (!t)
      r.fail(&entry, fmt::format("{} must be a table with kind, lo, hi (and value), got {}", path,
                                 describe(entry)));
    r.only_keys(*t, path, {"kind", "lo", "hi", "value"});
    MaskRegion region;
    region.name = path;
    const std::optional<std::string> kind = r.choice(*t, "kind", path, {"fixed", "outside"});
    if (!kind) r.fail(t, fmt::format("{}.kind is missing; use \"fixed\" or \"outside\"", path));
    region.kind = *kind == "fixed" ? NodeKind::fixed : NodeKind::outside;
    const auto lo = r.vector(*t, "lo", path, dims);
    const auto hi = r.vector(*t, "hi", path, dims);
    if (!lo || !hi)
      r.fail(t, fmt::format("{}.{} is missing; a mask box needs lo and hi corners in physical "
                            "coordinates",
                            path, lo ? "hi" : "lo"));
    for (int a = 0; a < dims; ++a)
      if (!((*lo)[a] <= (*hi)[a]))
        r.fail(t, fmt::format("{}: lo must not exceed hi; on {}: lo = {}, hi = {}", path,
                              axis_name[a], (*lo)[a], (*hi)[a]));
    region.lo = *lo;
    region.hi = *hi;
    const std::optional<Expression> value = r.expression(*t, "value", path);
    if (region.kind == NodeKind::outside && value)
      r.fail(
          t->get("value"),
          fmt::format("{}.value applies to fixed boxes only; outside nodes have no value", path));
    if (value) region.value = *value;
    regions.push_back(region);
  }
}

void read_solver(const Reader& r, const toml::table& root, RunConfig& cfg) {
  const toml::table* t = r.table(root, "solver", "");
  if (!t) return;
  const std::string path = "solver";
  r.only_keys(
      *t, path,
      {"name", "tolerance", "rule", "max_iterations", "check_every", "omega", "weight", "device",
       "precision", "tuned", "cycle", "pre_smooth", "post_smooth", "smoother", "full_multigrid"});
  SolveSettings& s = cfg.solve;
  SolveOptions& o = s.options;
  if (auto v = r.string(*t, "name", path)) {
    try {
      find_solver(*v);
    } catch (const Error& e) {
      r.fail(t->get("name"), fmt::format("solver.name: {}", e.what()));
    }
    s.solver = *v;
  }
  MultigridOptions& mg = s.multigrid;
  if (auto v = r.choice(*t, "cycle", path, {"V", "W", "F"})) mg.cycle = parse_cycle(*v);
  if (auto v = r.integer(*t, "pre_smooth", path, 0, 100)) mg.pre_smooth = int(*v);
  if (auto v = r.integer(*t, "post_smooth", path, 0, 100)) mg.post_smooth = int(*v);
  if (auto v = r.choice(*t, "smoother", path, {"rb-gs", "jacobi", "line"}))
    mg.smoother = parse_smoother(*v);
  if (auto v = r.boolean(*t, "full_multigrid", path)) mg.full_multigrid = *v;
  if (auto v = r.number(*t, "tolerance", path)) s.tolerance = *v;
  if (auto v = r.choice(*t, "rule", path, {"residual", "update"}))
    o.rule = *v == "residual" ? StopRule::residual : StopRule::update;
  if (auto v = r.integer(*t, "max_iterations", path, 1, INT_MAX)) o.max_iterations = int(*v);
  if (auto v = r.integer(*t, "check_every", path, 0, INT_MAX)) o.check_every = int(*v);
  if (auto v = r.number(*t, "omega", path)) o.omega = *v;
  if (auto v = r.number(*t, "weight", path)) o.weight = *v;
  if (auto v = r.boolean(*t, "tuned", path)) o.tuned = *v;
  if (auto v = r.choice(*t, "device", path, {"auto", "cpu", "cuda"})) s.device = *v;
  if (auto v = r.choice(*t, "precision", path, {"double", "float"}))
    s.precision = parse_precision(*v);
}

}  // namespace

namespace {

RunConfig read_config(const Reader& r) {
  const toml::table& root = r.root();
  const std::string& source_name = r.file();
  if (root.contains("magnet"))  // a coil design, not a field problem: say where it goes
    throw Error(
        fmt::format("config '{}' describes a magnet design ([magnet]); run it with "
                    "'gridsolve magnet --config {}'",
                    source_name, source_name));
  r.only_keys(root, "",
              {"name", "grid", "equation", "boundary", "mask", "solver", "exact", "output"});

  RunConfig cfg;
  ProblemSpec& spec = cfg.spec;
  spec.name =
      r.string(root, "name", "").value_or(std::filesystem::path(source_name).stem().string());
  spec.grid = read_grid(r, root);
  const int dims = spec.grid.dims;

  if (const toml::table* eq = r.table(root, "equation", "")) {
    r.only_keys(*eq, "equation", {"k", "f"});
    if (auto k = r.expression(*eq, "k", "equation")) spec.k = *k;
    if (spec.k.is_constant() && !(spec.k.constant > 0 && std::isfinite(spec.k.constant)))
      r.fail(eq->get("k"), fmt::format("equation.k must be positive, got {}", spec.k.constant));
    if (auto f = r.expression(*eq, "f", "equation")) spec.f = *f;
  }
  read_boundaries(r, root, dims, spec.boundaries);
  read_masks(r, root, dims, spec.regions);
  read_solver(r, root, cfg);
  if (const toml::table* exact = r.table(root, "exact", "")) {
    r.only_keys(*exact, "exact", {"u"});
    spec.exact = r.expression(*exact, "u", "exact");
    if (!spec.exact) r.fail(exact, "exact.u is missing; give the exact solution as a formula");
  }
  if (const toml::table* output = r.table(root, "output", "")) {
    r.only_keys(*output, "output", {"dir"});
    cfg.out = r.string(*output, "dir", "output").value_or("");
    if (output->get("dir") && cfg.out.empty())
      r.fail(output->get("dir"), "output.dir must not be empty (use \".\" for the current folder)");
  }

  // The problem and solver layers own the rules on values; say which file broke them.
  try {
    spec.validate();
  } catch (const Error& e) {
    throw Error(fmt::format("config '{}': {}", source_name, e.what()));
  }
  try {
    if (cfg.solve.tolerance) cfg.solve.options.tolerance = *cfg.solve.tolerance;
    cfg.solve.options.validate();
    cfg.solve.multigrid.validate();
  } catch (const Error& e) {
    throw Error(fmt::format("config '{}': [solver] {}", source_name, e.what()));
  }
  return cfg;
}

}  // namespace

RunConfig parse_config(std::string_view toml_text, const std::string& source_name) {
  return read_config(Reader(toml_text, source_name));
}

RunConfig load_config(const std::string& path) {
  return read_config(Reader::from_file(path));
}

}  // namespace gridsolve
