// Tests of TOML problem files: the examples load, every key lands, bad files explain themselves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/io/config.hpp"

namespace fs = std::filesystem;
using namespace gridsolve;

namespace {

const std::string examples = std::string(GRIDSOLVE_SOURCE_DIR) + "/examples/";

// The message of the Error that parsing `text` throws ("" when none is thrown).
std::string error_of(const std::string& text, const std::string& name = "bad.toml") {
  try {
    parse_config(text, name);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    return e.what();
  }
  return "";
}

const std::string grid2 = "[grid]\nnodes = [9, 9]\n";

}  // namespace

TEST(ConfigExamples, HeatedLPlateLoads) {
  const RunConfig c = load_config(examples + "heated_l_plate.toml");
  const ProblemSpec& s = c.spec;
  EXPECT_EQ(s.name, "heated-l-plate");
  EXPECT_EQ(s.grid.dims, 2);
  EXPECT_EQ(s.grid.n[0], 161);
  EXPECT_EQ(s.grid.n[1], 161);
  EXPECT_DOUBLE_EQ(s.grid.spacing[0], 1.0 / 160);
  EXPECT_EQ(s.boundaries[x_low].kind, BoundaryKind::dirichlet);
  EXPECT_DOUBLE_EQ(s.boundaries[x_low].g(0, 0.3, 0), 20.0);
  EXPECT_EQ(s.boundaries[x_high].kind, BoundaryKind::robin);
  EXPECT_DOUBLE_EQ(s.boundaries[x_high].alpha, 5.0);
  EXPECT_EQ(s.boundaries[y_high].kind, BoundaryKind::neumann);
  ASSERT_EQ(s.regions.size(), 2u);
  EXPECT_EQ(s.regions[0].kind, NodeKind::outside);
  EXPECT_EQ(s.regions[1].kind, NodeKind::fixed);
  EXPECT_DOUBLE_EQ(s.regions[1].value(0.25, 0.25, 0), 100.0);
  EXPECT_EQ(c.solve.solver, "sor");
  EXPECT_EQ(c.out, "out/heated_l_plate");
  EXPECT_FALSE(s.exact.has_value());
}

TEST(ConfigExamples, Poisson3dRobinLoads) {
  const RunConfig c = load_config(examples + "poisson_3d_robin.toml");
  const ProblemSpec& s = c.spec;
  EXPECT_EQ(s.grid.dims, 3);
  EXPECT_EQ(s.grid.n[2], 97);
  EXPECT_DOUBLE_EQ(s.grid.length(2), 2.0);
  EXPECT_FALSE(s.k.is_constant());
  EXPECT_DOUBLE_EQ(s.k(1, 1, 0), 1.5);
  EXPECT_FALSE(s.f.is_constant());
  EXPECT_NEAR(s.f(0.5, 0.5, 1), 100.0, 1e-12);
  EXPECT_EQ(s.boundaries[y_high].kind, BoundaryKind::neumann);
  EXPECT_EQ(s.boundaries[z_low].kind, BoundaryKind::robin);
  EXPECT_EQ(s.boundaries[z_high].kind, BoundaryKind::robin);
  EXPECT_DOUBLE_EQ(s.boundaries[z_high].g(1, 0, 2), 0.2);
  EXPECT_DOUBLE_EQ(*c.solve.tolerance, 1e-7);
}

TEST(ConfigExamples, PeriodicChannelLoads) {
  const RunConfig c = load_config(examples + "poisson_periodic_channel.toml");
  const ProblemSpec& s = c.spec;
  EXPECT_EQ(s.boundaries[x_low].kind, BoundaryKind::periodic);
  EXPECT_EQ(s.boundaries[x_high].kind, BoundaryKind::periodic);
  EXPECT_EQ(s.boundaries[y_low].kind, BoundaryKind::dirichlet);
  EXPECT_EQ(c.solve.solver, "mgcg");
}

TEST(ConfigExamples, DocumentedCompleteExampleLoads) {
  // The complete example in docs/config.md must stay loadable.
  std::ifstream in(std::string(GRIDSOLVE_SOURCE_DIR) + "/docs/config.md");
  ASSERT_TRUE(in) << "docs/config.md";
  std::string line, toml;
  bool in_example = false, seen = false;
  while (std::getline(in, line)) {
    if (line == "## A complete example") seen = true;
    if (seen && line == "```toml") {
      in_example = true;
      continue;
    }
    if (in_example && line == "```") break;
    if (in_example) toml += line + "\n";
  }
  ASSERT_FALSE(toml.empty());
  const RunConfig c = parse_config(toml, "docs/config.md");
  EXPECT_TRUE(c.spec.exact.has_value());
  EXPECT_DOUBLE_EQ(*c.solve.tolerance, 1e-10);
}

