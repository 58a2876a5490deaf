// Bad input refused at its root, each case once (the command-line side of the same
// defects is replayed by scripts/fuzz.sh from tests/fuzz/).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "gridsolve/apps/heat/heat_plate.hpp"
#include "gridsolve/apps/flow/flow_config.hpp"
#include "gridsolve/apps/magnet/magnet_config.hpp"
#include "gridsolve/apps/micromag/micromag_config.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/config.hpp"
#include "gridsolve/io/toml_reader.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/expression.hpp"
#include "gridsolve/solve/solve_settings.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::invalid_input) << e.what();
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string grid17 = "[grid]\nnodes = [17, 17]\n";

ProblemSpec plate(int n = 17) {
  ProblemSpec s;
  s.grid = Grid::unit(2, n);
  s.f = Expression::value(1);
  return s;
}

// The formula constant e was documented but refused ("Unexpected token").
TEST(BadInputFormulas, ConstantEIsDefined) {
  EXPECT_NEAR(Expression::parse("e")(0, 0, 0), std::numbers::e, 1e-15);
  EXPECT_NEAR(Expression::parse("e*x")(2, 0, 0), 2 * std::numbers::e, 1e-14);
  EXPECT_NEAR(Expression::parse("2e-3 + x")(1, 0, 0), 1.002, 1e-15);  // exponents stay numbers
  EXPECT_NEAR(Expression::parse("_e")(0, 0, 0), std::numbers::e, 1e-15);
}

// k = "5/2" counted as variable, so the direct solvers refused the problem.
TEST(BadInputFormulas, ConstantFormulasAreConstants) {
  const Expression k = Expression::parse("5/2");
  ASSERT_TRUE(k.is_constant());
  EXPECT_DOUBLE_EQ(k.constant, 2.5);
  EXPECT_EQ(k.text, "5/2");
  EXPECT_FALSE(Expression::parse("5/2 + 0*x").is_constant());
  ProblemSpec s = plate();
  s.k = k;
  Discretization<double> d = assemble<double>(s, Device::cpu);
  EXPECT_DOUBLE_EQ(d.op.k_constant, 2.5);
  for (const char* name : {"fft", "buneman"}) {
    Discretization<double> dd = assemble<double>(s, Device::cpu);
    const SolveReport r = make_solver<double>(name)->solve(dd.op, dd.u, SolveOptions{});
    EXPECT_TRUE(r.converged) << name << ": " << r.reason;
  }
}

// "1,5" and "x = 5" ran as f = 5.
TEST(BadInputFormulas, OneExpressionOnly) {
  EXPECT_TRUE(contains(message_of([] { Expression::parse("1,5"); }), "comma-separated"));
  EXPECT_TRUE(contains(message_of([] { Expression::parse("x = 5"); }), "'=' assigns"));
  EXPECT_TRUE(contains(message_of([] { Expression::parse("y=x"); }), "'=' assigns"));
  EXPECT_NO_THROW(Expression::parse("min(1, 2*x)"));
  EXPECT_NO_THROW(Expression::parse("(x <= 0.5) + (y >= 0.5) + (x == y) + (x != 1)"));
}

// A deeply nested key crashed the parser (SIGSEGV in its recursion).
TEST(BadInputToml, NestingIsBoundedBeforeParsing) {
  std::string deep;
  for (int i = 0; i < 40000; ++i) deep += "a.";
  deep += "a = 1\n";
  EXPECT_TRUE(contains(message_of([&] { parse_config(deep, "deep.toml"); }), "nested deeper"));
  EXPECT_TRUE(contains(message_of([&] { magnet::parse_magnet_config(deep, "deep.toml"); }),
                       "nested deeper"));
  std::string arrays = "x = " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  EXPECT_TRUE(contains(message_of([&] { parse_config(arrays, "deep.toml"); }), "nested deeper"));
  // Dots inside strings and numbers are not nesting.
  std::string fine =
      "name = \"" + std::string(500, '.') + "\"\n" + grid17 + "[equation]\nf = 1.5\n";
  EXPECT_NO_THROW(parse_config(fine, "fine.toml"));
}

