// The foundation on the GPU: ghost exchange, one operator set up once and solved for many
// right-hand sides, and Krylov reports of single precision, each against the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu_test_support.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/ghost_exchange.hpp"
#include "gridsolve/exec/launch_recording.hpp"
#include "gridsolve/exec/parallel_for.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/solver.hpp"

namespace gridsolve {
namespace {

// Every stored value, ghosts included, so ghost layers are compared too.
template <class T>
std::vector<T> storage_of(const Field<T>& f) {
  const Field<T> h = f.copy_to(Device::cpu);
  return std::vector<T>(h.storage(), h.storage() + h.storage_size());
}

TEST(GpuFoundation, GhostExchangeMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const int dims : {2, 3}) {
    const Grid g = dims == 2 ? Grid::box(2, {67, 35, 1}, {0, 0, 0}, {2, 1, 1})
                             : Grid::box(3, {19, 11, 9}, {0, 0, 0}, {2, 1, 1});
    Field<double> cpu(g, Centring::cell(), 3, 2, Device::cpu);
    std::mt19937 rng(dims);
    std::uniform_real_distribution<double> dist(-1, 1);
    const Box b = cpu.interior();
    const FieldView<double> v = cpu.view();
    for (int c = 0; c < 3; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, k, c) = dist(rng);
    Field<double> gpu = cpu.copy_to(Device::cuda);
    GhostSides sides = GhostSides::all(GhostRule::periodic);
    sides.face[2] = GhostRule::copy_edge;
    sides.face[3] = GhostRule::zero;
    exchange_ghosts(cpu, sides);
    exchange_ghosts(gpu, sides);
    EXPECT_EQ(storage_of(cpu), storage_of(gpu)) << dims << "D";
  }
}

TEST(GpuFoundation, OneOperatorManyRightHandSides) {
  SKIP_WITHOUT_GPU();
  ModelProblem m;
  m.n = 513;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  Discretization<double> cpu = assemble<double>(spec, Device::cpu);
  Discretization<double> gpu = assemble<double>(spec, Device::cuda);
  auto on_cpu = make_solver<double>("mgcg");
  auto on_gpu = make_solver<double>("mgcg");
  on_cpu->setup(cpu.op);
  on_gpu->setup(gpu.op);
  SolveOptions o;
  o.tolerance = 1e-10;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    Field<double> b(cpu.op.grid, Device::cpu);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    const FieldView<double> bv = b.view();
    for (int j = 0; j < cpu.op.grid.n[1]; ++j)
      for (int i = 0; i < cpu.op.grid.n[0]; ++i) bv(i, j, 0) = dist(rng);
    const Field<double> bd = b.copy_to(Device::cuda);
    Field<double> uc = cpu.u.copy_to(Device::cpu), ug = gpu.u.copy_to(Device::cuda);
    const SolveReport rc = on_cpu->solve(b, uc, o);
    const SolveReport rg = on_gpu->solve(bd, ug, o);
    ASSERT_TRUE(rc.converged) << rc.reason;
    ASSERT_TRUE(rg.converged) << rg.reason;
    EXPECT_NEAR(rc.iterations, rg.iterations, 1);
    const std::vector<double> a = uc.to_vector(), c = ug.to_vector();
    double diff = 0, scale = 0;
    for (std::size_t n = 0; n < a.size(); ++n) {
      diff = std::max(diff, std::abs(a[n] - c[n]));
      scale = std::max(scale, std::abs(a[n]));
    }
    EXPECT_LT(diff / scale, 1e-8) << "seed " << seed;
  }
}

TEST(GpuFoundation, SinglePrecisionKrylovReportsItsTrueResidual) {
  SKIP_WITHOUT_GPU();
  ModelProblem m;
  m.n = 257;
  m.rhs = "random";
  const ProblemSpec spec = make_model_problem(m);
  for (const char* name : {"cg", "mgcg"}) {
    Discretization<float> d = assemble<float>(spec, Device::cuda);
    SolveOptions o;
    o.tolerance = 1e-12;
    o.max_iterations = 4000;
    const SolveReport r = make_solver<float>(name)->solve(d.op, d.u, o);
    EXPECT_FALSE(r.converged) << name << ": " << r.reason;
    EXPECT_EQ(r.converged, r.relative_residual < o.tolerance) << name;
  }
}

// A recorded sequence of launches replays without calling its body again, does what the
// body did each time, and records again for other fields.
// f += 1 + i / 1000 on the GPU, then its ghosts (two launches to record).
void add_ramp(Field<double>& f) {
  const FieldView<double> v = f.view();
  for_each(Device::cuda, f.interior(), [=] GRIDSOLVE_HD(int i, int j, int k) {
    v(i, j, k) += 1.0 + 0.001 * i;
  });
  exchange_ghosts(f, GhostSides::all(GhostRule::copy_edge));
}

TEST(GpuFoundation, LaunchRecordingReplaysTheLaunches) {
  SKIP_WITHOUT_GPU();
  const Grid g = Grid::unit(2, 33);
  Field<double> a(g, Device::cuda), b(g, Device::cuda);
  int bodies = 0;
  auto add_one = [&](Field<double>& f) {
    ++bodies;
    add_ramp(f);
  };
  LaunchRecording rec;
  for (int r = 0; r < 3; ++r) rec.run(Device::cuda, a.storage(), nullptr, [&] { add_one(a); });
  EXPECT_TRUE(rec.recorded());
  EXPECT_EQ(bodies, 1);
  const std::vector<double> va = a.to_vector();
  EXPECT_DOUBLE_EQ(va[5], 3 * (1.0 + 0.005));
  rec.run(Device::cuda, b.storage(), nullptr, [&] { add_one(b); });
  EXPECT_EQ(bodies, 2);
  EXPECT_DOUBLE_EQ(b.to_vector()[7], 1.007);
  EXPECT_DOUBLE_EQ(a.to_vector()[5], 3 * 1.005);  // a untouched by b's recording
  // Recorded again after reset (the instance updated in place), then replayed; back to a,
  // whose launches the updated instance must now carry.
  rec.reset();
  EXPECT_FALSE(rec.recorded());
  for (int r = 0; r < 2; ++r) rec.run(Device::cuda, b.storage(), nullptr, [&] { add_one(b); });
  EXPECT_EQ(bodies, 3);
  EXPECT_DOUBLE_EQ(b.to_vector()[7], 3 * 1.007);
  rec.run(Device::cuda, a.storage(), nullptr, [&] { add_one(a); });
  EXPECT_EQ(bodies, 4);
  EXPECT_DOUBLE_EQ(a.to_vector()[5], 4 * 1.005);
  EXPECT_DOUBLE_EQ(b.to_vector()[7], 3 * 1.007);
}

}  // namespace
}  // namespace gridsolve