TEST(ConfigKeys, EveryKeyLands) {
  const RunConfig c = parse_config(R"(
name = "all-keys"
[grid]
dims = 3
nodes = [5, 6, 7]
lo = [-1, 0, 2]
hi = [1, 0.5, 3.5]
[equation]
k = "1 + x*y"
f = 2.5
[boundary.x_low]
type = "neumann"
value = "y"
[boundary.z_high]
type = "robin"
alpha = 3
value = 1
[[mask]]
kind = "outside"
lo = [0, 0, 2]
hi = [1, 0.25, 3]
[[mask]]
kind = "fixed"
lo = [-1, 0, 2]
hi = [-0.5, 0.5, 2.5]
value = "x + z"
[solver]
name = "jacobi"
tolerance = 1e-6
rule = "update"
max_iterations = 1e5
check_every = 10
omega = 1.5
weight = 0.8
tuned = false
device = "cpu"
precision = "float"
[exact]
u = "x*y*z"
[output]
dir = "results"
)",
                                   "all.toml");
  const ProblemSpec& s = c.spec;
  EXPECT_EQ(s.name, "all-keys");
  EXPECT_EQ(s.grid.dims, 3);
  EXPECT_EQ(s.grid.n, (std::array<int, 3>{5, 6, 7}));
  EXPECT_DOUBLE_EQ(s.grid.origin[0], -1);
  EXPECT_DOUBLE_EQ(s.grid.spacing[0], 0.5);
  EXPECT_DOUBLE_EQ(s.grid.spacing[1], 0.1);
  EXPECT_DOUBLE_EQ(s.grid.spacing[2], 0.25);
  EXPECT_DOUBLE_EQ(s.k(2, 3, 0), 7);
  EXPECT_TRUE(s.f.is_constant());
  EXPECT_DOUBLE_EQ(s.f.constant, 2.5);
  EXPECT_EQ(s.boundaries[x_low].kind, BoundaryKind::neumann);
  EXPECT_DOUBLE_EQ(s.boundaries[x_low].g(0, 0.4, 0), 0.4);
  EXPECT_EQ(s.boundaries[x_high].kind, BoundaryKind::dirichlet);  // missing: Dirichlet 0
  EXPECT_DOUBLE_EQ(s.boundaries[x_high].g(1, 1, 1), 0);
  EXPECT_EQ(s.boundaries[z_high].kind, BoundaryKind::robin);
  EXPECT_DOUBLE_EQ(s.boundaries[z_high].alpha, 3);
  ASSERT_EQ(s.regions.size(), 2u);
  EXPECT_EQ(s.regions[0].kind, NodeKind::outside);
  EXPECT_DOUBLE_EQ(s.regions[0].hi[1], 0.25);
  EXPECT_EQ(s.regions[1].kind, NodeKind::fixed);
  EXPECT_DOUBLE_EQ(s.regions[1].value(1, 0, 2), 3);
  ASSERT_TRUE(s.exact.has_value());
  EXPECT_DOUBLE_EQ((*s.exact)(1, 2, 3), 6);
  EXPECT_EQ(c.solve.solver, "jacobi");
  EXPECT_DOUBLE_EQ(*c.solve.tolerance, 1e-6);
  EXPECT_EQ(c.solve.options.rule, StopRule::update);
  EXPECT_EQ(c.solve.options.max_iterations, 100000);
  EXPECT_EQ(c.solve.options.check_every, 10);
  EXPECT_DOUBLE_EQ(c.solve.options.omega, 1.5);
  EXPECT_DOUBLE_EQ(c.solve.options.weight, 0.8);
  EXPECT_FALSE(c.solve.options.tuned);
  EXPECT_EQ(c.solve.device, "cpu");
  EXPECT_EQ(c.solve.precision, Precision::fp32);
  EXPECT_EQ(c.out, "results");
}

TEST(ConfigKeys, DefaultsForAMinimalFile) {
  const RunConfig c = parse_config(grid2, "dir/minimal.toml");
  EXPECT_EQ(c.spec.name, "minimal");
  EXPECT_EQ(c.spec.grid.dims, 2);
  EXPECT_DOUBLE_EQ(c.spec.grid.spacing[0], 0.125);
  EXPECT_DOUBLE_EQ(c.spec.k.constant, 1);
  EXPECT_DOUBLE_EQ(c.spec.f.constant, 0);
  for (int f = 0; f < 4; ++f) EXPECT_EQ(c.spec.boundaries[f].kind, BoundaryKind::dirichlet);
  EXPECT_EQ(c.solve.solver, "sor");
  EXPECT_EQ(c.solve.device, "auto");
  EXPECT_EQ(c.solve.precision, Precision::fp64);
  EXPECT_TRUE(c.out.empty());
  EXPECT_EQ(c.solve.options.rule, StopRule::residual);
}