// solve /dev/zero read 16 GB; a FIFO without a writer blocked every reader forever.
// Only regular files of a plausible size are read, and the rest refused before a byte.
TEST(BadInputToml, OnlyRegularFilesOfAPlausibleSizeAreRead) {
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(contains(message_of([] { load_config("/dev/zero"); }), "a character device"));
  EXPECT_TRUE(
      contains(message_of([] { magnet::load_magnet_config("/dev/urandom"); }), "character device"));
  EXPECT_TRUE(contains(message_of([] { magnet::load_magnet_config("/"); }), "directory"));
  EXPECT_TRUE(contains(message_of([] { load_config(""); }), "empty"));
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gridsolve_inputs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "pipe.toml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(contains(message_of([&] { load_config(fifo); }), "a FIFO (named pipe)"));
  EXPECT_TRUE(contains(message_of([&] { micromag::load_micromag_config(fifo); }), "FIFO"));
  EXPECT_TRUE(contains(message_of([&] { flow::load_flow_config(fifo); }), "FIFO"));
  EXPECT_TRUE(contains(message_of([&] { magnet::load_magnet_config(fifo); }), "FIFO"));
  const std::string big = (dir / "big.toml").string();
  std::ofstream(big) << std::string(TomlReader::max_bytes + 1, '#');
  EXPECT_TRUE(contains(message_of([&] { load_config(big); }), "more than the 1048576 bytes such a file can have"));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  std::filesystem::remove_all(dir);
}

// max_iterations = 1e5 was accepted by solve and refused by magnet: one reader now.
TEST(BadInputToml, SameTypesAcceptedByEveryCommand) {
  const RunConfig c = parse_config(grid17 + "[solver]\nmax_iterations = 1e5\n", "a.toml");
  EXPECT_EQ(c.solve.options.max_iterations, 100000);
  const magnet::MagnetConfig m =
      magnet::parse_magnet_config("[solver]\nmax_iterations = 1e5\n", "m.toml");
  EXPECT_EQ(m.solve.options.max_iterations, 100000);
  EXPECT_TRUE(
      contains(message_of([] { magnet::parse_magnet_config("[magnet]\nwirse = 3\n", "m"); }),
               "did you mean 'wires'"));
  EXPECT_TRUE(
      contains(message_of([] { parse_config(grid17 + "[solver]\nname = \"sorr\"\n", "a"); }),
               "did you mean 'sor'"));
}

// The multigrid smoother: "line" is one of the choices; a near miss names the key and them.
TEST(BadInputToml, SmootherChoicesIncludeLines) {
  const RunConfig c =
      parse_config(grid17 + "[solver]\nname = \"mg\"\nsmoother = \"line\"\n", "l.toml");
  EXPECT_EQ(c.solve.multigrid.smoother, Smoother::line);
  const std::string m = message_of(
      [] { parse_config(grid17 + "[solver]\nname = \"mg\"\nsmoother = \"lines\"\n", "l"); });
  EXPECT_TRUE(contains(m, "smoother")) << m;
  EXPECT_TRUE(contains(m, "line")) << m;
}

// precision = "float" without a tolerance kept double's 1e-8 and stagnated.
TEST(BadInputSolve, FloatFileTakesTheFloatDefaultTolerance) {
  const RunConfig c =
      parse_config(grid17 + "[solver]\nname = \"sor\"\nprecision = \"float\"\n", "f.toml");
  SolveSettings s = c.solve;
  s.device = "cpu";
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, find_solver("sor").tolerance_fp32);
  const RunConfig given =
      parse_config(grid17 + "[solver]\nprecision = \"float\"\ntolerance = 1e-3\n", "f.toml");
  s = given.solve;
  s.device = "cpu";
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, 1e-3);
}

// Non-finite values: parameters, k, f, boundary values, mask values, the exact solution.
TEST(BadInputValues, NonFiniteValuesAreNamedWithTheirPlace) {
  EXPECT_TRUE(contains(message_of([] { parse_config(grid17 + "[equation]\nf = nan\n", "n"); }),
                       "equation.f must be a finite number, got nan"));
  EXPECT_TRUE(contains(message_of([] { parse_config(grid17 + "[equation]\nf = \"0/0\"\n", "n"); }),
                       "not a finite number"));
  HeatPlate hot;
  hot.n = 17;
  hot.hot = std::nan("");
  EXPECT_TRUE(contains(message_of([&] { make_heat_plate(hot); }), "hot (--hot)"));

  ProblemSpec f = plate();
  f.f = Expression::parse("sqrt(x - 0.5)");
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(f, Device::cpu); }),
                       "the source f is nan at (0.0625, 0.0625)"));
  ProblemSpec singular_on_side = plate();  // f is never needed on a Dirichlet side
  singular_on_side.f = Expression::parse("1/sqrt(x)");
  EXPECT_NO_THROW(assemble<double>(singular_on_side, Device::cpu));
  ProblemSpec side = plate();
  side.boundaries[0].g = Expression::parse("sqrt(y - 0.5)");
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(side, Device::cpu); }),
                       "the Dirichlet value on x_low is nan"));
  ProblemSpec flux = plate();
  flux.boundaries[0].kind = BoundaryKind::neumann;
  flux.boundaries[0].g = Expression::parse("1/(y - 0.5)");
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(flux, Device::cpu); }),
                       "Neumann or Robin boundary value is inf"));
  ProblemSpec mask = plate();
  MaskRegion r;
  r.lo = {0.25, 0.25, 0};
  r.hi = {0.5, 0.5, 0};
  r.value = Expression::parse("log(x - 0.3)");
  r.name = "the electrode";
  mask.regions.push_back(r);
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(mask, Device::cpu); }),
                       "the electrode value is nan at (0.25, 0.25)"));
  ProblemSpec exact = plate();
  exact.exact = Expression::parse("sqrt(x - 0.5)");
  EXPECT_TRUE(contains(message_of([&] { sample_exact<double>(exact, Device::cpu); }),
                       "the exact solution is nan"));
}

