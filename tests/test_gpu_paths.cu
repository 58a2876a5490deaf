// GPU paths against the CPU reference: generic loops, tuned Jacobi, colour-reordered SOR
// (uniform and general operators), residual norms and whole solves, on random data in
// float and double, 2D and 3D.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_test_support.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/apps/magnet/magnet_problem.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/assemble_axisymmetric.hpp"
#include "gridsolve/problem/row_scaling.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/cuda/tuned_kernels.hpp"
#include "gridsolve/solve/jacobi.hpp"
#include "gridsolve/solve/red_black_sor.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

template <class T>
const char* precision_name() {
  return sizeof(T) == 8 ? "double" : "float";
}

// Agreement expected between two orders of the same arithmetic (FMA contraction on the
// device, a reciprocal instead of a division in the tuned kernels), after a few sweeps.
template <class T>
double rounding_tolerance() {
  return sizeof(T) == 8 ? 1e-12 : 2e-5;
}

// Every node (ghosts excluded) in [-1, 1], different for every seed.
template <class T>
void fill_random(Field<T>& f, std::uint64_t seed) {
  Field<T> host = f.device() == Device::cpu ? Field<T>() : f.copy_to(Device::cpu);
  Field<T>& h = f.device() == Device::cpu ? f : host;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const FieldView<T> v = h.view();
  const auto n = h.layout().n;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) v(i, j, k) = T(dist(rng));
  if (f.device() != Device::cpu) f.copy_from(host);
}

// Random values on the free unknowns only; fixed and boundary nodes keep their data.
template <class T>
void randomize_unknowns(const StencilOperator<T>& op, Field<T>& u, std::uint64_t seed) {
  Field<T> host = u.copy_to(Device::cpu);
  const StencilOperator<T> hop = op.copy_to(Device::cpu);
  const StencilView<T> a = hop.view();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const FieldView<T> v = host.view();
  const Box& b = op.active;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (a.is_free(i, j, k)) v(i, j, k) = T(dist(rng));
  u.copy_from(host);
}

// max |a - b| over all nodes, relative to max |b|; NaN counts as infinitely far.
template <class T>
double relative_difference(const Field<T>& a, const Field<T>& b) {
  const std::vector<T> x = a.to_vector(), y = b.to_vector();
  EXPECT_EQ(x.size(), y.size());
  double d = 0, s = 0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const double dx = std::abs(double(x[n]) - double(y[n]));
    d = std::isnan(dx) ? INFINITY : std::max(d, dx);
    s = std::max(s, std::abs(double(y[n])));
  }
  return s > 0 ? d / s : d;
}

// A uniform operator built by hand so that every variant is reachable: anisotropic
// spacing (every coefficient differs by axis), an optional random right-hand side, an
// optional random mask of fixed nodes, and an optional active box smaller than the
// interior (unaligned first x).
struct UniformCase {
  int dims = 2;
  std::array<int, 3> n{17, 17, 1};
  bool rhs = false;
  bool mask = false;
  bool shrunk = false;
  std::string describe() const {
    return std::to_string(dims) + "D " + std::to_string(n[0]) + "x" + std::to_string(n[1]) +
           (dims == 3 ? "x" + std::to_string(n[2]) : "") + (rhs ? " rhs" : "") +
           (mask ? " mask" : "") + (shrunk ? " shrunk" : "");
  }
};

