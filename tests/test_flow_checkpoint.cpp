// Checkpoint and restart of flow runs: a run stopped and restarted equals the run that
// never stopped, bit for bit (fields, force and residual histories, frame series), and
// checkpoints of another case, truncated or damaged ones are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <regex>

#include "gridsolve/apps/flow/flow_checkpoint.hpp"
#include "gridsolve/apps/flow/flow_run.hpp"
#include "gridsolve/core/error.hpp"

using namespace gridsolve;
using namespace gridsolve::flow;

namespace {

std::filesystem::path scratch(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("gridsolve_flow_ck_" + name);
  std::filesystem::remove_all(p);
  return p;
}

// A channel with a block and a parabolic inflow: PISO + BDF2 under CFL control, so the
// restart needs the previous time level, the adaptive step, the force history and the
// pressure multigrid hierarchy (rebuilt every 25 solves: the stop falls between).
FlowCase channel_case() {
  FlowCase c;
  c.cells = {40, 10, 1};
  c.hi = {4, 1, 1};
  c.nu = 0.02;
  c.sides[0].type = SideType::velocity;
  c.sides[0].profile[0] = Expression::parse("4*y*(1-y)");
  c.sides[1].type = SideType::outflow;
  Obstacle o;
  o.shape = Obstacle::Shape::rectangle;
  o.lo = {1.0, 0.4};
  o.hi = {1.2, 0.6};
  c.obstacles.push_back(o);
  c.coupling = Coupling::piso;
  c.t_end = 1.5;
  c.cfl = 0.5;
  c.check_every = 3;
  return c;
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The text with each run id (docs/output.md) replaced by "RUN": two runs differ in it alone.
std::string without_run_id(const std::string& text) {
  static const std::regex id("[0-9]{8}T[0-9]{6}Z-[0-9]+-[0-9a-f]{8}");
  return std::regex_replace(text, id, "RUN");
}

void expect_same_state(const std::string& a, const std::string& b, int dims) {
  const Checkpoint ca = read_checkpoint(a), cb = read_checkpoint(b);
  std::vector<std::string> names = {"p", "solver_reals", "solver_integers", "forces", "history"};
  for (int q = 0; q < dims; ++q)
    for (const char* suffix : {"", "_n", "_nm1"}) names.push_back("u" + std::to_string(q) + suffix);
  for (const std::string& n : names) {
    const auto& x = ca.bytes(n);
    const auto& y = cb.bytes(n);
    ASSERT_EQ(x.size(), y.size()) << n;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size()), 0) << n << " differs";
  }
}

// Runs `act`, which must throw Error with a message holding `says`; returns the error's
// kind (none when it did not throw).
std::optional<Error::Kind> expect_refusal(const std::function<void()>& act,
                                          const std::string& says) {
  try {
    act();
    ADD_FAILURE() << "accepted; expected a refusal saying " << says;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    return e.kind();
  }
  return std::nullopt;
}

}  // namespace

