// The solver registry and the typed settings: every solver reachable by its names, its
// facts read by the factory and the solve path, options that would be ignored refused.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <string>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/solve/convergence_monitor.hpp"
#include "gridsolve/solve/multigrid/multigrid_options.hpp"
#include "gridsolve/solve/solve_settings.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SolverRegistry, EveryNameAndAliasBuildsTheSolverOfItsRow) {
  std::set<std::string_view> seen;
  for (const SolverInfo& row : solver_registry()) {
    EXPECT_TRUE(seen.insert(row.name).second) << row.name;
    for (std::string_view a : row.aliases) {
      EXPECT_TRUE(seen.insert(a).second) << a;
      EXPECT_EQ(&find_solver(a), &row) << a;
    }
    ASSERT_NE(row.make_double, nullptr) << row.name;
    ASSERT_NE(row.make_float, nullptr) << row.name;
    // The solver names itself as its row does, in both precisions.
    EXPECT_EQ(make_solver<double>(std::string(row.name))->name(), row.name);
    EXPECT_EQ(make_solver<float>(std::string(row.name))->name(), row.name);
    EXPECT_GT(row.tolerance_fp64, 0);
    // Single precision cannot reach double's stopping point.
    EXPECT_GT(row.tolerance_fp32, row.tolerance_fp64) << row.name;
    EXPECT_TRUE(row.cpu) << row.name;
  }
  EXPECT_EQ(solver_names().size(), solver_registry().size());
}

TEST(SolverRegistry, UnknownAndEmptyNamesListTheChoicesWithAHint) {
  const std::string typo = message_of([] { find_solver("mgcgg"); });
  EXPECT_NE(typo.find("unknown solver 'mgcgg'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'mgcg'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("jacobi, gauss-seidel, sor"), std::string::npos) << typo;
  const std::string empty = message_of([] { find_solver(""); });
  EXPECT_NE(empty.find("empty"), std::string::npos) << empty;
  const std::string escape = message_of([] { find_solver("a\x1b[2Jb"); });
  EXPECT_EQ(escape.find('\x1b'), std::string::npos) << "raw escape in the message";
  EXPECT_NE(escape.find("\\x1b[2J"), std::string::npos) << escape;
}

TEST(SolverRegistry, FloatWithoutToleranceTakesTheSolversFloatDefault) {
  SolveSettings s;
  s.solver = "sor";
  s.device = "cpu";
  s.precision = Precision::fp32;
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, find_solver("sor").tolerance_fp32);
  s.precision = Precision::fp64;
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, 1e-8);
  s.tolerance = 1e-6;
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, 1e-6);
  s.default_tolerance = [](Precision, const SolverInfo&) { return 0.5e-6; };
  s.tolerance.reset();
  EXPECT_DOUBLE_EQ(resolve(s).options.tolerance, 0.5e-6);
}

TEST(SolverRegistry, BadTolerancesAreRefusedNotReplaced) {
  for (double bad : {-1.0, 0.0, std::nan(""), double(INFINITY)}) {
    SolveSettings s;
    s.device = "cpu";
    s.tolerance = bad;
    EXPECT_THROW(resolve(s), Error) << bad;
  }
}

TEST(SolverRegistry, OptionsTheSolverWouldIgnoreAreRefused) {
  SolveSettings s;
  s.device = "cpu";
  s.solver = "mgcg";
  s.options.omega = 1.5;
  EXPECT_NE(message_of([&] { resolve(s); }).find("omega applies to sor only, not mgcg"),
            std::string::npos);
  s.solver = "sor";
  EXPECT_NO_THROW(resolve(s));
  s.multigrid.cycle = Cycle::W;
  EXPECT_NE(message_of([&] { resolve(s); }).find("multigrid settings"), std::string::npos);
  s.solver = "mg";
  s.options.omega = 0;
  EXPECT_NO_THROW(resolve(s));
  s.options.rule = StopRule::update;
  EXPECT_NE(message_of([&] { resolve(s); }).find("relative residual only"), std::string::npos);
  s = SolveSettings{};
  s.device = "cpu";
  s.solver = "cg";
  s.options.weight = 0.7;
  EXPECT_NE(message_of([&] { resolve(s); }).find("weight applies to jacobi"), std::string::npos);
}

TEST(SolverRegistry, IterationSettingsDoNotApplyToDirectSolvers) {
  SolveSettings s;
  s.device = "cpu";
  s.solver = "fft";
  EXPECT_NO_THROW(resolve(s));
  s.tolerance = 1e-6;
  EXPECT_NE(message_of([&] { resolve(s); }).find("fft is a direct solver"), std::string::npos);
  s.tolerance.reset();
  s.options.max_iterations = 10;
  EXPECT_NE(message_of([&] { resolve(s); }).find("direct solver"), std::string::npos);
}

TEST(SolverRegistry, DevicesComeFromTheRow) {
  const SolverInfo& gs = find_solver("gauss-seidel");
  EXPECT_FALSE(gs.runs_on(Device::cuda));
  EXPECT_NE(message_of([&] { require_device(gs, Device::cuda); }).find("does not run on cuda"),
            std::string::npos);
  EXPECT_NO_THROW(require_device(gs, Device::cpu));
}

TEST(TypedSettings, EnumsParseAndPrint) {
  EXPECT_EQ(parse_precision("float"), Precision::fp32);
  EXPECT_EQ(parse_precision("fp64"), Precision::fp64);
  EXPECT_THROW(parse_precision(""), Error);
  EXPECT_STREQ(to_string(Precision::fp32), "float");
  EXPECT_EQ(parse_cycle("w"), Cycle::W);
  EXPECT_THROW(parse_cycle("X"), Error);
  EXPECT_EQ(parse_smoother("jacobi"), Smoother::jacobi);
  EXPECT_THROW(parse_smoother("ilu"), Error);
  EXPECT_STREQ(to_string(StopReason::not_a_number), "not-a-number");
}

TEST(TypedSettings, ANonFiniteResultIsNeverConverged) {
  SolveReport r;
  r.converged = true;
  r.stop = StopReason::converged;
  r.relative_residual = std::nan("");
  confirm_finite_result(r);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stop, StopReason::not_a_number);
  r.converged = true;
  r.relative_residual = 1e-9;
  confirm_finite_result(r);
  EXPECT_TRUE(r.converged);
}

TEST(Text, HintsAndPrintableText) {
  EXPECT_EQ(closest_name("tolerence", {"tolerance", "rule"}), "tolerance");
  EXPECT_EQ(closest_name("max_iter", {"max_iterations", "omega"}), "max_iterations");
  EXPECT_EQ(closest_name("banana", {"tolerance", "rule"}), "");
  EXPECT_EQ(printable("plate\x1b[31m"), "plate\\x1b[31m");
  EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");  // C1 CSI does not
  EXPECT_EQ(number_text(-std::nan("")), "nan");
}

}  // namespace
}  // namespace gridsolve