template <class T>
StencilOperator<T> uniform_operator(const UniformCase& c, std::uint64_t seed) {
  StencilOperator<T> op;
  op.grid = Grid::box(c.dims, c.n, {0, 0, 0}, {1.0, 0.7, 1.3});
  op.device = Device::cpu;
  op.uniform = true;
  const auto& h = op.grid.spacing;
  const double hz = c.dims == 3 ? h[2] : 1.0;
  op.cw = op.ce = T(h[1] * hz / h[0]);
  op.cs = op.cn = T(h[0] * hz / h[1]);
  op.cb = op.ct = T(c.dims == 3 ? h[0] * h[1] / h[2] : 0.0);
  op.cp = T(2 * double(op.cw) + 2 * double(op.cs) + 2 * double(op.cb));
  op.b_const = T(0.37 * h[0] * h[1] * hz);
  const int z = c.dims == 3 ? 1 : 0;
  op.active = Box{{1, 1, z}, {c.n[0] - 2, c.n[1] - 2, c.dims == 3 ? c.n[2] - 2 : 0}};
  if (c.shrunk) op.active = Box{{3, 2, z}, {c.n[0] - 4, c.n[1] - 2, c.dims == 3 ? c.n[2] - 3 : 0}};
  std::mt19937_64 rng(seed);
  if (c.rhs) {
    op.rhs = Field<T>(op.grid, Device::cpu);
    fill_random(op.rhs, seed + 1);
  }
  if (c.mask) {
    op.mask = Field<std::uint8_t>(op.grid, Device::cpu);
    const FieldView<std::uint8_t> m = op.mask.view();
    std::bernoulli_distribution fixed(0.2);
    for (int k = 0; k < c.n[2]; ++k)
      for (int j = 0; j < c.n[1]; ++j)
        for (int i = 0; i < c.n[0]; ++i) m(i, j, k) = fixed(rng) ? 1 : 0;
  }
  op.unknowns = op.active.cells();
  op.jacobi_radius = 0.9;
  return op;
}

std::vector<UniformCase> uniform_cases() {
  std::vector<UniformCase> out;
  const std::vector<std::array<int, 3>> sizes2 = {
      {17, 17, 1}, {18, 23, 1}, {300, 41, 1}, {263, 70, 1}};
  const std::vector<std::array<int, 3>> sizes3 = {{13, 11, 9}, {40, 19, 14}, {71, 10, 12}};
  for (int variant = 0; variant < 5; ++variant) {
    for (const auto& n : sizes2) {
      UniformCase c;
      c.dims = 2, c.n = n;
      c.rhs = variant & 1, c.mask = variant & 2, c.shrunk = variant == 4;
      out.push_back(c);
    }
    for (const auto& n : sizes3) {
      UniformCase c;
      c.dims = 3, c.n = n;
      c.rhs = variant & 1, c.mask = variant & 2, c.shrunk = variant == 4;
      out.push_back(c);
    }
  }
  return out;
}

// Max |after - before| over the operator's free active nodes, on the host.
template <class T>
double host_max_update(const StencilOperator<T>& op, const Field<T>& before,
                       const Field<T>& after) {
  const StencilOperator<T> hop = op.copy_to(Device::cpu);
  const StencilView<T> a = hop.view();
  const Field<T> x = before.copy_to(Device::cpu), y = after.copy_to(Device::cpu);
  const FieldView<const T> xv = x.cview(), yv = y.cview();
  double m = 0;
  const Box& b = op.active;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i)
        if (a.is_free(i, j, k))
          m = std::max(m, std::abs(double(yv(i, j, k)) - double(xv(i, j, k))));
  return m;
}

