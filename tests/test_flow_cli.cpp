// The flow commands as a user meets them: result files, benchmark cases from TOML, and
// bad input refused with exit code 2 and a message that says what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using Outcome = cli_testing::CliOutcome;
Outcome gridsolve(const std::string& args) {
  return cli_testing::run_cli(args);
}

std::filesystem::path scratch(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("gridsolve_flow_cli_" + name);
  std::filesystem::remove_all(p);
  return p;
}

std::string write_case(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("gridsolve_flow_" + name + ".toml");
  std::ofstream(p) << text;
  return p.string();
}

const char* channel_head = R"TOML(
[flow]
cells = [40, 10]
hi = [4, 1]
nu = 0.05
[boundary.x_low]
type = "inflow"
u = "4*y*(1-y)"
)TOML";

// A channel's outflow side and a circle of radius 0.3 centred at `centre` (TOML's array).
std::string outflow_and_circle_at(const std::string& centre) {
  return "[boundary.x_high]\ntype = \"outflow\"\n[[obstacle]]\nshape = \"circle\"\ncentre = " +
         centre + "\nradius = 0.3\n";
}

// A command line that must exit 2 with a message holding `says`.
struct Bad {
  std::string args, says;
};

void expect_refused(const std::vector<Bad>& cases) {
  for (const Bad& b : cases) {
    const Outcome o = gridsolve(b.args);
    EXPECT_EQ(o.code, 2) << b.args << "\n" << o.output;
    EXPECT_NE(o.output.find(b.says), std::string::npos) << b.args << "\n" << o.output;
  }
}

}  // namespace

