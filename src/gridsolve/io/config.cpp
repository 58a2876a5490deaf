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
#include <toml++/toml.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {

namespace {

using Names = std::vector<std::string>;

constexpr const char* axis_name[3] = {"x", "y", "z"};

std::string join_key(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

// The value as the user wrote it, so "expected a number, got a string (\"1e-8\")"
// shows what to change.
std::string describe(const toml::node& n) {
  if (const auto* s = n.as_string()) return fmt::format("a string (\"{}\")", s->get());
  if (const auto* i = n.as_integer()) return fmt::format("an integer ({})", i->get());
  if (const auto* f = n.as_floating_point()) return fmt::format("a float ({})", f->get());
  if (const auto* b = n.as_boolean()) return fmt::format("a boolean ({})", b->get());
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  return "a date or time";
}

// Levenshtein distance, for "did you mean" hints on misspelt keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Typed access to a parsed document. Every failure throws Error naming the file, the
// full key (e.g. "solver.tolerance") and the line the value sits on.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node* at, const std::string& message) const {
    if (at && at->source().begin.line > 0)
      throw Error(fmt::format("config '{}', line {}: {}", file_, at->source().begin.line, message));
    throw Error(fmt::format("config '{}': {}", file_, message));
  }

  // Typos must fail loudly: an ignored "tolerence" would silently run with the default.
  void only_keys(const toml::table& t, const std::string& path, Names allowed) const {
    for (const auto& [key, node] : t) {
      const std::string_view k = key.str();
      if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
      std::string_view best;
      std::size_t best_distance = 3;  // farther than this is not a typo but another word
      for (std::string_view a : allowed) {
        const std::size_t d = edit_distance(k, a);
        if (d < best_distance) best_distance = d, best = a;
      }
      // Abbreviations ("max_iter") are far in edit distance but obvious as prefixes.
      if (best.empty() && k.size() >= 3)
        for (std::string_view a : allowed)
          if (a.substr(0, k.size()) == k) best = a;
      const std::string where = path.empty()                          ? "at the top level"
                                : path.find('[') != std::string::npos ? "in " + path
                                                                      : "in [" + path + "]";
      fail(&node, fmt::format("unknown key '{}' {}{}; valid keys: {}", join_key(path, k), where,
                              best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best),
                              fmt::join(allowed, ", ")));
    }
  }

  const toml::table* table(const toml::table& parent, std::string_view key,
                           const std::string& path) const {
    const toml::node* n = parent.get(key);
    if (!n) return nullptr;
    if (!n->is_table())
      fail(n, fmt::format("'{0}' must be a table ([{0}]), got {1}", join_key(path, key),
                          describe(*n)));
    return n->as_table();
  }

  std::optional<double> number(const toml::table& t, std::string_view key,
                               const std::string& path) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    return number_value(*n, join_key(path, key));
  }

  double number_value(const toml::node& n, const std::string& name) const {
    if (const auto* i = n.as_integer()) return double(i->get());
    if (const auto* f = n.as_floating_point()) return f->get();
    fail(&n, fmt::format("{} must be a number, got {}", name, describe(n)));
  }

  // Integral floats (1e5) are accepted: people write iteration counts that way.
  std::optional<std::int64_t> integer(const toml::table& t, std::string_view key,
                                      const std::string& path, std::int64_t lo,
                                      std::int64_t hi) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    return integer_value(*n, join_key(path, key), lo, hi);
  }

  std::int64_t integer_value(const toml::node& n, const std::string& name, std::int64_t lo,
                             std::int64_t hi) const {
    std::optional<std::int64_t> v;
    if (const auto* i = n.as_integer()) v = i->get();
    if (const auto* f = n.as_floating_point()) {
      const double d = f->get();
      if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e18) v = std::int64_t(d);
    }
    if (!v) fail(&n, fmt::format("{} must be an integer, got {}", name, describe(n)));
    if (*v < lo || *v > hi)
      fail(&n, fmt::format("{} must be in [{}, {}], got {}", name, lo, hi, *v));
    return *v;
  }

  std::optional<std::string> string(const toml::table& t, std::string_view key,
                                    const std::string& path) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const auto* s = n->as_string();
    if (!s) fail(n, fmt::format("{} must be a string, got {}", join_key(path, key), describe(*n)));
    return s->get();
  }

  std::optional<std::string> choice(const toml::table& t, std::string_view key,
                                    const std::string& path, const Names& choices) const {
    std::optional<std::string> s = string(t, key, path);
    if (s && std::find(choices.begin(), choices.end(), *s) == choices.end())
      fail(t.get(key), fmt::format("{} must be one of {}; got '{}'", join_key(path, key),
                                   fmt::join(choices, ", "), *s));
    return s;
  }

  std::optional<bool> boolean(const toml::table& t, std::string_view key,
                              const std::string& path) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const auto* b = n->as_boolean();
    if (!b)
      fail(n, fmt::format("{} must be true or false, got {}", join_key(path, key), describe(*n)));
    return b->get();
  }

  // A number or a formula string in x, y, z.
  std::optional<Expression> expression(const toml::table& t, std::string_view key,
                                       const std::string& path) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const std::string name = join_key(path, key);
    if (n->is_integer() || n->is_floating_point()) return Expression::value(number_value(*n, name));
    const auto* s = n->as_string();
    if (!s)
      fail(n, fmt::format("{} must be a number or a formula string in x, y, z (e.g. \"1 + x*y\"), "
                          "got {}",
                          name, describe(*n)));
    if (s->get().find_first_not_of(" \t") == std::string::npos)
      fail(n, fmt::format("{} is an empty formula; give a number or a formula in x, y, z", name));
    try {
      return Expression::parse(s->get());
    } catch (const Error& e) {
      fail(n, fmt::format("{}: {}", name, e.what()));
    }
  }

  // One number per axis: x, y (, z).
  std::optional<std::array<double, 3>> vector(const toml::table& t, std::string_view key,
                                              const std::string& path, int dims) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const toml::array* a = sized_array(*n, join_key(path, key), dims, "numbers");
    std::array<double, 3> v{0, 0, 0};
    for (int i = 0; i < dims; ++i)
      v[i] = number_value(*a->get(std::size_t(i)), fmt::format("{}[{}]", join_key(path, key), i));
    return v;
  }

  const toml::array* sized_array(const toml::node& n, const std::string& name, int dims,
                                 const char* what) const {
    const toml::array* a = n.as_array();
    if (!a)
      fail(&n, fmt::format("{} must be an array of {} {} (one per axis), got {}", name, dims, what,
                           describe(n)));
    if (int(a->size()) != dims)
      fail(&n, fmt::format("{} has {} values; a {}D grid needs {} (one per axis)", name, a->size(),
                           dims, dims));
    return a;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

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
        r.choice(*t, "type", path, {"dirichlet", "neumann", "robin"}).value_or("dirichlet");
    bc.kind = parse_boundary_kind(type);
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
  SolveOptions& o = cfg.options;
  if (auto v = r.choice(*t, "name", path, solver_names())) cfg.solver = *v;
  MultigridOptions& mg = cfg.multigrid;
  if (auto v = r.choice(*t, "cycle", path, {"V", "W", "F"})) mg.cycle = *v;
  if (auto v = r.integer(*t, "pre_smooth", path, 0, 100)) mg.pre_smooth = int(*v);
  if (auto v = r.integer(*t, "post_smooth", path, 0, 100)) mg.post_smooth = int(*v);
  if (auto v = r.choice(*t, "smoother", path, {"rb-gs", "jacobi"})) mg.smoother = *v;
  if (auto v = r.boolean(*t, "full_multigrid", path)) mg.full_multigrid = *v;
  if (auto v = r.number(*t, "tolerance", path)) o.tolerance = *v;
  if (auto v = r.choice(*t, "rule", path, {"residual", "update"}))
    o.rule = *v == "residual" ? StopRule::residual : StopRule::update;
  if (auto v = r.integer(*t, "max_iterations", path, 1, INT_MAX)) o.max_iterations = int(*v);
  if (auto v = r.integer(*t, "check_every", path, 0, INT_MAX)) o.check_every = int(*v);
  if (auto v = r.number(*t, "omega", path)) o.omega = *v;
  if (auto v = r.number(*t, "weight", path)) o.weight = *v;
  if (auto v = r.boolean(*t, "tuned", path)) o.tuned = *v;
  if (auto v = r.choice(*t, "device", path, {"auto", "cpu", "cuda"})) cfg.device = *v;
  if (auto v = r.choice(*t, "precision", path, {"double", "float"})) cfg.precision = *v;
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("cannot read config '{}': it is a directory, not a file", path));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw Error(
        fmt::format("cannot read config '{}': {}", path, std::generic_category().message(errno)));
  std::string text;
  char buffer[8192];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, got);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed)
    throw Error(
        fmt::format("cannot read config '{}': {}", path, std::generic_category().message(err)));
  return text;
}

}  // namespace

RunConfig parse_config(std::string_view toml_text, const std::string& source_name) {
  const Reader r(source_name);
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("config '{}', line {}, column {}: TOML syntax error: {}", source_name,
                            e.source().begin.line, e.source().begin.column, e.description()));
  }
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
    cfg.options.validate();
    cfg.multigrid.validate();
  } catch (const Error& e) {
    throw Error(fmt::format("config '{}': [solver] {}", source_name, e.what()));
  }
  return cfg;
}

RunConfig load_config(const std::string& path) {
  return parse_config(read_text_file(path), path);
}

}  // namespace gridsolve