template <class T>
void check_tuned_jacobi(const UniformCase& c, std::uint64_t seed) {
  SCOPED_TRACE(c.describe() + " " + precision_name<T>());
  const StencilOperator<T> cpu_op = uniform_operator<T>(c, seed);
  const StencilOperator<T> op = cpu_op.copy_to(Device::cuda);
  ASSERT_TRUE(tuned::jacobi_applies(op));
  ASSERT_FALSE(tuned::jacobi_applies(cpu_op));
  Field<T> u(op.grid, Device::cuda);
  fill_random(u, seed + 2);
  for (const T weight : {T(1), T(0.8)}) {
    // Poisoned outputs: nodes a sweep must not write keep values unlike the input's.
    Field<T> generic(op.grid, Device::cuda), tuned_out(op.grid, Device::cuda);
    fill_random(generic, seed + 3);
    tuned_out.copy_from(generic);
    Field<T> cpu_out = generic.copy_to(Device::cpu);
    const Field<T> cpu_in = u.copy_to(Device::cpu);
    jacobi_sweep_generic(op, u, generic, weight);
    jacobi_sweep_generic(cpu_op, cpu_in, cpu_out, weight);
    Buffer<double> max_update(Device::cuda, 1);
    tuned::jacobi_sweep(op, u, tuned_out, weight, max_update.data());
    double reported = -1;
    copy_bytes(&reported, Device::cpu, max_update.data(), Device::cuda, sizeof(double));
    const double tol = rounding_tolerance<T>();
    EXPECT_LE(relative_difference(tuned_out, generic), tol)
        << "tuned vs generic, weight " << weight;
    EXPECT_LE(relative_difference(generic, cpu_out), tol)
        << "generic GPU vs CPU, weight " << weight;
    const double expected = host_max_update(cpu_op, cpu_in, cpu_out);
    EXPECT_GT(expected, 0.0);
    EXPECT_NEAR(reported, expected, 10 * tol * std::max(1.0, expected)) << "max update";
    // Without a max_update pointer the sweep is the same.
    Field<T> again(op.grid, Device::cuda);
    fill_random(again, seed + 3);
    tuned::jacobi_sweep(op, u, again, weight, nullptr);
    EXPECT_EQ(relative_difference(again, tuned_out), 0.0);
  }
  // Several sweeps in a row stay together.
  Field<T> a = u.copy_to(Device::cuda), b = u.copy_to(Device::cuda);
  Field<T> ga = u.copy_to(Device::cuda), gb = u.copy_to(Device::cuda);
  for (int s = 0; s < 6; ++s) {
    tuned::jacobi_sweep(op, s % 2 ? b : a, s % 2 ? a : b, T(1), nullptr);
    jacobi_sweep_generic(op, s % 2 ? gb : ga, s % 2 ? ga : gb, T(1));
  }
  EXPECT_LE(relative_difference(a, ga), 4 * rounding_tolerance<T>()) << "after 6 sweeps";
}

// Nodes that are not unknowns (outside the active box, masked) whose value changed.
template <class T>
int changed_known_nodes(const StencilOperator<T>& cpu_op, const Field<T>& before,
                        const Field<T>& after) {
  const StencilView<T> a = cpu_op.view();
  const Field<T> x = before.copy_to(Device::cpu), y = after.copy_to(Device::cpu);
  const FieldView<const T> xv = x.cview(), yv = y.cview();
  const auto n = x.layout().n;
  int changed = 0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        if (!(cpu_op.active.contains(i, j, k) && a.is_free(i, j, k)) &&
            !(xv(i, j, k) == yv(i, j, k)))
          ++changed;
  return changed;
}

// The colour-reordered SOR on cpu_op (copied to the GPU) from u against the generic
// red-black iteration on the GPU and the CPU: split and merge, residual norms, several
// iterations and the measuring iteration.
template <class T>
void check_coloured_sor_from(const StencilOperator<T>& cpu_op, const Field<T>& u) {
  const StencilOperator<T> op = cpu_op.copy_to(Device::cuda);
  ASSERT_TRUE(tuned::coloured_sor_applies(op));
  ASSERT_EQ(u.device(), Device::cuda);
  const T omega = T(1.37);
  const double tol = rounding_tolerance<T>();

  tuned::ColouredSor<T> sor(op, u);
  // The colour split and merge alone give the field back.
  Field<T> stored(op.grid, Device::cuda);
  stored.copy_from(u);
  sor.store(stored);
  EXPECT_EQ(relative_difference(stored, u), 0.0) << "store after load";
  EXPECT_NEAR(sor.residual_norm(), op.residual_norm(nullptr, u),
              tol * 100 * std::max(1.0, op.residual_norm(nullptr, u)))
      << "residual norm before iterating";

  Field<T> generic = u.copy_to(Device::cuda);
  Field<T> cpu = u.copy_to(Device::cpu);
  sor.iterate(omega, 3);
  for (int it = 0; it < 3; ++it) {
    red_black_iteration_generic(op, generic, omega);
    red_black_iteration_generic(cpu_op, cpu, omega);
  }
  sor.store(stored);
  EXPECT_LE(relative_difference(stored, generic), 4 * tol) << "3 coloured vs generic iterations";
  EXPECT_EQ(changed_known_nodes(cpu_op, u, stored), 0) << "known nodes must keep their values";
  EXPECT_LE(relative_difference(generic, cpu), 4 * tol) << "generic GPU vs CPU red-black";

  const Field<T> before = stored.copy_to(Device::cuda);
  const double reported = sor.iterate_measuring_update(omega);
  sor.store(stored);
  red_black_iteration_generic(op, generic, omega);
  EXPECT_LE(relative_difference(stored, generic), 4 * tol) << "measuring iteration";
  const double expected = host_max_update(op, before, stored);
  EXPECT_GT(expected, 0.0);
  EXPECT_NEAR(reported, expected, 10 * tol * std::max(1.0, expected)) << "max update";

  const double device_norm = sor.residual_norm();
  const double cpu_norm = cpu_op.residual_norm(nullptr, stored.copy_to(Device::cpu));
  EXPECT_GT(cpu_norm, 0.0);
  EXPECT_NEAR(device_norm, cpu_norm, 100 * tol * std::max(1.0, cpu_norm)) << "residual norm";
}

