// The gridsolve command as a user meets it: exit codes, messages, result files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using Outcome = cli_testing::CliOutcome;
Outcome gridsolve(const std::string& args) {
  return cli_testing::run_cli(args);
}

std::filesystem::path scratch(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("gridsolve_cli_test_" + name);
  std::filesystem::remove_all(p);
  return p;
}

TEST(Cli, PoissonConvergesAndWritesResults) {
  const auto dir = scratch("poisson");
  const Outcome o = gridsolve("poisson --n 33 --device cpu --tol 1e-10 --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("converged"), std::string::npos) << o.output;
  std::ifstream f(dir / "summary.json");
  ASSERT_TRUE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  for (const char* key : {"solver", "device", "precision", "n", "iterations", "relative_residual",
                          "max_error", "seconds", "converged", "reason"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["converged"], true);
  EXPECT_LT(j["relative_residual"].get<double>(), 1e-10);
  EXPECT_LT(j["max_error"].get<double>(), 1e-2);
  EXPECT_TRUE(std::filesystem::exists(dir / "history.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "solution.h5"));
  EXPECT_TRUE(std::filesystem::exists(dir / "solution.xdmf"));
}

TEST(Cli, FloatSolveStopsAboveItsRoundingFloorByDefault) {
  const Outcome o =
      gridsolve("poisson --n 129 --mask hole --solver sor --precision float --device cpu");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("< 1.000e-04"), std::string::npos) << o.output;
}

TEST(Cli, NotConvergedExitsThree) {
  const Outcome o = gridsolve("poisson --n 65 --device cpu --solver jacobi --max-iter 10 -q");
  EXPECT_EQ(o.code, 3) << o.output;
}

TEST(Cli, BadInputExitsTwoAndNamesTheProblem) {
  struct Case {
    std::string args, expect;
  } cases[] = {
      {"poisson --n -5", "n must be at least 3, got -5"},
      {"poisson --n 17 --omega 2.3", "omega must be in (0, 2), got 2.3"},
      {"poisson --n 17 --solver multigridd", "unknown solver 'multigridd'"},
      {"poisson --n 17 --device tpu", "device must be auto, cpu or cuda"},
      {"poisson --n 17 --sides sticky", "sides must be dirichlet, neumann, robin, periodic or periodic-all"},
      {"poisson --nn 17", "nn"},
      {"heat --n 33 --patch 1.5", "hot patch"},
      {"solve /nonexistent/problem.toml", "/nonexistent/problem.toml"},
  };
  for (const Case& c : cases) {
    const Outcome o = gridsolve(c.args);
    EXPECT_EQ(o.code, 2) << c.args << "\n" << o.output;
    EXPECT_NE(o.output.find(c.expect), std::string::npos) << c.args << "\n" << o.output;
  }
}

TEST(Cli, MalformedFormulaInConfigExitsTwo) {
  const auto dir = scratch("formula");
  std::filesystem::create_directories(dir);
  const auto path = dir / "bad.toml";
  std::ofstream(path) << "[grid]\ndims = 2\nnodes = [17, 17]\n[equation]\nf = \"sin(pi*x\"\n";
  const Outcome o = gridsolve("solve " + path.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("sin(pi*x"), std::string::npos) << o.output;
}

TEST(Cli, PeriodicChannelExampleSolves) {
  const auto dir = scratch("periodic");
  const Outcome o = gridsolve("solve " + std::string(GRIDSOLVE_SOURCE_DIR) +
                              "/examples/poisson_periodic_channel.toml --device cpu --out " +
                              dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("converged"), std::string::npos) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "solution.h5"));
}

TEST(Cli, OneSidedPeriodicConfigExitsTwo) {
  const auto dir = scratch("periodic_bad");
  std::filesystem::create_directories(dir);
  const auto path = dir / "bad.toml";
  std::ofstream(path) << "[grid]\ndims = 2\nnodes = [17, 17]\n[boundary.y_high]\ntype = "
                         "\"periodic\"\n";
  const Outcome o = gridsolve("solve " + path.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("y_high is periodic and y_low is not"), std::string::npos) << o.output;
}

TEST(Cli, HeatPlateOnCpu) {
  const Outcome o = gridsolve("heat --n 65 --device cpu");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("max update"), std::string::npos) << o.output;
}

TEST(Cli, InfoListsSolvers) {
  const Outcome o = gridsolve("info");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.output.find("sor"), std::string::npos) << o.output;
}

// An all-Neumann problem whose source does not quite balance is solved after removing
// the net source: the printed summary and summary.json say so, with why it stopped.
TEST(Cli, ProjectedNeumannSourceIsReported) {
  const auto dir = scratch("neumann");
  std::filesystem::create_directories(dir);
  {
    std::ofstream toml(dir / "neumann.toml");
    toml << "[grid]\nnodes = [33, 33]\n[equation]\nf = \"cos(pi*x)*cos(pi*y) + 0.001\"\n";
    for (const char* side : {"x_low", "x_high", "y_low", "y_high"})
      toml << "[boundary." << side << "]\ntype = \"neumann\"\n";
    toml << "[solver]\nname = \"mgcg\"\n";
  }
  const Outcome o = gridsolve("solve " + (dir / "neumann.toml").string() + " --device cpu --out " +
                              (dir / "out").string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("note        no node is fixed"), std::string::npos) << o.output;
  std::ifstream f(dir / "out" / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(f);
  ASSERT_EQ(j["notes"].size(), 1u) << j.dump();
  EXPECT_NE(j["notes"][0].get<std::string>().find("net source"), std::string::npos);
  EXPECT_EQ(j["stop"], "converged");
}

// The heat plate's parameters, declared once, reach summary.json.
TEST(Cli, HeatParametersInSummary) {
  const auto dir = scratch("heat_parameters");
  const Outcome o = gridsolve("heat --n 33 --hot 50 --device cpu -q --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  std::ifstream f(dir / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["parameters"]["n"], 33);
  EXPECT_EQ(j["parameters"]["hot"], 50.0);
  EXPECT_EQ(j["parameters"]["patch"], 0.125);
}

}  // namespace