TEST(FlowCheckpoint, TransientRestartIsBitForBitTheUninterruptedRun) {
  const FlowCase c = channel_case();
  const auto whole = scratch("whole"), split = scratch("split");
  FlowRunOptions o;
  o.plots = false;
  o.frames = 4;
  o.out = whole.string();
  o.checkpoint_every = 1000000;  // only the end state, to compare with
  const FlowResult a = run_flow(c, Device::cpu, o);
  ASSERT_TRUE(a.converged);
  ASSERT_GT(a.iterations, 30);

  o.out = split.string();
  o.checkpoint_every = 7;
  o.stop_after = a.iterations / 2;
  const FlowResult b1 = run_flow(c, Device::cpu, o);
  EXPECT_FALSE(b1.converged);
  EXPECT_EQ(b1.iterations, a.iterations / 2);
  o.stop_after = 0;
  o.restart = (split / "checkpoint.gsflow").string();
  const FlowResult b2 = run_flow(c, Device::cpu, o);
  ASSERT_TRUE(b2.converged);
  EXPECT_EQ(b2.restarted_from, a.iterations / 2);
  EXPECT_EQ(b2.iterations, a.iterations);
  EXPECT_EQ(b2.time, a.time);

  // The histories continue: every sample of the uninterrupted run, identical.
  ASSERT_EQ(a.forces.size(), b2.forces.size());
  for (std::size_t i = 0; i < a.forces.size(); ++i) {
    EXPECT_EQ(a.forces[i].t, b2.forces[i].t) << i;
    EXPECT_EQ(a.forces[i].c_d, b2.forces[i].c_d) << i;
    EXPECT_EQ(a.forces[i].c_l, b2.forces[i].c_l) << i;
  }
  EXPECT_EQ(a.history.size(), b2.history.size());
  EXPECT_EQ(a.c_d_max, b2.c_d_max);
  EXPECT_EQ(a.strouhal, b2.strouhal);
  for (const char* f : {"forces.csv", "history.csv", "series.xdmf"})
    EXPECT_EQ(without_run_id(file_text(whole / f)), without_run_id(file_text(split / f))) << f;
  EXPECT_TRUE(std::filesystem::exists(split / "frames/fields_0003.h5"));
  // The fields, ghosts included, and every scalar of the solver.
  expect_same_state((whole / "checkpoint.gsflow").string(), (split / "checkpoint.gsflow").string(),
                    2);
}

namespace {

// The Taylor-Green vortex on the periodic box [0, 2 pi]^2 of 16^2 cells, to t = 6.
FlowCase taylor_green_box() {
  FlowCase c;
  c.cells = {16, 16, 1};
  c.hi = {6.283185307179586, 6.283185307179586, 1};
  for (int s = 0; s < 4; ++s) c.sides[std::size_t(s)].type = SideType::periodic;
  c.nu = 0.01;
  c.has_initial = true;
  c.initial_velocity[0] = Expression::parse("sin(x) * cos(y)");
  c.initial_velocity[1] = Expression::parse("-cos(x) * sin(y)");
  c.t_end = 6;
  c.cfl = 0.5;
  return c;
}

// A transient run whole, and stopped after `stop_after` steps (0: half of the whole run's)
// then restarted: the same steps, history and end state, bit for bit. The whole run must
// take more than `at_least` steps.
void expect_restart_bit_for_bit(const FlowCase& c, const std::string& name, int at_least,
                                int stop_after = 0) {
  const auto whole = scratch(name + "_whole"), split = scratch(name + "_split");
  FlowRunOptions o;
  o.plots = false;
  o.frames = 0;
  o.out = whole.string();
  o.checkpoint_every = 1000000;
  const FlowResult a = run_flow(c, Device::cpu, o);
  ASSERT_GT(a.iterations, at_least) << c.name;
  o.out = split.string();
  o.stop_after = stop_after > 0 ? stop_after : a.iterations / 2;
  run_flow(c, Device::cpu, o);
  o.stop_after = 0;
  o.restart = (split / "checkpoint.gsflow").string();
  const FlowResult b = run_flow(c, Device::cpu, o);
  EXPECT_EQ(a.iterations, b.iterations) << c.name;
  EXPECT_EQ(without_run_id(file_text(whole / "history.csv")),
            without_run_id(file_text(split / "history.csv")))
      << c.name;
  expect_same_state((whole / "checkpoint.gsflow").string(), (split / "checkpoint.gsflow").string(),
                    2);
}

}  // namespace

TEST(FlowCheckpoint, PeriodicRestartIsBitForBitTheUninterruptedRun) {
  // Taylor-Green on the periodic box: the pressure's conjugate gradients and their Jacobi
  // preconditioner (rebuilt every 25 solves) must come back as they were.
  FlowCase c = taylor_green_box();
  c.coupling = Coupling::piso;
  // 2 solves a step: the preconditioner is rebuilt twice.
  expect_restart_bit_for_bit(c, "periodic", 25, 17);
}