template <class T>
void check_coloured_sor(const UniformCase& c, std::uint64_t seed) {
  SCOPED_TRACE(c.describe() + " " + precision_name<T>());
  const StencilOperator<T> cpu_op = uniform_operator<T>(c, seed);
  Field<T> u(cpu_op.grid, Device::cuda);
  fill_random(u, seed + 5);
  check_coloured_sor_from(cpu_op, u);
}

class UniformKernels : public ::testing::TestWithParam<int> {};

TEST_P(UniformKernels, TunedJacobiMatchesGeneric) {
  SKIP_WITHOUT_GPU();
  const UniformCase c = uniform_cases()[std::size_t(GetParam())];
  check_tuned_jacobi<double>(c, 100 + GetParam());
  check_tuned_jacobi<float>(c, 200 + GetParam());
}

TEST_P(UniformKernels, ColouredSorMatchesGenericRedBlack) {
  SKIP_WITHOUT_GPU();
  const UniformCase c = uniform_cases()[std::size_t(GetParam())];
  check_coloured_sor<double>(c, 300 + GetParam());
  check_coloured_sor<float>(c, 400 + GetParam());
}

template <class T>
void check_fused_sor_from(const StencilOperator<T>& cpu_op, const Field<T>& u, double min_coverage,
                          double max_coverage);