TEST(ConfigErrors, MissingFileNamesTheFileAndTheReason) {
  const std::string path = (fs::temp_directory_path() / "gridsolve_no_such_config.toml").string();
  try {
    load_config(path);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
    EXPECT_EQ(std::string(e.what()),
              "cannot read config '" + path + "': No such file or directory");
  }
  const std::string dir = fs::temp_directory_path().string();
  EXPECT_THROW(load_config(dir), Error);
}

TEST(ConfigErrors, BadFileOnDiskNamesTheFile) {
  std::random_device rd;
  const fs::path path =
      fs::temp_directory_path() / ("gridsolve_bad_" + std::to_string(rd()) + ".toml");
  std::ofstream(path) << grid2 << "[solver]\ntolerence = 1e-9\n";
  std::string message;
  try {
    load_config(path.string());
  } catch (const Error& e) {
    message = e.what();
  }
  fs::remove(path);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
  EXPECT_NE(message.find("solver.tolerence"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'tolerance'"), std::string::npos) << message;
}

struct BadConfig {
  const char* what;
  std::string text;
  std::vector<std::string> expected;  // substrings of the message
};

TEST(ConfigErrors, EachMistakeIsNamed) {
  const std::vector<BadConfig> cases = {
      {"toml syntax",
       grid2 + "[solver]\ntolerance = = 3\n",
       {"bad.toml", "line 4", "column", "syntax"}},
      {"unknown table", grid2 + "[solvr]\nname = \"sor\"\n", {"'solvr'", "top level", "solver"}},
      {"unknown top-level key", "colour = 3\n" + grid2, {"unknown key 'colour'", "top level"}},
      {"unknown key",
       grid2 + "[solver]\nmax_iter = 10\n",
       {"solver.max_iter", "did you mean 'max_iterations'"}},
      {"unknown grid key", "[grid]\nnodes = [9, 9]\nspacing = 0.1\n", {"grid.spacing"}},
      {"missing grid", "[solver]\nname = \"sor\"\n", {"[grid]"}},
      {"missing nodes", "[grid]\ndims = 2\n", {"grid.nodes"}},
      {"grid not a table", "grid = 3\n", {"'grid' must be a table"}},
      {"wrong type",
       grid2 + "[solver]\ntolerance = \"tight\"\n",
       {"solver.tolerance", "must be a number", "\"tight\""}},
      {"wrong type integer",
       grid2 + "[solver]\nmax_iterations = 1.5\n",
       {"solver.max_iterations", "integer"}},
      {"wrong type bool", grid2 + "[solver]\ntuned = 1\n", {"solver.tuned", "true or false"}},
      {"nodes length", "[grid]\ndims = 2\nnodes = [9, 9, 9]\n", {"grid.nodes", "3 values", "2D"}},
      {"lo length", "[grid]\nnodes = [9, 9, 9]\nlo = [0, 0]\n", {"grid.lo", "3D"}},
      {"nodes type", "[grid]\nnodes = [9, \"9\"]\n", {"grid.nodes[1]", "integer"}},
      {"too few nodes", "[grid]\nnodes = [2, 9]\n", {"grid.nodes[0]", "[3,"}},
      {"bad dims", "[grid]\ndims = 4\nnodes = [9, 9]\n", {"grid.dims", "[2, 3]"}},
      {"hi below lo", "[grid]\nnodes = [9, 9]\nlo = [0, 1]\nhi = [1, 0]\n", {"grid.hi", "on y"}},
      {"boundary type",
       grid2 + "[boundary.x_low]\ntype = \"fixed\"\n",
       {"boundary.x_low.type", "dirichlet, neumann, robin, periodic", "'fixed'"}},
      {"value on a periodic side",
       grid2 + "[boundary.x_low]\ntype = \"periodic\"\nvalue = 1\n",
       {"boundary.x_low.value", "does not apply to a periodic side"}},
      {"boundary face",
       grid2 + "[boundary.x_lo]\ntype = \"neumann\"\n",
       {"boundary.x_lo", "did you mean 'x_low'"}},
      {"z face in 2D", grid2 + "[boundary.z_low]\ntype = \"neumann\"\n", {"boundary.z_low", "2D"}},
      {"robin without alpha",
       grid2 + "[boundary.y_high]\ntype = \"robin\"\n",
       {"boundary.y_high.alpha", "robin"}},
      {"robin negative alpha",
       grid2 + "[boundary.y_high]\ntype = \"robin\"\nalpha = -1\n",
       {"boundary.y_high.alpha", "positive"}},
      {"alpha on dirichlet",
       grid2 + "[boundary.y_high]\nalpha = 2\n",
       {"boundary.y_high.alpha", "robin sides only"}},
      {"boundary key", grid2 + "[boundary.y_high]\nvalu = 2\n", {"boundary.y_high.valu", "value"}},
      {"malformed formula",
       grid2 + "[equation]\nf = \"sin(pi*x\"\n",
       {"equation.f", "malformed formula", "sin(pi*x"}},
      {"unknown variable", grid2 + "[equation]\nk = \"1 + t\"\n", {"equation.k", "x, y, z"}},
      {"empty formula", grid2 + "[equation]\nf = \"\"\n", {"equation.f", "empty"}},
      {"formula type", grid2 + "[equation]\nf = [1]\n", {"equation.f", "number or a formula"}},
      {"boundary formula",
       grid2 + "[boundary.x_high]\nvalue = \"2*\"\n",
       {"boundary.x_high.value", "malformed"}},
      {"negative k", grid2 + "[equation]\nk = -1\n", {"line 4", "equation.k must be positive"}},
      {"mask as table", grid2 + "[mask]\nkind = \"fixed\"\n", {"mask", "[[mask]]"}},
      {"mask kind",
       grid2 + "[[mask]]\nkind = \"hot\"\nlo = [0, 0]\nhi = [1, 1]\n",
       {"mask[0].kind", "fixed, outside"}},
      {"mask missing kind", grid2 + "[[mask]]\nlo = [0, 0]\nhi = [1, 1]\n", {"mask[0].kind"}},
      {"mask missing hi", grid2 + "[[mask]]\nkind = \"fixed\"\nlo = [0, 0]\n", {"mask[0].hi"}},
      {"mask length",
       grid2 + "[[mask]]\nkind = \"fixed\"\nlo = [0, 0, 0]\nhi = [1, 1]\n",
       {"mask[0].lo", "3 values"}},
      {"mask lo above hi",
       grid2 + "[[mask]]\nkind = \"fixed\"\nlo = [0, 0]\nhi = [1, 1]\n[[mask]]\nkind = "
               "\"outside\"\nlo = [0.5, 0]\nhi = [0.2, 1]\n",
       {"mask[1]", "on x"}},
      {"outside with value",
       grid2 + "[[mask]]\nkind = \"outside\"\nlo = [0, 0]\nhi = [1, 1]\nvalue = 3\n",
       {"mask[0].value", "fixed boxes only"}},
      {"mask key",
       grid2 + "[[mask]]\nkind = \"fixed\"\nlo = [0, 0]\nhi = [1, 1]\nvalues = 3\n",
       {"mask[0].values", "in mask[0]"}},
      {"solver name",
       grid2 + "[solver]\nname = \"multigrd\"\n",
       {"solver.name", "jacobi, gauss-seidel, sor, rb-gs", "'multigrd'",
        "did you mean 'multigrid'"}},
      {"stop rule", grid2 + "[solver]\nrule = \"residul\"\n", {"solver.rule", "residual, update"}},
      {"device", grid2 + "[solver]\ndevice = \"gpu\"\n", {"solver.device", "auto, cpu, cuda"}},
      {"precision",
       grid2 + "[solver]\nprecision = \"half\"\n",
       {"solver.precision", "double, float"}},
      {"omega range", grid2 + "[solver]\nomega = 2.3\n", {"bad.toml", "[solver]", "omega", "2.3"}},
      {"tolerance range", grid2 + "[solver]\ntolerance = 0\n", {"[solver]", "tolerance"}},
      {"max iterations range",
       grid2 + "[solver]\nmax_iterations = 0\n",
       {"solver.max_iterations", "[1,"}},
      {"exact missing u", grid2 + "[exact]\n", {"exact.u"}},
      {"exact key", grid2 + "[exact]\nsolution = \"x\"\n", {"exact.solution", "valid keys: u"}},
      {"output key", grid2 + "[output]\nfolder = \"x\"\n", {"output.folder", "dir"}},
      {"output type", grid2 + "[output]\ndir = 3\n", {"output.dir", "string"}},
  };
  for (const BadConfig& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string message = error_of(c.text);
    ASSERT_FALSE(message.empty()) << "no error for:\n" << c.text;
    EXPECT_NE(message.find("bad.toml"), std::string::npos) << message;
    for (const std::string& part : c.expected)
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}
