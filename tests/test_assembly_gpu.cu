// Assembly on the GPU against the CPU, coefficient by coefficient: Cartesian 2D / 3D
// (formulas, per-node arrays, every side kind, fixed and cut-out regions, all-Neumann
// projection, the uniform fast path) and axisymmetric (the magnet with its cut fluxes),
// in float and double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "gridsolve/apps/magnet/magnet_problem.hpp"
#include "gridsolve/apps/magnet/magnet_solve.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "source_map_check.hpp"

namespace gridsolve {
namespace {

// Both sides compute the same sums; the device may contract a * b + c into one rounding.
template <class T>
double rounding() {
  return sizeof(T) == 8 ? 1e-13 : 1e-6;
}

// Every node of two fields agrees within rounding of the field's scale.
template <class T>
void expect_same_field(const Field<T>& cpu, const Field<T>& gpu, const std::string& what) {
  ASSERT_EQ(cpu.empty(), gpu.empty()) << what;
  if (cpu.empty()) return;
  ASSERT_EQ(gpu.device(), Device::cuda) << what << " was not built on the GPU";
  const std::vector<T> a = cpu.to_vector(), b = gpu.to_vector();
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0;
  for (const T v : a) scale = std::max(scale, std::abs(double(v)));
  std::size_t worst = 0;
  double diff = 0;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const double e = std::abs(double(a[n]) - double(b[n]));
    if (!(e <= diff)) diff = e, worst = n;
  }
  EXPECT_LE(diff, rounding<T>() * std::max(scale, 1e-300))
      << what << ": node " << worst << " cpu " << a[worst] << " gpu " << b[worst];
}

void expect_same_mask(const Field<std::uint8_t>& cpu, const Field<std::uint8_t>& gpu) {
  ASSERT_EQ(cpu.empty(), gpu.empty()) << "mask";
  if (cpu.empty()) return;
  const std::vector<std::uint8_t> a = cpu.to_vector(), b = gpu.to_vector();
  ASSERT_EQ(a, b) << "mask";
}

template <class T>
void expect_same(const Discretization<T>& cpu, const Discretization<T>& gpu) {
  const StencilOperator<T>& c = cpu.op;
  const StencilOperator<T>& g = gpu.op;
  EXPECT_EQ(g.device, Device::cuda);
  EXPECT_EQ(c.uniform, g.uniform);
  EXPECT_EQ(c.unknowns, g.unknowns);
  EXPECT_EQ(c.singular, g.singular);
  EXPECT_NEAR(c.rhs_mismatch, g.rhs_mismatch, 1e-9);
  EXPECT_EQ(c.jacobi_radius, g.jacobi_radius);
  EXPECT_EQ(c.has_cutouts, g.has_cutouts);
  EXPECT_EQ(c.has_fixed_regions, g.has_fixed_regions);
  EXPECT_EQ(c.k_constant, g.k_constant);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(c.active.lo[a], g.active.lo[a]);
    EXPECT_EQ(c.active.hi[a], g.active.hi[a]);
  }
  EXPECT_EQ(c.cp, g.cp);
  EXPECT_EQ(c.cw, g.cw);
  EXPECT_EQ(c.b_const, g.b_const);
  expect_same_field(c.ap, g.ap, "ap");
  expect_same_field(c.aw, g.aw, "aw");
  expect_same_field(c.ae, g.ae, "ae");
  expect_same_field(c.as, g.as, "as");
  expect_same_field(c.an, g.an, "an");
  expect_same_field(c.ab, g.ab, "ab");
  expect_same_field(c.at, g.at, "at");
  expect_same_field(c.rhs, g.rhs, "rhs");
  expect_same_field(cpu.u, gpu.u, "u");
  expect_same_mask(c.mask, g.mask);
}