// Uniform operators on the fused kernel. With a source term (a constant b or a field)
// every row is the node's own; without one (b = 0, no field) every row is its column's.
TEST_P(UniformKernels, FusedSorMatchesGenericRedBlack) {
  SKIP_WITHOUT_GPU();
  const UniformCase c = uniform_cases()[std::size_t(GetParam())];
  if (c.dims != 2) GTEST_SKIP() << "2D kernel";
  auto run = [&](auto zero, std::uint64_t seed) {
    using T = decltype(zero);
    SCOPED_TRACE(c.describe() + " " + precision_name<T>());
    StencilOperator<T> cpu_op = uniform_operator<T>(c, seed);
    Field<T> u(cpu_op.grid, Device::cuda);
    fill_random(u, seed + 5);
    check_fused_sor_from(cpu_op, u, 0.0, 0.3);
    if (!c.rhs) {
      SCOPED_TRACE("b = 0");
      cpu_op.b_const = T(0);
      check_fused_sor_from(cpu_op, u, 1.0, 1.0);
    }
  };
  run(0.0, 900 + GetParam());
  run(0.0f, 950 + GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, UniformKernels, ::testing::Range(0, int(uniform_cases().size())));

// Assembled problems, from the uniform fast path to per-node coefficients with Neumann
// and Robin sides and masks.
struct ModelCase {
  const char* sides;
  const char* mask;
  const char* coefficient;
  const char* rhs;
};
const ModelCase model_cases[] = {
    {"dirichlet", "none", "constant", "random"},
    {"dirichlet", "fixed", "constant", "manufactured"},
    {"neumann", "hole", "variable", "manufactured"},
    {"robin", "fixed", "constant", "manufactured"},
    {"neumann", "none", "variable", "manufactured"},
};

ProblemSpec model_spec(const ModelCase& m, int dims, int n) {
  ModelProblem p;
  p.dims = dims;
  p.n = n;
  p.sides = m.sides;
  p.mask = m.mask;
  p.coefficient = m.coefficient;
  p.rhs = m.rhs;
  p.seed = 5;
  return make_model_problem(p);
}

std::string describe(const ModelCase& m, int dims, int n) {
  return std::to_string(dims) + "D n=" + std::to_string(n) + " " + m.sides + " sides, mask " +
         m.mask + ", " + m.coefficient + " k, " + m.rhs + " rhs";
}

template <class T>
void check_generic_paths(const ModelCase& m, int dims, int n) {
  SCOPED_TRACE(describe(m, dims, n) + " " + precision_name<T>());
  const ProblemSpec spec = model_spec(m, dims, n);
  Discretization<T> cpu = assemble<T>(spec, Device::cpu);
  randomize_unknowns(cpu.op, cpu.u, 17 + n);
  const StencilOperator<T> op = cpu.op.copy_to(Device::cuda);
  Field<T> u = cpu.u.copy_to(Device::cuda);
  const double tol = rounding_tolerance<T>();

  const double norm_gpu = op.residual_norm(nullptr, u), norm_cpu = cpu.op.residual_norm(nullptr, cpu.u);
  EXPECT_GT(norm_cpu, 0.0);
  EXPECT_NEAR(norm_gpu, norm_cpu, 100 * tol * norm_cpu) << "residual norm";
  EXPECT_NEAR(op.rhs_norm(nullptr, u), cpu.op.rhs_norm(nullptr, cpu.u), 100 * tol * cpu.op.rhs_norm(nullptr, cpu.u))
      << "rhs norm";

  Field<T> ga = u.copy_to(Device::cuda), gb = u.copy_to(Device::cuda);
  Field<T> ca = cpu.u.copy_to(Device::cpu), cb = cpu.u.copy_to(Device::cpu);
  for (int s = 0; s < 4; ++s) {
    jacobi_sweep_generic(op, s % 2 ? gb : ga, s % 2 ? ga : gb, T(0.9));
    jacobi_sweep_generic(cpu.op, s % 2 ? cb : ca, s % 2 ? ca : cb, T(0.9));
  }
  EXPECT_LE(relative_difference(ga, ca), 4 * tol) << "generic Jacobi GPU vs CPU";
  EXPECT_GT(relative_difference(ga, u.copy_to(Device::cpu)), 1e3 * tol) << "sweeps changed nothing";

  Field<T> gr = u.copy_to(Device::cuda), cr = cpu.u.copy_to(Device::cpu);
  for (int it = 0; it < 3; ++it) {
    red_black_iteration_generic(op, gr, T(1.4));
    red_black_iteration_generic(cpu.op, cr, T(1.4));
  }
  EXPECT_LE(relative_difference(gr, cr), 4 * tol) << "generic red-black GPU vs CPU";

  if (tuned::jacobi_applies(op)) {
    Field<T> t = u.copy_to(Device::cuda), g = u.copy_to(Device::cuda);
    tuned::jacobi_sweep(op, u, t, T(1), nullptr);
    jacobi_sweep_generic(op, u, g, T(1));
    EXPECT_LE(relative_difference(t, g), tol) << "tuned Jacobi on an assembled operator";
  }
  if (tuned::coloured_sor_applies(op)) {
    tuned::ColouredSor<T> sor(op, u);
    sor.iterate(T(1.4), 3);
    Field<T> t = u.copy_to(Device::cuda);
    sor.store(t);
    EXPECT_LE(relative_difference(t, gr), 4 * tol) << "coloured SOR on an assembled operator";
  }
}

class ModelProblems : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(ModelProblems, GenericDevicePathMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const auto [which, dims, n] = GetParam();
  check_generic_paths<double>(model_cases[which], dims, n);
  check_generic_paths<float>(model_cases[which], dims, n);
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelProblems,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Values(2),
                                            ::testing::Values(33, 50)));
INSTANTIATE_TEST_SUITE_P(Cases3D, ModelProblems,
                         ::testing::Combine(::testing::Range(0, 5), ::testing::Values(3),
                                            ::testing::Values(11, 14)));

