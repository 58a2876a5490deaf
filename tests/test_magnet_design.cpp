// The magnet design: signs of the surface jump, solver agreement, the long-magnet limit,
// wire placement, Biot-Savart, input checking and the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gridsolve/apps/magnet/biot_savart.hpp"
#include "gridsolve/apps/magnet/homogeneity.hpp"
#include "gridsolve/apps/magnet/magnet_config.hpp"
#include "gridsolve/apps/magnet/magnet_run.hpp"
#include "gridsolve/apps/magnet/monotone_interpolation.hpp"
#include "gridsolve/apps/magnet/surface_jump.hpp"
#include "gridsolve/apps/magnet/wire_layout.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/solve/solver.hpp"
#include "gridsolve/solve/solver_registry.hpp"

namespace gridsolve::magnet {
namespace {

// The source's magnet in a 1 m box on a coarse mesh: quick, and the physics is all there.
MagnetDesign small_design(double h = 0.025) {
  MagnetDesign d;
  d.r1 = d.z1 = 1.0;
  d.dr = d.dz = h;
  return d;
}

MagnetSolveSettings tight(const std::string& solver, double tol = 1e-10) {
  MagnetSolveSettings s;
  s.solver = solver;
  s.options.tolerance = tol;
  s.options.max_iterations = 200000;
  return s;
}

bool has_solver(const std::string& name) {
  const auto names = solver_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(MagnetSigns, CapConditionAndBodyGrowth) {
  const MagnetDesign d = small_design(0.01);
  const MagnetField f = solve_magnet(d, tight("sor"));
  ASSERT_TRUE(f.report.converged) << f.report.reason;
  const int i0 = d.corner_i(), j0 = d.corner_j();
  // Just above the cap, away from its rim: dPhi/dz = -B / mu0 (one-sided, second order).
  for (int i : {0, i0 / 4, i0 / 2, 3 * i0 / 4}) {
    const double slope = (-3 * f.at(i, j0) + 4 * f.at(i, j0 + 1) - f.at(i, j0 + 2)) / (2 * d.dz);
    EXPECT_NEAR(slope / (-d.B / mu0), 1.0, 0.02) << "at r = " << i * d.dr;
  }
  const SurfaceJump jump = surface_jump(d, f);
  EXPECT_EQ(jump.body.front(), 0.0);  // the midplane is Phi = 0 and Phi_in(0) = 0
  for (std::size_t k = 1; k < jump.body.size(); ++k)
    EXPECT_GT(jump.body[k], jump.body[k - 1])
        << "dPhi must grow toward the cap, z = " << jump.body_z[k];
  // On the cap dPhi keeps growing inward, to the total current at the centre.
  for (std::size_t k = 1; k < jump.cap.size(); ++k) EXPECT_LT(jump.cap[k], jump.cap[k - 1]);
  EXPECT_GT(jump.total_current, d.B * d.z0 / mu0);  // more than the infinite solenoid's
  EXPECT_DOUBLE_EQ(jump.total_current, jump.cap.front());
}

TEST(MagnetSolvers, AgreeToTheTolerance) {
  const MagnetDesign d = small_design();
  const MagnetField sor = solve_magnet(d, tight("sor"));
  ASSERT_TRUE(sor.report.converged) << sor.report.reason;
  const double scale = surface_jump(d, sor).total_current;
  std::vector<std::string> others = {"gauss-seidel", "rb-gs"};
  for (const char* extra : {"mg", "cg", "pcg", "mgcg"})
    if (has_solver(extra)) others.push_back(extra);
  for (const std::string& name : others) {
    const MagnetField f = solve_magnet(d, tight(name));
    ASSERT_TRUE(f.report.converged) << name << ": " << f.report.reason;
    double diff = 0;
    for (std::size_t n = 0; n < f.phi.size(); ++n)
      diff = std::max(diff, std::abs(f.phi[n] - sor.phi[n]));
    EXPECT_LT(diff / scale, 1e-6) << name << " differs from sor";
  }
}

// Measuring the residual of the rows divided by their diagonal moves only where SOR
// stops: the same iterates, so the same solution to the tolerance, after a different
// number of iterations at a loose tolerance; refused for the symmetric solvers.
TEST(MagnetSolvers, DiagonalResidualMovesOnlyTheStop) {
  const MagnetDesign d = small_design();
  const MagnetField volume = solve_magnet(d, tight("sor", 1e-6));
  MagnetSolveSettings s = tight("sor", 1e-6);
  s.residual = "diagonal";
  const MagnetField diagonal = solve_magnet(d, s);
  ASSERT_TRUE(volume.report.converged && diagonal.report.converged);
  EXPECT_NE(volume.report.iterations, diagonal.report.iterations);
  EXPECT_EQ(diagonal.residual, "diagonal");
  const double scale = surface_jump(d, volume).total_current;
  double diff = 0;
  for (std::size_t n = 0; n < volume.phi.size(); ++n)
    diff = std::max(diff, std::abs(volume.phi[n] - diagonal.phi[n]));
  EXPECT_LT(diff / scale, 1e-4);
  // Run to the same count, the two are the same iteration.
  MagnetSolveSettings fixed = tight("sor", 1e-300);
  fixed.options.max_iterations = 40;
  const MagnetField a = solve_magnet(d, fixed);
  fixed.residual = "diagonal";
  const MagnetField b = solve_magnet(d, fixed);
  ASSERT_EQ(a.report.iterations, b.report.iterations);
  for (std::size_t n = 0; n < a.phi.size(); ++n)
    ASSERT_NEAR(a.phi[n], b.phi[n], 1e-9 * scale) << "node " << n;
  s.solver = "cg";
  EXPECT_THROW(solve_magnet(d, s), Error);
  s.solver = "sor";
  s.residual = "cells";
  EXPECT_THROW(solve_magnet(d, s), Error);
}

TEST(MagnetSolvers, FloatMatchesDouble) {
  const MagnetDesign d = small_design();
  const double reference = surface_jump(d, solve_magnet(d, tight("sor"))).total_current;
  for (const std::string& solver : {std::string("sor"), default_magnet_solver()}) {
    MagnetSolveSettings s = tight(solver, default_tolerance(Precision::fp32, find_solver(solver)));
    s.precision = Precision::fp32;
    const MagnetField flt = solve_magnet(d, s);
    ASSERT_TRUE(flt.report.converged) << solver << ": " << flt.report.reason;
    EXPECT_NEAR(surface_jump(d, flt).total_current / reference, 1.0, 2e-4) << solver;
  }
}

TEST(MagnetSolvers, DefaultIsMultigridPreconditionedCgWhenPresent) {
  EXPECT_EQ(default_magnet_solver(), has_solver("mgcg") ? "mgcg" : "sor");
}

// A long magnet is a solenoid: far from the caps the surface current density is
// d(dPhi)/dz = B / mu0 times r1^2 / (r1^2 - r0^2), the share of the return flux that
// squeezes between the magnet and the superconducting wall; -> B / mu0 as r1 grows.
TEST(MagnetPhysics, LongMagnetSlopeIsBOverMu0) {
  MagnetDesign d;
  d.r0 = 0.25;
  d.z0 = 10 * d.r0;
  d.r1 = 10 * d.r0;
  d.z1 = 4.0;
  d.dr = d.dz = 0.025;
  d.axis_span = 0.4;
  const MagnetField f = solve_magnet(d, tight(default_magnet_solver()));
  ASSERT_TRUE(f.report.converged) << f.report.reason;
  const SurfaceJump jump = surface_jump(d, f);
  const int k = int(std::lround(0.5 / d.dz));  // over the central metre of the body
  const double slope = (jump.body[std::size_t(k)] - jump.body[0]) / (k * d.dz);
  const double limit = d.B / mu0 * d.r1 * d.r1 / (d.r1 * d.r1 - d.r0 * d.r0);
  EXPECT_NEAR(slope / limit, 1.0, 2e-3);
  EXPECT_NEAR(slope / (d.B / mu0), 1.0, 0.015);
}

TEST(MagnetWires, EvenLevelsOnTheSurface) {
  const MagnetDesign d = small_design(0.01);
  const MagnetResult r = run_magnet(d, tight(default_magnet_solver(), 1e-9));
  ASSERT_EQ(int(r.wires.size()), d.wires);
  const double step = r.jump.total_current / d.wires;
  double last_s = -1;
  for (const Wire& w : r.wires) {
    EXPECT_NEAR(w.current, step, 1e-9 * step);
    EXPECT_NEAR(w.level, (w.index - 0.5) * step, 1e-9 * step);
    const double s = w.surface == "body" ? w.z : d.z0 + (d.r0 - w.r);
    EXPECT_GT(s, last_s);  // in order along the surface
    last_s = s;
    if (w.surface == "body") {
      EXPECT_DOUBLE_EQ(w.r, d.r0);
    } else {
      EXPECT_DOUBLE_EQ(w.z, d.z0);
    }
    // The wire sits where dPhi reaches its level (linear reading of the sampled curve).
    const std::vector<double>& xs = w.surface == "body" ? r.jump.body_z : r.jump.cap_r;
    const std::vector<double>& ys = w.surface == "body" ? r.jump.body : r.jump.cap;
    const double x = w.surface == "body" ? w.z : w.r;
    const std::size_t n = std::size_t(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
    ASSERT_GT(n, 0u);
    ASSERT_LT(n, xs.size());
    const double t = (x - xs[n - 1]) / (xs[n] - xs[n - 1]);
    EXPECT_NEAR((1 - t) * ys[n - 1] + t * ys[n], w.level, 0.02 * step);
  }
  // The loops alone make about the target field at the centre; the rest comes from the
  // superconducting box, which is close in this small design.
  EXPECT_NEAR(r.quality.b0 / d.B, 1.0, 0.05);
  EXPECT_GT(r.quality.axis_ppm, 0.0);
  EXPECT_GT(r.quality.sphere_ppm, 0.0);
  EXPECT_NEAR(r.quality.efficiency, r.quality.b0 / step, 1e-12);
}

TEST(MagnetWires, NonMonotoneSurfaceCurrentIsAnError) {
  const MagnetDesign d = small_design();
  SurfaceJump j;
  j.path_s = {0, 0.1, 0.2, 0.3};
  j.path = {0, 2, 1, 3};
  j.total_current = 3;
  EXPECT_THROW(place_wires(d, j, 3), Error);
}

TEST(MonotoneCubic, KeepsMonotoneDataMonotone) {
  const MonotoneCubic f({0, 1, 2, 3, 4}, {0, 0.1, 3, 3.1, 10});
  double last = -1;
  for (int k = 0; k <= 400; ++k) {
    const double v = f(k / 100.0);
    EXPECT_GE(v, last);
    last = v;
  }
  EXPECT_DOUBLE_EQ(f(2), 3.0);
  const MonotoneCubic line({0, 1, 3}, {1, 3, 7});
  EXPECT_NEAR(line(2.2), 5.4, 1e-12);  // linear data are reproduced
  EXPECT_THROW(MonotoneCubic({0, 1, 1}, {0, 1, 2}), Error);
}

TEST(BiotSavart, LoopCentreAndOffAxisAgreement) {
  const std::vector<CurrentLoop> one = {{0.3, 0.1, 50.0}};
  EXPECT_NEAR(axial_field(one, 0.1), mu0 * 50.0 / (2 * 0.3), 1e-15);
  // Off-axis formula tends to the axial one.
  const FieldRZ near_axis = loop_field(one, 1e-5, 0.25);
  EXPECT_NEAR(near_axis.bz / axial_field(one, 0.25), 1.0, 1e-8);
  EXPECT_LT(std::abs(near_axis.br), 1e-4 * near_axis.bz);
  // Against a direct Biot-Savart sum over the loop at an off-axis point.
  const double a = 0.3, zc = 0.1, current = 50, r = 0.17, z = -0.05;
  double br = 0, bz = 0;
  const int segments = 20000;
  for (int s = 0; s < segments; ++s) {
    const double phi = 2 * std::numbers::pi * (s + 0.5) / segments,
                 dphi = 2 * std::numbers::pi / segments;
    const double dl[3] = {-a * std::sin(phi) * dphi, a * std::cos(phi) * dphi, 0};
    const double d[3] = {r - a * std::cos(phi), -a * std::sin(phi), z - zc};
    const double n = std::pow(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1.5);
    br += mu0 * current / (4 * std::numbers::pi) * (dl[1] * d[2] - dl[2] * d[1]) / n;
    bz += mu0 * current / (4 * std::numbers::pi) * (dl[0] * d[1] - dl[1] * d[0]) / n;
  }
  const FieldRZ f = loop_field({{a, zc, current}}, r, z);
  EXPECT_NEAR(f.bz / bz, 1.0, 1e-6);
  EXPECT_NEAR(f.br / br, 1.0, 1e-6);
}

TEST(MagnetInput, BadGeometryIsAClearError) {
  auto message = [](MagnetDesign d) -> std::string {
    try {
      d.validate();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::invalid_input);
      return e.what();
    }
    return "";
  };
  MagnetDesign d;
  d.r1 = d.r0;
  EXPECT_NE(message(d).find("r1 must exceed"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.z1 = 0.4;
  EXPECT_NE(message(d).find("z1 must exceed"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.dr = d.dz = 0.007;
  EXPECT_NE(message(d).find("mesh spacing must fit the magnet"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.dz = 0.3;
  EXPECT_NE(message(d).find("mesh spacing must fit"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.B = -0.008;
  EXPECT_NE(message(d).find("B must be positive"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.wires = 0;
  EXPECT_NE(message(d).find("at least 1"), std::string::npos) << message(d);
  d = MagnetDesign();
  d.sphere_radius = 0.3;
  EXPECT_NE(message(d).find("sphere"), std::string::npos) << message(d);
  EXPECT_EQ(message(MagnetDesign()), "");
}

TEST(MagnetInput, ConfigFile) {
  const MagnetConfig c = parse_magnet_config(
      "[magnet]\nr0 = 0.2\nz0 = 0.4\nr1 = 1\nz1 = 1.2\nh = 0.01\nB = 0.01\nwires = 6\n"
      "[solver]\nname = \"sor\"\ntolerance = 1e-8\n[output]\ndir = \"x\"\n",
      "test.toml");
  EXPECT_DOUBLE_EQ(c.design.r0, 0.2);
  EXPECT_DOUBLE_EQ(c.design.z1, 1.2);
  EXPECT_DOUBLE_EQ(c.design.dr, 0.01);
  EXPECT_DOUBLE_EQ(c.design.dz, 0.01);
  EXPECT_DOUBLE_EQ(c.design.B, 0.01);
  EXPECT_EQ(c.design.wires, 6);
  EXPECT_EQ(c.solve.solver, "sor");
  EXPECT_DOUBLE_EQ(*c.solve.tolerance, 1e-8);
  EXPECT_EQ(c.out, "x");
  try {
    parse_magnet_config("[magnet]\nradius = 0.2\n", "bad.toml");
    FAIL() << "an unknown key must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("radius"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_magnet_config("[magnet]\nwires = \"ten\"\n", "bad.toml"), Error);
}

#ifdef GRIDSOLVE_CLI
int run_cli(const std::string& args) {
  const int rc =
      std::system((std::string(GRIDSOLVE_CLI) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(MagnetCommand, WritesTheDesign) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridsolve_magnet_cli";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(
      run_cli("magnet --device cpu --h 0.025 --r1 1 --z1 1 --wires 6 -q --out " + dir.string()), 0);
  for (const char* f : {"summary.json", "dphi_body.csv", "dphi_cap.csv", "wires.csv",
                        "field_axis.csv", "phi.h5", "phi.xdmf"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  std::ifstream in(dir / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GT(j["total_current"].get<double>(), 3000.0);
  EXPECT_EQ(j["wires"].size(), 6u);
  EXPECT_TRUE(j["solve"]["converged"].get<bool>());
  std::filesystem::remove_all(dir);
}

TEST(MagnetCommand, BadInputExitsWithTwo) {
  EXPECT_EQ(run_cli("magnet --device cpu --r1 0.2 --no-plots -q --out /tmp/gridsolve_magnet_bad"),
            2);
  EXPECT_EQ(run_cli("magnet --device cpu --h 0.007 --no-plots -q --out /tmp/gridsolve_magnet_bad"),
            2);
  EXPECT_EQ(run_cli("magnet --device cpu --B -1 --no-plots -q --out /tmp/gridsolve_magnet_bad"), 2);
  EXPECT_EQ(run_cli("magnet --device cpu --wires 0 --no-plots -q --out /tmp/gridsolve_magnet_bad"),
            2);
  EXPECT_FALSE(std::filesystem::exists("/tmp/gridsolve_magnet_bad/summary.json"));
}

TEST(MagnetCommand, StudyReportsOrder) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "gridsolve_magnet_study";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(
      run_cli("magnet study --device cpu --r1 1 --z1 1 --tol 1e-9 --spacings 0.05 0.025 0.0125 "
              "--boxes 1 1.5 --box-spacing 0.05 -q --out " +
              dir.string()),
      0);
  std::ifstream in(dir / "study.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("mesh,0.0125"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("box,0.05,1.5"), std::string::npos) << text.str();
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace gridsolve::magnet