TEST(FlowCheckpoint, PredictorSweepCountsComeBackOnRestart) {
  // A diffusion-dominated PISO cavity (nu dt / h^2 about 10): its predictors need about 55
  // sweeps, and each one's first block starts from the last one's count, which the
  // checkpoint carries (started afresh, a predictor whose need fell by two half blocks
  // since the last step would stop at a lower count than the uninterrupted run's).
  FlowCase c = cavity_case(10, 32);
  c.coupling = Coupling::piso;
  c.dt = 0.1;
  c.t_end = 2.0;
  c.check_every = 4;
  FlowSolver<double> a(c, Device::cpu);
  a.keep_pressure_setup(true);
  for (int k = 0; k < 4; ++k) a.piso_step(c.dt, false);
  ASSERT_GT(a.predictor_counts()[0], 4 * c.momentum_sweeps);
  Checkpoint ck;
  a.save_state(ck);
  FlowSolver<double> b(c, Device::cpu);
  b.restore_state(ck);
  EXPECT_EQ(a.predictor_counts(), b.predictor_counts());
  a.piso_step(c.dt, false), b.piso_step(c.dt, false);
  EXPECT_EQ(a.velocity(0).to_vector(), b.velocity(0).to_vector());
  // Through the files, stopped and restarted: the same steps and end state, bit for bit.
  expect_restart_bit_for_bit(c, "sweeps", 15, 7);
}

TEST(FlowCheckpoint, ProjectionRestartIsBitForBit) {
  // The projection scheme on the walled cavity (multigrid pressure, its hierarchy kept in
  // the checkpoint) and on the periodic box (transform pressure).
  FlowCase box = taylor_green_box();
  box.pressure_solver = "fft";
  FlowCase cavity = cavity_case(100, 16);
  cavity.t_end = 2;
  for (FlowCase c : {cavity, box}) {
    c.coupling = Coupling::projection;
    c.time_scheme = TimeScheme::rk3;
    c.validate();
    expect_restart_bit_for_bit(c, "projection", 25);
  }
}

TEST(FlowCheckpoint, SteadyRestartIsBitForBitTheUninterruptedRun) {
  FlowCase c = cavity_case(100, 16);
  c.max_iterations = 90;  // not converged: both stop at the cap
  c.check_every = 10;
  const auto whole = scratch("steady_whole"), split = scratch("steady_split");
  FlowRunOptions o;
  o.plots = false;
  o.out = whole.string();
  o.checkpoint_every = 1000000;
  const FlowResult a = run_flow(c, Device::cpu, o);
  o.out = split.string();
  o.checkpoint_every = 0;
  o.stop_after = 45;
  run_flow(c, Device::cpu, o);
  o.stop_after = 0;
  o.checkpoint_every = 1000000;
  o.restart = (split / "checkpoint.gsflow").string();
  const FlowResult b = run_flow(c, Device::cpu, o);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.last.change, b.last.change);
  EXPECT_EQ(without_run_id(file_text(whole / "history.csv")),
            without_run_id(file_text(split / "history.csv")));
  expect_same_state((whole / "checkpoint.gsflow").string(), (split / "checkpoint.gsflow").string(),
                    2);
}