// General operators on the colour-reordered SOR: assembled problems with Neumann and
// Robin sides, masks and variable k, then every coefficient scaled and the right-hand
// side shifted by random amounts, so that a face read from the wrong array or node shows.
struct GeneralCase {
  ModelCase model;
  int dims;
  int n;
};

std::vector<GeneralCase> general_cases() {
  const ModelCase models[] = {
      {"neumann", "hole", "variable", "manufactured"},
      {"robin", "fixed", "variable", "manufactured"},
      {"neumann", "fixed", "variable", "manufactured"},
      {"robin", "hole", "variable", "manufactured"},
      {"neumann", "none", "variable", "manufactured"},
  };
  std::vector<GeneralCase> out;
  for (const ModelCase& m : models) {
    for (const int n : {33, 50, 129}) out.push_back({m, 2, n});
    for (const int n : {11, 14, 24}) out.push_back({m, 3, n});
  }
  return out;
}

// Keeps each row's sparsity and diagonal dominance, changes every value.
template <class T>
void randomize_coefficients(StencilOperator<T>& op, std::uint64_t seed) {
  ASSERT_FALSE(op.uniform);
  ASSERT_EQ(op.device, Device::cpu);
  if (op.rhs.empty()) op.rhs = Field<T>(op.grid, Device::cpu);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> scale(0.5, 1.5), extra(0.0, 0.2), value(-1.0, 1.0);
  const FieldView<T> nb[6] = {op.aw.view(), op.ae.view(), op.as.view(),
                              op.an.view(), op.ab.view(), op.at.view()};
  const FieldView<T> ap = op.ap.view(), rhs = op.rhs.view();
  const StencilView<T> a = op.view();
  const int faces = op.grid.dims == 3 ? 6 : 4;
  const Box& b = op.active;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        if (!a.is_free(i, j, k)) continue;
        double sum = 0;
        for (int f = 0; f < faces; ++f) {
          nb[f](i, j, k) = T(double(nb[f](i, j, k)) * scale(rng));
          sum += double(nb[f](i, j, k));
        }
        ap(i, j, k) = T(std::max(sum, double(ap(i, j, k))) * (1.0 + extra(rng)));
        rhs(i, j, k) = T(double(rhs(i, j, k)) + 0.1 * value(rng) * double(ap(i, j, k)));
      }
}

template <class T>
void check_general_coloured_sor(const GeneralCase& c, std::uint64_t seed) {
  SCOPED_TRACE(describe(c.model, c.dims, c.n) + " " + precision_name<T>());
  Discretization<T> cpu = assemble<T>(model_spec(c.model, c.dims, c.n), Device::cpu);
  ASSERT_FALSE(cpu.op.uniform);
  randomize_coefficients(cpu.op, seed);
  randomize_unknowns(cpu.op, cpu.u, seed + 1);
  check_coloured_sor_from(cpu.op, cpu.u.copy_to(Device::cuda));
}

class GeneralColouredSor : public ::testing::TestWithParam<int> {};