// A Cartesian problem that exercises every input kind: k and f as formulas or per-node
// arrays, Neumann data as a formula, Robin sides, a fixed box with a formula value and a
// cut-out box.
ProblemSpec mixed_problem(int dims, int n, bool per_node) {
  ProblemSpec s;
  s.grid = Grid::box(dims, {n, n + 2, dims == 3 ? n - 1 : 1}, {0, 0, 0}, {1, 1.2, 1});
  if (per_node) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> k(0.5, 2.0), f(-1.0, 1.0);
    s.k_nodes.resize(std::size_t(s.grid.node_count()));
    s.f_nodes.resize(s.k_nodes.size());
    for (double& v : s.k_nodes) v = k(rng);
    for (double& v : s.f_nodes) v = f(rng);
  } else {
    s.k = Expression::parse("1 + x * y + 0.5 * sin(3 * z)");
    s.f = Expression::parse("cos(2 * x) * exp(y) - z");
  }
  s.boundaries[x_low].kind = BoundaryKind::neumann;
  s.boundaries[x_low].g = Expression::parse("y * y - 0.3");
  s.boundaries[x_high].kind = BoundaryKind::robin;
  s.boundaries[x_high].alpha = 2.0;
  s.boundaries[x_high].g = Expression::parse("1 + y");
  s.boundaries[y_high].kind = BoundaryKind::neumann;
  s.boundaries[y_high].g = Expression::value(0.25);
  MaskRegion fixed;
  fixed.kind = NodeKind::fixed;
  fixed.lo = {0.2, 0.2, 0.2};
  fixed.hi = {0.35, 0.4, 0.5};
  fixed.value = Expression::parse("x + 2 * y");
  MaskRegion hole;
  hole.kind = NodeKind::outside;
  hole.lo = {0.55, 0.5, 0.3};
  hole.hi = {0.8, 0.9, 0.7};
  s.regions = {fixed, hole};
  return s;
}

template <class T>
void check_cartesian() {
  for (const int dims : {2, 3})
    for (const bool per_node : {false, true}) {
      SCOPED_TRACE(std::to_string(dims) + "D, " + (per_node ? "per-node k, f" : "formulas"));
      const ProblemSpec spec = mixed_problem(dims, dims == 3 ? 21 : 83, per_node);
      expect_same(assemble<T>(spec, Device::cpu), assemble<T>(spec, Device::cuda));
    }
}

TEST(AssemblyOnGpu, CartesianMatchesCpuDouble) {
  SKIP_WITHOUT_GPU();
  check_cartesian<double>();
}

TEST(AssemblyOnGpu, CartesianMatchesCpuFloat) {
  SKIP_WITHOUT_GPU();
  check_cartesian<float>();
}

// The model problems: uniform fast path (with a fixed patch, random f), all-Neumann
// projection, Robin with a hole and variable k, in 2D and 3D.
TEST(AssemblyOnGpu, ModelProblemsMatchCpu) {
  SKIP_WITHOUT_GPU();
  for (const int dims : {2, 3})
    for (const char* sides : {"dirichlet", "neumann", "robin"})
      for (const char* mask : {"none", "fixed", "hole"}) {
        ModelProblem m;
        m.dims = dims;
        m.n = dims == 3 ? 17 : 65;
        m.sides = sides;
        m.mask = mask;
        m.coefficient = std::string(mask) == "hole" ? "variable" : "constant";
        // Random data only where the model allows it: zero Dirichlet sides, no mask.
        m.rhs = std::string(sides) == "dirichlet" && std::string(mask) == "none" ? "random"
                                                                                 : "manufactured";
        SCOPED_TRACE(std::to_string(dims) + "D " + sides + " " + mask);
        const ProblemSpec spec = make_model_problem(m);
        expect_same(assemble<double>(spec, Device::cpu), assemble<double>(spec, Device::cuda));
      }
}

TEST(AssemblyOnGpu, AllNeumannProjectionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  ProblemSpec s;
  s.grid = Grid::box(2, {49, 41, 1}, {0, 0, 0}, {1, 1, 0});
  for (BoundaryCondition& bc : s.boundaries) bc.kind = BoundaryKind::neumann;
  s.f = Expression::parse("cos(pi * x) * cos(pi * y) + 1e-3");
  const Discretization<double> cpu = assemble<double>(s, Device::cpu);
  ASSERT_TRUE(cpu.op.singular);
  expect_same(cpu, assemble<double>(s, Device::cuda));
}