TEST(FlowCheckpoint, ForeignTruncatedAndDamagedCheckpointsAreRefused) {
  const FlowCase c = channel_case();
  const auto dir = scratch("refuse");
  FlowRunOptions o;
  o.plots = false;
  o.frames = 0;
  o.out = dir.string();
  o.stop_after = 5;
  run_flow(c, Device::cpu, o);
  const std::string ck = (dir / "checkpoint.gsflow").string();
  o.stop_after = 0;
  o.restart = ck;
  auto refused = [&](const FlowCase& other, const std::string& says) {
    const auto kind = expect_refusal([&] { run_flow(other, Device::cpu, o); }, says);
    if (kind) {
      EXPECT_EQ(*kind, Error::Kind::invalid_input);
    }
  };
  FlowCase grid = c;
  grid.cells = {20, 10, 1};
  refused(grid, "cells is [40,10] there and [20,10] here");
  FlowCase fluid = c;
  fluid.nu = 0.01;
  refused(fluid, "nu is");
  FlowCase body = c;
  body.obstacles.clear();
  refused(body, "obstacles");
  FlowCase treatment = c;
  treatment.obstacle_treatment = c.obstacle_treatment == ObstacleTreatment::immersed
                                     ? ObstacleTreatment::staircase
                                     : ObstacleTreatment::immersed;
  refused(treatment, "obstacle_treatment");

  const std::string bytes = file_text(ck);
  o.restart = (dir / "short.gsflow").string();
  std::ofstream(o.restart, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  refused(c, "truncated");
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  std::ofstream(o.restart, std::ios::binary) << flipped;
  refused(c, "checksum");
  std::ofstream(o.restart, std::ios::binary) << "not a checkpoint";
  refused(c, "GSFLOWCK");
}

// A checkpoint whose hash is right but whose run state no run could have left (edited
// and written again): refused with the reason, not restarted from.
TEST(FlowCheckpoint, ImpossibleStatesAreRefusedEvenWithAValidHash) {
  const FlowCase c = channel_case();
  const auto dir = scratch("impossible");
  FlowRunOptions o;
  o.plots = false;
  o.frames = 4;
  o.out = dir.string();
  o.stop_after = 5;
  run_flow(c, Device::cpu, o);
  const Checkpoint good = read_checkpoint((dir / "checkpoint.gsflow").string());
  o.stop_after = 0;
  o.restart = (dir / "edited.gsflow").string();
  auto refused = [&](const Checkpoint& edited, const std::string& says) {
    write_checkpoint(o.restart, edited);
    expect_refusal([&] { run_flow(c, Device::cpu, o); }, says);
  };
  Checkpoint frame = good;
  const long long negative_frame[] = {good.get<long long>("run_integers")[0], -7};
  frame.put("run_integers", negative_frame, 2);
  refused(frame, "impossible values");
  Checkpoint time = good;
  std::vector<double> reals = good.get<double>("solver_reals");
  reals[0] = std::nan("");
  time.put("solver_reals", reals.data(), reals.size());
  refused(time, "impossible values");
  Checkpoint times = good;
  std::vector<double> frame_times = good.get<double>("frame_times");
  frame_times.push_back(1.0);
  times.put("frame_times", frame_times.data(), frame_times.size());
  refused(times, "inconsistent");
  // The unedited state, written the same way, restarts.
  write_checkpoint(o.restart, good);
  EXPECT_NO_THROW(run_flow(c, Device::cpu, o));
}

// The format's checks on a file built by hand to its documented layout (magic, version,
// header, blocks, FNV-1a of all before, end mark): a block named twice is refused, and the
// same file with two names reads back.
TEST(FlowCheckpoint, ABlockListedTwiceIsRefused) {
  auto file = [](const std::string& second_name) {
    const std::string header =
        R"({"blocks":[{"name":"a","bytes":8},{"name":")" + second_name + R"(","bytes":8}]})";
    std::string s = "GSFLOWCK";
    auto append = [&](auto v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); };
    append(std::uint32_t(2));
    append(std::uint64_t(header.size()));
    s += header;
    s += std::string(16, '\1');
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    append(h);
    s += "GSFLOWND";
    const auto path = scratch("twice") / (second_name + ".gsflow");
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << s;
    return path.string();
  };
  EXPECT_EQ(read_checkpoint(file("b")).blocks.size(), 2u);
  expect_refusal([&] { read_checkpoint(file("a")); }, "lists block 'a' twice");
}