TEST_P(GeneralColouredSor, MatchesGenericRedBlack) {
  SKIP_WITHOUT_GPU();
  const GeneralCase c = general_cases()[std::size_t(GetParam())];
  check_general_coloured_sor<double>(c, 500 + GetParam());
  check_general_coloured_sor<float>(c, 600 + GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, GeneralColouredSor,
                         ::testing::Range(0, int(general_cases().size())));

// The fused red-black SOR on cpu_op from u against the generic red-black iteration:
// copies, residual norms, odd and even iteration counts (the two arrays take turns).
template <class T>
void check_fused_sor_from(const StencilOperator<T>& cpu_op, const Field<T>& u, double min_coverage,
                          double max_coverage) {
  const StencilOperator<T> op = cpu_op.copy_to(Device::cuda);
  ASSERT_TRUE(tuned::fused_sor_applies(op));
  const T omega = T(1.37);
  const double tol = rounding_tolerance<T>();
  tuned::FusedSor<T> sor(op, u);
  EXPECT_GE(sor.coverage(), min_coverage);
  EXPECT_LE(sor.coverage(), max_coverage);
  EXPECT_NEAR(sor.residual_norm(), op.residual_norm(nullptr, u),
              tol * 100 * std::max(1.0, op.residual_norm(nullptr, u)))
      << "residual norm before iterating";
  Field<T> generic = u.copy_to(Device::cuda), stored = u.copy_to(Device::cuda);
  for (int count : {1, 2, 3}) {
    sor.iterate(omega, count);
    for (int it = 0; it < count; ++it) red_black_iteration_generic(op, generic, omega);
    sor.store(stored);
    EXPECT_LE(relative_difference(stored, generic), 8 * tol) << "after " << count << " more";
  }
  EXPECT_EQ(changed_known_nodes(cpu_op, u, stored), 0) << "known nodes must keep their values";
  const double cpu_norm = cpu_op.residual_norm(nullptr, stored.copy_to(Device::cpu));
  EXPECT_GT(cpu_norm, 0.0);
  EXPECT_NEAR(sor.residual_norm(), cpu_norm, 100 * tol * std::max(1.0, cpu_norm));
}

// Every row its own (randomized coefficients): the stored-row path everywhere.
class FusedSorGeneral : public ::testing::TestWithParam<int> {};

TEST_P(FusedSorGeneral, MatchesGenericRedBlack) {
  SKIP_WITHOUT_GPU();
  const GeneralCase c = general_cases()[std::size_t(GetParam())];
  if (c.dims != 2) GTEST_SKIP() << "2D kernel";
  auto run = [&](auto zero, std::uint64_t seed) {
    using T = decltype(zero);
    SCOPED_TRACE(describe(c.model, c.dims, c.n) + " " + precision_name<T>());
    Discretization<T> cpu = assemble<T>(model_spec(c.model, c.dims, c.n), Device::cpu);
    randomize_coefficients(cpu.op, seed);
    randomize_unknowns(cpu.op, cpu.u, seed + 1);
    check_fused_sor_from(cpu.op, cpu.u.copy_to(Device::cuda), 0.0, 0.2);
  };
  run(0.0, 700 + GetParam());
  run(0.0f, 800 + GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, FusedSorGeneral, ::testing::Range(0, int(general_cases().size())));

// The magnet's axisymmetric operator (rows repeat along z away from the boundaries and
// the coil), as assembled and divided by its diagonal, over several tiles each way.
TEST(FusedSor, AxisymmetricMagnetOperator) {
  SKIP_WITHOUT_GPU();
  for (const double h : {0.025, 0.0125}) {
    magnet::MagnetDesign d;
    d.r1 = 1.5, d.z1 = 1.0, d.dr = h, d.dz = h;
    const ProblemSpec spec = magnet::make_magnet_problem(d);
    for (const bool scaled : {false, true}) {
      SCOPED_TRACE("h = " + std::to_string(h) + (scaled ? ", rows / diagonal" : ""));
      Discretization<double> cpu =
          assemble_axisymmetric<double>(spec, Device::cpu, magnet::magnet_cut_flux(d));
      if (scaled) divide_rows_by_diagonal(cpu.op);
      randomize_unknowns(cpu.op, cpu.u, 42);
      check_fused_sor_from(cpu.op, cpu.u.copy_to(Device::cuda), 0.75, 1.0);
    }
  }
}

TEST(FusedSor, SolveMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  magnet::MagnetDesign d;
  d.r1 = d.z1 = 1.0, d.dr = d.dz = 0.01;
  const ProblemSpec spec = magnet::make_magnet_problem(d);
  Discretization<double> gpu =
      assemble_axisymmetric<double>(spec, Device::cuda, magnet::magnet_cut_flux(d));
  Discretization<double> cpu =
      assemble_axisymmetric<double>(spec, Device::cpu, magnet::magnet_cut_flux(d));
  SolveOptions o;
  o.tolerance = 1e-10;
  const SolveReport fused = make_solver<double>("sor")->solve(gpu.op, gpu.u, o);
  const SolveReport generic = make_solver<double>("sor")->solve(cpu.op, cpu.u, o);
  EXPECT_EQ(fused.kernel, "tuned (fused red-black, column rows)");
  ASSERT_TRUE(fused.converged && generic.converged);
  // The same iteration: the same count, up to one check interval.
  EXPECT_LE(std::abs(fused.iterations - generic.iterations), 20);
  EXPECT_LT(relative_difference(gpu.u.copy_to(Device::cpu), cpu.u), 1e-8);
}

// Whole solves: the GPU (tuned kernels where they apply) reaches the CPU's solution.
template <class T>
void check_solves(const ModelCase& m, int dims, int n, StopRule rule, double tolerance,
                  double agreement) {
  const ProblemSpec spec = model_spec(m, dims, n);
  for (const char* name : {"jacobi", "sor", "rb-gs"}) {
    SCOPED_TRACE(describe(m, dims, n) + " " + precision_name<T>() + " " + name);
    SolveOptions o;
    o.tolerance = tolerance;
    o.rule = rule;
    o.max_iterations = 400000;
    Discretization<T> cpu = assemble<T>(spec, Device::cpu);
    Discretization<T> gpu = assemble<T>(spec, Device::cuda);
    randomize_unknowns(cpu.op, cpu.u, 99);
    gpu.u.copy_from(cpu.u.copy_to(Device::cuda));
    const SolveReport rc = make_solver<T>(name)->solve(cpu.op, cpu.u, o);
    const SolveReport rg = make_solver<T>(name)->solve(gpu.op, gpu.u, o);
    ASSERT_TRUE(rc.converged) << "cpu: " << rc.reason;
    ASSERT_TRUE(rg.converged) << "gpu: " << rg.reason;
    if (gpu.op.uniform || std::string(name) != "jacobi")
      EXPECT_NE(rg.kernel.find("tuned"), std::string::npos) << rg.kernel;
    EXPECT_LE(relative_difference(gpu.u, cpu.u), agreement);
    if (rule == StopRule::residual) EXPECT_LT(rg.relative_residual, 2 * tolerance);
    // Same method, same stopping checks: in double the counts agree to a check or two.
    if (sizeof(T) == 8)
      EXPECT_LE(std::abs(rg.iterations - rc.iterations), 2 * std::max(rc.iterations / 50, 20));
  }
}

class Solves : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(Solves, GpuSolutionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const auto [which, dims] = GetParam();
  const int n = dims == 2 ? 33 : 12;
  check_solves<double>(model_cases[which], dims, n, StopRule::residual, 1e-10, 1e-7);
  check_solves<float>(model_cases[which], dims, n, StopRule::residual, 1e-4, 5e-3);
}

TEST_P(Solves, UpdateRuleOnGpuMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const auto [which, dims] = GetParam();
  const int n = dims == 2 ? 33 : 12;
  check_solves<double>(model_cases[which], dims, n, StopRule::update, 1e-12, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Cases, Solves,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3),
                                            ::testing::Values(2, 3)));

TEST(GpuPaths, TunedKernelsRefuseWhatTheyCannotRun) {
  SKIP_WITHOUT_GPU();
  ModelCase general{"neumann", "hole", "variable", "manufactured"};
  const Discretization<double> d = assemble<double>(model_spec(general, 2, 17), Device::cuda);
  EXPECT_FALSE(d.op.uniform);
  EXPECT_FALSE(tuned::jacobi_applies(d.op));
  EXPECT_TRUE(tuned::coloured_sor_applies(d.op));
  Field<double> out = d.u.copy_to(Device::cuda);
  EXPECT_THROW(tuned::jacobi_sweep(d.op, d.u, out, 1.0, nullptr), Error);
  // Operators and fields in host memory stay on the generic path.
  const StencilOperator<double> host = d.op.copy_to(Device::cpu);
  EXPECT_FALSE(tuned::coloured_sor_applies(host));
  EXPECT_THROW(tuned::ColouredSor<double>(host, d.u), Error);
  EXPECT_THROW(tuned::ColouredSor<double>(d.op, d.u.copy_to(Device::cpu)), Error);
}

}  // namespace
}  // namespace gridsolve