TEST(FlowCli, CavityWritesItsResults) {
  const auto dir = scratch("cavity");
  const Outcome o =
      gridsolve("cavity --re 100 --n 24 --device cpu --no-plots --profile --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("Ghia"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("% of the time"), std::string::npos) << o.output;
  std::ifstream f(dir / "summary.json");
  ASSERT_TRUE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  for (const char* key : {"psi_min", "vortex_centre", "ghia_max_deviation", "converged",
                          "iterations", "device", "coupling", "pressure_cycles_per_solve",
                          "pressure_share", "sweeps_per_predictor", "predictor_share"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_LT(j["psi_min"].get<double>(), -0.09);
  // Where the time went: at least one multigrid cycle a solve, a share of the run.
  EXPECT_GE(j["pressure_cycles_per_solve"].get<double>(), 1.0);
  EXPECT_GT(j["pressure_share"].get<double>(), 0.0);
  EXPECT_LT(j["pressure_share"].get<double>(), 1.0);
  // The steady cavity's predictors run their fixed count of sweeps (momentum_sweeps, 4).
  EXPECT_EQ(j["sweeps_per_predictor"].get<double>(), 4.0);
  EXPECT_GT(j["predictor_share"].get<double>(), 0.0);
  EXPECT_LT(j["pressure_share"].get<double>() + j["predictor_share"].get<double>(), 1.0);
  for (const char* file : {"fields.h5", "fields.xdmf", "centreline_u.csv", "centreline_v.csv",
                           "centreline_ghia.csv", "history.csv"})
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
}

// Ghia's table is found from anywhere (upward from the program's folder too), and a run
// that cannot find it still writes its results, saying what was left out.
TEST(FlowCli, CavityFindsGhiasTableFromAnotherFolderAndRunsWithoutIt) {
  const auto elsewhere = scratch("elsewhere");
  std::filesystem::create_directories(elsewhere);
  const auto found = elsewhere / "found";
  const Outcome a = cli_testing::run_cli(
      "cavity --re 100 --n 16 --max-iter 100 --device cpu --no-plots --out " + found.string(),
      "cd " + elsewhere.string() + " && env -u GRIDSOLVE_REFERENCE_DIR ");
  ASSERT_TRUE(a.code == 0 || a.code == 3) << a.output;
  std::ifstream fa(found / "summary.json");
  ASSERT_TRUE(fa.good()) << a.output;
  EXPECT_TRUE(nlohmann::json::parse(fa).contains("ghia_max_deviation")) << a.output;

  const auto missing = elsewhere / "missing";
  const Outcome b = cli_testing::run_cli(
      "cavity --re 100 --n 16 --max-iter 100 --device cpu --no-plots --out " + missing.string(),
      "cd " + elsewhere.string() + " && GRIDSOLVE_REFERENCE_DIR=" + elsewhere.string() + " ");
  ASSERT_TRUE(b.code == 0 || b.code == 3) << b.output;
  EXPECT_NE(b.output.find("not found"), std::string::npos) << b.output;
  std::ifstream fb(missing / "summary.json");
  ASSERT_TRUE(fb.good()) << b.output;
  const nlohmann::json j = nlohmann::json::parse(fb);
  EXPECT_FALSE(j.contains("ghia_max_deviation"));
  EXPECT_TRUE(j.contains("psi_min"));
  EXPECT_TRUE(std::filesystem::exists(missing / "centreline_u.csv"));
}

TEST(FlowCli, TransientChannelFromTomlWritesASeries) {
  const auto dir = scratch("channel");
  const std::string path = write_case("channel", std::string(channel_head) + R"TOML(
[boundary.x_high]
type = "outflow"
[[obstacle]]
shape = "rectangle"
lo = [1.0, 0.4]
hi = [1.2, 0.6]
[method]
coupling = "piso"
t_end = 0.5
cfl = 0.5
[output]
frames = 2
)TOML");
  const Outcome o = gridsolve("flow " + path + " --device cpu --no-plots --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "series.xdmf"));
  EXPECT_TRUE(std::filesystem::exists(dir / "frames/fields_0001.h5"));
  EXPECT_TRUE(std::filesystem::exists(dir / "forces.csv"));
}

// A 3D case from TOML: the centrelines run through the middle plane of the cube (not the
// wall z = 0, where the velocity vanishes).
TEST(FlowCli, CubicCavityCentrelinesCrossTheMiddle) {
  const auto dir = scratch("cavity3d");
  const std::string path = write_case("cavity3d", R"TOML(
[flow]
dims = 3
cells = [12, 12, 12]
re = 100
[boundary.y_high]
type = "wall"
velocity = [1, 0, 0]
[method]
coupling = "simplec"
tolerance = 1e-5
)TOML");
  const Outcome o = gridsolve("flow " + path + " --device cpu --no-plots --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.output;
  std::ifstream f(dir / "centreline_u.csv");
  std::string line;
  std::getline(f, line);
  double u_min = 0;
  while (std::getline(f, line)) u_min = std::min(u_min, std::stod(line.substr(line.find(',') + 1)));
  EXPECT_LT(u_min, -0.1) << "the return flow below the lid";
}

TEST(FlowCli, NotConvergedExitsWithThree) {
  const Outcome o = gridsolve("cavity --re 100 --n 16 --device cpu --max-iter 5");
  EXPECT_EQ(o.code, 3) << o.output;
}

TEST(FlowCli, BadCasesExitWithTwoAndSayWhy) {
  const std::vector<Bad> cases = {
      {"cavity --re -100 --n 16 --device cpu", "Reynolds number"},
      {"cavity --re 100 --n 16 --device cpu --coupling piso --cfl 3", "CFL"},
      {"channel --case dfg-2d-9 --device cpu", "dfg-2d-1"},
      {"channel --case dfg-3d-9 --device cpu", "dfg-3d-1z"},
      {"flow " + write_case("outside3d", R"TOML(
[flow]
dims = 3
cells = [12, 6, 6]
hi = [4, 1, 1]
nu = 0.01
[boundary.x_low]
type = "inflow"
u = "1"
)TOML" + outflow_and_circle_at("[1, 1.2]")) +
           " --device cpu",
       "not inside the domain"},
      {"cavity --re 100 --n 16 --device cpu --convection lax",
       "upwind, hybrid, tvd, quick, central"},
      {"cavity --re 100 --n 16 --device cpu --coupling projectile",
       "simple, simplec, piso, projection"},
      {"cavity --re 100 --n 16 --device cpu --coupling piso --time rk4", "rk3 (projection)"},
      {"cavity --re 100 --n 16 --device cpu --coupling piso --time rk3",
       "the rk3 time scheme goes with the projection coupling"},
      {"cavity --re 100 --n 16 --device cpu --coupling projection --time euler",
       "the projection coupling steps with rk3, not euler"},
      {"cavity --re 100 --n 16 --device cpu --coupling projection --dt 0.5",
       "largest step the projection scheme's explicit stages take"},
      {"flow " + write_case("fftwalls", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
coupling = "projection"
pressure_solver = "fft"
)TOML") + " --device cpu",
       "pressure_solver fft takes the projection coupling on a uniform grid with every side "
       "periodic"},
      {"flow " + write_case("rk3steady", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
coupling = "piso"
time = "rk3"
)TOML") + " --device cpu",
       "the rk3 time scheme goes with the projection coupling"},
      {"flow " + write_case("nooutflow", channel_head) + " --device cpu", "outflow"},
      {"flow " + write_case("outside", channel_head + outflow_and_circle_at("[3.9, 0.5]")) +
           " --device cpu",
       "not inside the domain"},
      {"flow " + write_case("negmomtol", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
momentum_tolerance = -0.5
)TOML") + " --device cpu",
       "momentum_tolerance"},
      {"flow " + write_case("bigomega", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
momentum_omega = 2.5
)TOML") + " --device cpu",
       "momentum_omega"},
      {"flow " + write_case("zeroomega", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
momentum_omega = 0
)TOML") + " --device cpu",
       "momentum_omega"},
      {"flow " + write_case("badscheme", R"TOML(
[flow]
cells = [8, 8]
nu = 0.01
[method]
convection = "quik"
)TOML") + " --device cpu",
       "quik"},
      {"flow " + write_case("negnu", R"TOML(
[flow]
cells = [8, 8]
nu = -1
)TOML") + " --device cpu",
       "viscosity"},
      {"flow " + write_case("bowtie", std::string(channel_head) + R"TOML(
[boundary.x_high]
type = "outflow"
[[obstacle]]
shape = "polygon"
vertices = [[1.0, 0.4], [1.4, 0.7], [1.4, 0.4], [1.0, 0.5]]
)TOML") + " --device cpu",
       "cross or overlap"},
      {"flow " + write_case("polyoutside", std::string(channel_head) + R"TOML(
[boundary.x_high]
type = "outflow"
[[obstacle]]
shape = "polygon"
vertices = [[1.0, 0.4], [1.4, 0.4], [1.2, 1.3]]
)TOML") + " --device cpu",
       "not inside the domain"},
      {"flow " + write_case("halfperiodic", R"TOML(
[flow]
cells = [8, 8]
nu = 0.1
[boundary.x_low]
type = "periodic"
)TOML") + " --device cpu",
       "periodic sides come in pairs"},
      {"flow " + write_case("typo", R"TOML(
[flow]
cells = [8, 8]
nu = 0.1
[method]
couplng = "piso"
)TOML") + " --device cpu",
       "couplng"},
  };
  expect_refused(cases);
}

// Values a case file or the command line can hold but no run can use: each refused with
// exit 2 before any work, never a run that hangs, diverges or reports nonsense.
TEST(FlowCli, UnusableValuesAreRefusedBeforeTheRun) {
  const std::string cavity8 = "[flow]\ncells = [8, 8]\nnu = 0.01\n";
  auto flow = [](const std::string& name, const std::string& text) {
    return "flow " + write_case(name, text) + " --device cpu --no-plots";
  };
  const std::string piso = "[method]\ncoupling = \"piso\"\n";
  const std::string outflow = "[boundary.x_high]\ntype = \"outflow\"\n";
  const auto dir = scratch("refused_dir");
  std::filesystem::create_directories(dir);
  // An output folder whose summary.json is a folder: refused before the run, not after.
  const auto taken = scratch("refused_out");
  std::filesystem::create_directories(taken / "summary.json");
  const std::vector<Bad> cases = {
      // Runs that could not end.
      {flow("tinf", cavity8 + piso + "t_end = inf\n"), "t_end must be a finite number"},
      {flow("dttiny", cavity8 + piso + "dt = 1e-300\n"), "steps"},
      {flow("cfltiny", cavity8 + piso + "cfl = 1e-300\n"), "steps"},
      // Numbers no flow has.
      {flow("lidnan", cavity8 + "[boundary.y_high]\ntype = \"wall\"\nvelocity = [nan, 0]\n"),
       "velocity[0] must be a finite number"},
      {flow("lidhuge", cavity8 + "[boundary.y_high]\ntype = \"wall\"\nvelocity = [1e300, 0]\n"),
       "below 1e100"},
      {flow("hiinf", "[flow]\ncells = [8, 8]\nnu = 0.01\nhi = [inf, 1]\n"), "finite"},
      {flow("hugedomain", "[flow]\ncells = [8, 8]\nnu = 0.01\nlo = [-1e308, 0]\nhi = [1e308, 1]\n"),
       "give finite ends"},
      {flow("nutiny", "[flow]\ncells = [8, 8]\nnu = 1e-310\n"), "Reynolds number"},
      {flow("inflow00",
            "[flow]\ncells = [16, 8]\nhi = [2, 1]\nnu = 0.05\n[boundary.x_low]\ntype = "
            "\"inflow\"\nu = \"y / (y - y)\"\n" +
                outflow),
       "x_low: the inflow's u"},
      {flow("initialnan", cavity8 + "[initial]\nu = \"sqrt(-1)\"\n"),
       "initial.u = 'sqrt(-1)' is nan"},
      {flow("initialp", cavity8 + "[initial]\np = \"1e300 * 1e300\"\n"),
       "initial.p = '1e300 * 1e300' is inf"},
      {flow("netinflow",
            "[flow]\ncells = [8, 8]\nnu = 0.1\n[boundary.x_low]\ntype = "
            "\"inflow\"\nu = 1\n[boundary.x_high]\ntype = \"inflow\"\nu = 2\n"
            "[boundary.y_low]\ntype = \"inflow\"\n[boundary.y_high]\ntype = "
            "\"inflow\"\n" +
                piso + "t_end = 0.01\n"),
       "net volume flux"},
      {flow("urefre", "[flow]\ncells = [8, 8]\nre = 100\n[measure]\nu_ref = -1\n"), "u_ref -1"},
      // Numbers of the wrong kind.
      {flow("cellsfrac", "[flow]\ncells = [16.7, 16]\nnu = 0.01\n"), "whole numbers"},
      {flow("wrap", cavity8 + "[method]\nmax_iterations = 4294967297\n"),
       "must be in [0, 2147483647], got 4294967297"},
      {flow("tanhjunk",
            "[flow]\ncells = [8, 8]\nnu = 0.01\nspacing = [\"tanh:3abc\", "
            "\"uniform\"]\n"),
       "tanh:BETA"},
      {flow("bandtiny",
            "[flow]\ncells = [16, 8]\nnu = 0.01\nspacing = [\"band:0.2:0.5:1e-12\", "
            "\"uniform\"]\n"),
       "the band takes"},
      {flow("bandshrink",
            "[flow]\ncells = [64, 8]\nnu = 0.01\nspacing = [\"band:0.4:0.6:0.1\", "
            "\"uniform\"]\n"),
       "shrink"},
      {flow("device", cavity8 + "device = \"tpu\"\n"), "tpu"},
      // Probes and bodies.
      {flow("probeout", cavity8 + "[measure]\nprobe_a = [5, 5]\nprobe_b = [0.5, 0.5]\n"),
       "not inside the domain"},
      {flow("probein", std::string(channel_head) + outflow +
                           "[[obstacle]]\ncentre = [1, 0.5]\nradius = 0.2\n[measure]\nprobe_a = "
                           "[1, 0.5]\nprobe_b = [0.5, 0.5]\n"),
       "inside obstacle"},
      {flow("blocked", std::string(channel_head) + outflow +
                           "[[obstacle]]\nshape = \"rectangle\"\nlo = [1.0, 0.01]\nhi = [1.5, "
                           "0.99]\n"),
       "separate regions"},
      {flow("pocket",
            std::string(channel_head) + outflow +
                "[[obstacle]]\nshape = \"rectangle\"\nlo = [1.0, 0.3]\nhi = [2.0, 0.4]\n"
                "[[obstacle]]\nshape = \"rectangle\"\nlo = [1.0, 0.6]\nhi = [2.0, 0.7]\n"
                "[[obstacle]]\nshape = \"rectangle\"\nlo = [1.0, 0.3]\nhi = [1.2, 0.7]\n"
                "[[obstacle]]\nshape = \"rectangle\"\nlo = [1.8, 0.3]\nhi = [2.0, 0.7]\n"),
       "separate regions"},
      {flow("tinybody", std::string(channel_head) + outflow +
                            "[[obstacle]]\ncentre = [1, 0.5]\nradius = 1e-9\n"),
       "smaller than the grid resolves"},
      {flow("dfgnobody", "[flow]\nbenchmark = \"dfg\"\ncells = [8, 8]\nnu = 0.01\n"),
       "[[obstacle]]"},
      // The command line: a given value is checked, not taken for "not given".
      {"cavity --re 100 --n 16 --device cpu --max-iter 0", "max_iterations"},
      {"cavity --re 100 --n 16 --device cpu --coupling piso --t-end 0", "t_end"},
      {"cavity --re 100 --n 16 --device cpu --coupling piso --cfl -0.5", "CFL"},
      {"cavity --re 100 --n 16 --device cpu --frames -3", "--frames"},
      {"cavity --re 100 --n 16 --device cpu --sweeps 0", "momentum_sweeps"},
      {"channel --case dfg-2d-1 --cpd 2147483647 --device cpu", "cells per diameter"},
      {"cavity --re 100 --n 16 --device cpu --restart " + dir.string(), "it is a directory"},
      {"flow " + dir.string() + " --device cpu", "it is a directory"},
      {"cavity --re 100 --n 16 --device cpu --no-plots --out " + taken.string(),
       "summary.json': it is a directory"},
  };
  expect_refused(cases);
}

// A table written as an array of tables ([[method]]) was read as no table at all: the
// run went on without its lid, or with PISO instead of the SIMPLEC asked for. Every such
// mix-up, either way round, is refused naming the key.
TEST(FlowCli, TablesAndArraysOfTablesAreNotConfused) {
  const std::string cavity8 = "[flow]\ncells = [8, 8]\nnu = 0.01\n";
  auto flow = [](const std::string& name, const std::string& text) {
    return "flow " + write_case(name, text) + " --device cpu --no-plots";
  };
  const std::vector<Bad> cases = {
      {flow("aot_lid", cavity8 + "[[boundary.y_high]]\ntype = \"wall\"\nvelocity = [1, 0]\n"),
       "'boundary.y_high' must be a table ([boundary.y_high]), got an array"},
      {flow("aot_inline", cavity8 + "[boundary]\ny_high = [{type = \"wall\"}]\n"),
       "'boundary.y_high' must be a table"},
      {flow("aot_method", cavity8 + "[[method]]\ncoupling = \"simplec\"\n"),
       "'method' must be a table ([method]), got an array"},
      {flow("aot_initial", cavity8 + "[[initial]]\nu = 1\n"), "'initial' must be a table"},
      {flow("aot_output", cavity8 + "[[output]]\nframes = 2\n"), "'output' must be a table"},
      {flow("aot_measure", cavity8 + "[[measure]]\nu_ref = 2\n"), "'measure' must be a table"},
      {flow("aot_flow", "[[flow]]\ncells = [8, 8]\nnu = 0.01\n"), "'flow' must be a table"},
      {flow("aot_obstacle", cavity8 + "[obstacle]\ncentre = [0.5, 0.5]\nradius = 0.1\n"),
       "'obstacle' must be written as [[obstacle]] tables, got a table"},
      {flow("aot_obstacle_values", "obstacle = [1, 2]\n" + cavity8),
       "'obstacle' must be written as [[obstacle]] tables"},
      // A key holding a NUL: the whole message, the key escaped, the reason named.
      {flow("nul_key", cavity8 + "[method]\n\"a\\u0000b\" = 1\n"),
       "unknown key 'method.a\\x00b' in [method] (it holds control characters, shown escaped)"},
  };
  expect_refused(cases);
}

// A polygon's checks (every vertex, every pair of edges) build their messages only when
// one fails: a 3000-vertex outline validates in well under a second (formatting the
// outline at every check took hours).
TEST(FlowCli, ManyVertexPolygonValidatesQuickly) {
  std::string vertices;
  const int n = 3000;
  for (int k = 0; k < n; ++k) {
    const double a = 2 * 3.14159265358979 * k / n;
    vertices += (k ? ", " : "") + std::string("[") + std::to_string(1 + 0.2 * std::cos(a)) + ", " +
                std::to_string(0.5 + 0.2 * std::sin(a)) + "]";
  }
  const std::string path = write_case(
      "manyvertices", std::string(channel_head) + "[boundary.x_high]\ntype = \"outflow\"\n" +
                          "[[obstacle]]\nshape = \"polygon\"\nvertices = [" + vertices +
                          "]\n[method]\nmax_iterations = 2\ncheck_every = 1\n");
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = gridsolve("flow " + path + " --device cpu --no-plots -q");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(o.code == 0 || o.code == 3) << o.output;
  EXPECT_LT(seconds, 10.0);
}

TEST(FlowCli, RestartContinuesAndRefusesAnotherCase) {
  const auto dir = scratch("restart");
  const std::string path = write_case("restart", std::string(channel_head) + R"TOML(
[boundary.x_high]
type = "outflow"
[method]
coupling = "piso"
t_end = 0.4
[output]
checkpoint_every = 4
)TOML");
  const std::string common = " --device cpu --no-plots -q --out " + dir.string();
  const Outcome stop = gridsolve("flow " + path + common + " --stop-after 6");
  EXPECT_EQ(stop.code, 3) << stop.output;
  const std::string ck = (dir / "checkpoint.gsflow").string();
  ASSERT_TRUE(std::filesystem::exists(ck));
  const Outcome go_on = gridsolve("flow " + path + common + " --restart " + ck);
  EXPECT_EQ(go_on.code, 0) << go_on.output;
  std::ifstream f(dir / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_NEAR(j["time"].get<double>(), 0.4, 1e-12);
  // A restart whose end lies before the checkpoint's time would stop at once, "converged".
  const Outcome past = gridsolve("flow " + path + common + " --restart " + ck + " --t-end 0.2");
  EXPECT_EQ(past.code, 2) << past.output;
  EXPECT_NE(past.output.find("past this run's end"), std::string::npos) << past.output;
  // The same checkpoint on another grid: exit 2 and the difference named.
  const Outcome other = gridsolve("cavity --n 16 --coupling piso --device cpu -q --restart " + ck);
  EXPECT_EQ(other.code, 2) << other.output;
  EXPECT_NE(other.output.find("belongs to another case"), std::string::npos) << other.output;
  const Outcome nowhere = gridsolve("cavity --n 16 --device cpu -q --checkpoint-every 5");
  EXPECT_EQ(nowhere.code, 2) << nowhere.output;
  EXPECT_NE(nowhere.output.find("--checkpoint-file"), std::string::npos) << nowhere.output;
}

TEST(FlowCli, ProjectionExampleRunsAndRestarts) {
  // The example as shipped, whole and stopped then restarted (the restart's fields equal
  // the whole run's bit for bit: FlowCheckpoint.ProjectionRestartIsBitForBit).
  const std::string common = " --device cpu --no-plots -q --frames 0";
  const auto whole = scratch("projection_whole"), split = scratch("projection_split");
  const std::string example =
      std::string(GRIDSOLVE_SOURCE_DIR) + "/examples/flow/taylor_green_projection.toml";
  const Outcome a = gridsolve("flow " + example + common + " --out " + whole.string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Outcome stop =
      gridsolve("flow " + example + common + " --out " + split.string() + " --stop-after 21");
  EXPECT_EQ(stop.code, 3) << stop.output;
  const Outcome go_on = gridsolve("flow " + example + common + " --out " + split.string() +
                                  " --restart " + (split / "checkpoint.gsflow").string());
  ASSERT_EQ(go_on.code, 0) << go_on.output;
  double psi[2];
  int r = 0;
  for (const auto* dir : {&whole, &split}) {
    std::ifstream f(*dir / "summary.json");
    const nlohmann::json j = nlohmann::json::parse(f);
    EXPECT_EQ(j["coupling"], "projection");
    EXPECT_EQ(j["time_scheme"], "rk3");
    EXPECT_NEAR(j["time"].get<double>(), 2.0, 1e-12);
    psi[r++] = j["psi_min"].get<double>();
  }
  EXPECT_EQ(psi[0], psi[1]);
  // The vortex's amplitude at t = 2 is exp(-0.04); the streamfunction summed from the faces
  // carries an error of its own of about h^2 / 24 (4e-4 here).
  EXPECT_NEAR(-psi[0], std::exp(-0.04), 1e-3);
  // A cavity by the command's options: rk3 follows the coupling; bdf2 with it is refused.
  const Outcome cav = gridsolve(
      "cavity --re 100 --n 16 --coupling projection --t-end 0.2 --device cpu --no-plots -q");
  EXPECT_EQ(cav.code, 0) << cav.output;
  expect_refused({{"cavity --n 16 --coupling projection --time bdf2 --device cpu -q",
                   "the projection coupling steps with rk3"}});
}