template <class T>
void check_magnet() {
  for (const double h : {0.05, 0.0125}) {
    magnet::MagnetDesign d;
    d.r1 = 1.5, d.z1 = 1.0, d.dr = h, d.dz = h;
    SCOPED_TRACE("magnet, h = " + std::to_string(h));
    const ProblemSpec spec = magnet::make_magnet_problem(d);
    const CutFlux flux = magnet::magnet_cut_flux(d);
    expect_same(assemble_axisymmetric<T>(spec, Device::cpu, flux),
                assemble_axisymmetric<T>(spec, Device::cuda, flux));
  }
}

TEST(AssemblyOnGpu, AxisymmetricMagnetMatchesCpuDouble) {
  SKIP_WITHOUT_GPU();
  check_magnet<double>();
}

TEST(AssemblyOnGpu, AxisymmetricMagnetMatchesCpuFloat) {
  SKIP_WITHOUT_GPU();
  check_magnet<float>();
}

// Axisymmetric with formulas everywhere, a Robin side, a fixed box and a cut-out whose
// flux varies along the surface.
TEST(AssemblyOnGpu, AxisymmetricFormulasMatchCpu) {
  SKIP_WITHOUT_GPU();
  for (const bool per_node : {false, true}) {
    SCOPED_TRACE(per_node ? "per-node k, f" : "formulas");
    ProblemSpec s = mixed_problem(2, 61, per_node);
    s.grid.geometry = Geometry::axisymmetric;
    const CutFlux flux = [](double r, double z, int axis, int sign) {
      return sign * (axis == 0 ? 1 + r * z : 2 - z);
    };
    expect_same(assemble_axisymmetric<double>(s, Device::cpu, flux),
                assemble_axisymmetric<double>(s, Device::cuda, flux));
  }
}

// The whole magnet solve on the GPU (assembly there, the potential read back from the
// solve's field) against the CPU.
TEST(AssemblyOnGpu, MagnetPotentialMatchesCpu) {
  SKIP_WITHOUT_GPU();
  magnet::MagnetDesign d;
  d.r1 = d.z1 = 1.0, d.dr = d.dz = 0.01;
  magnet::MagnetSolveSettings s;
  s.solver = "mgcg";
  s.options.tolerance = 1e-10;
  s.device = Device::cpu;
  const magnet::MagnetField cpu = magnet::solve_magnet(d, s);
  s.device = Device::cuda;
  const magnet::MagnetField gpu = magnet::solve_magnet(d, s);
  ASSERT_EQ(cpu.phi.size(), gpu.phi.size());
  double scale = 0, diff = 0;
  for (std::size_t n = 0; n < cpu.phi.size(); ++n) {
    scale = std::max(scale, std::abs(cpu.phi[n]));
    diff = std::max(diff, std::abs(cpu.phi[n] - gpu.phi[n]));
  }
  EXPECT_GT(scale, 100.0);
  EXPECT_LE(diff, 1e-7 * scale);
  EXPECT_GT(gpu.device_start_seconds, 0.0);
}

// A source map built on the GPU writes, from sources in GPU memory, the right-hand side
// the GPU assembly builds for them.
TEST(AssemblyOnGpu, SourceMapWritesWhatAssemblyWrites) {
  SKIP_WITHOUT_GPU();
  for (const ModelProblem& m : testing::source_map_cases()) {
    SCOPED_TRACE(std::to_string(m.dims) + "D " + m.sides + ", mask " + m.mask);
    testing::expect_map_writes_assembled_rhs<double>(make_model_problem(m), Device::cuda);
    testing::expect_map_writes_assembled_rhs<float>(make_model_problem(m), Device::cuda);
  }
}

}  // namespace
}  // namespace gridsolve