// k <= 0 from a formula was solved (exit 0) or diverged.
TEST(BadInputValues, CoefficientFromAFormulaMustBePositive) {
  for (const char* k : {"x - 0.5", "(y > 0.5) + 0*x", "1/(x - 0.5)"}) {
    ProblemSpec s = plate();
    s.k = Expression::parse(k);
    EXPECT_TRUE(contains(message_of([&] { assemble<double>(s, Device::cpu); }),
                         "k must be positive and finite everywhere"))
        << k;
  }
  ProblemSpec fine = plate();
  fine.k = Expression::parse("1 + x*y");
  EXPECT_NO_THROW(assemble<double>(fine, Device::cpu));
}

// The max-update rule dropped NaN (std::max ignores it) and reported "converged".
TEST(BadInputValues, NanIsNeverConverged) {
  ProblemSpec s = plate();
  s.k = Expression::parse("1 + 0*x");  // the general path: b held per node
  for (const char* name : {"jacobi", "gauss-seidel", "sor"}) {
    Discretization<double> dd = assemble<double>(s, Device::cpu);
    ASSERT_FALSE(dd.op.rhs.empty());
    // Data the input checks would refuse, planted after them: the solvers' own guard.
    dd.op.rhs.view()(8, 8, 0) = std::nan("");
    SolveOptions o;
    o.rule = StopRule::update;
    o.tolerance = 1e-4;
    o.max_iterations = 2000;
    const SolveReport r = make_solver<double>(name)->solve(dd.op, dd.u, o);
    EXPECT_FALSE(r.converged) << name << ": " << r.reason;
  }
}

// A box that held no node silently vanished.
TEST(BadInputGeometry, BoxesWithoutNodesAreRefused) {
  ProblemSpec s = plate();
  MaskRegion r;
  r.lo = {0.01, 0.5, 0};
  r.hi = {0.02, 0.5, 0};
  r.name = "mask[0]";
  s.regions.push_back(r);
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(s, Device::cpu); }),
                       "mask[0] ([0.01, 0.02] x [0.5, 0.5]) holds no grid node"));
  s.regions[0].kind = NodeKind::outside;
  s.regions[0].lo = {2, 2, 0};
  s.regions[0].hi = {3, 3, 0};
  EXPECT_TRUE(
      contains(message_of([&] { assemble<double>(s, Device::cpu); }), "holds no grid node"));
  HeatPlate tiny;
  tiny.n = 64;
  tiny.patch = 0.001;
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(make_heat_plate(tiny), Device::cpu); }),
                       "the hot patch (--patch)"));
}

// A cut-out strip split off an all-Neumann piece; the whole-domain check missed it.
TEST(BadInputGeometry, EveryPieceOfTheDomainNeedsAnAnchor) {
  ProblemSpec s = plate(33);
  s.boundaries[1].kind = s.boundaries[2].kind = s.boundaries[3].kind = BoundaryKind::neumann;
  MaskRegion strip;
  strip.kind = NodeKind::outside;
  strip.lo = {0.5, -1, 0};
  strip.hi = {0.6, 2, 0};
  s.regions.push_back(strip);
  EXPECT_TRUE(contains(message_of([&] { assemble<double>(s, Device::cpu); }),
                       "split the domain into 2 pieces"));
  s.boundaries[1].kind = BoundaryKind::robin;  // the right piece now has a Robin side
  s.boundaries[1].alpha = 1;
  EXPECT_NO_THROW(assemble<double>(s, Device::cpu));
  // Fully Neumann and in one piece: the compatibility projection, reported by the operator.
  ProblemSpec whole = plate(33);
  for (auto& bc : whole.boundaries) bc.kind = BoundaryKind::neumann;
  whole.f = Expression::parse("cos(pi*x)*cos(pi*y) + 0.001");
  const Discretization<double> d = assemble<double>(whole, Device::cpu);
  EXPECT_TRUE(d.op.singular);
  EXPECT_GT(d.op.rhs_mismatch, 0);
}

}  // namespace
}  // namespace gridsolve
