// Both colours of a red-black sweep in one pass (exec/red_black_sweep.hpp) on the GPU:
// the values of the two colour passes in place, to the bit, on tiles cut every way by the
// operator's active box and mask; and the multigrid cycle that smooths with it against
// the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "test_helpers.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/solve/multigrid/multigrid.hpp"
#include "gridsolve/solve/red_black_sor.hpp"

namespace gridsolve {
namespace {

// A 2D model problem.
ProblemSpec model(int n, const std::string& sides, const std::string& mask, const std::string& k,
                  const std::string& rhs = "manufactured") {
  return testing::model(2, n, sides, mask, k, rhs);
}

// Every stored value (ghosts too) random, then sent to the device: no sweep may lean on
// zeros it finds.
template <class T>
Field<T> random_field(const Field<T>& like_on_cpu, std::uint64_t seed) {
  Field<T> f = like_on_cpu.copy_to(Device::cpu);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const FieldView<T> v = f.view();
  const Box s = f.stored();
  for (int j = s.lo[1]; j <= s.hi[1]; ++j)
    for (int i = s.lo[0]; i <= s.hi[0]; ++i) v(i, j, 0) = T(uniform(rng));
  return f.copy_to(Device::cuda);
}

// Count of stored values (ghosts too) that differ between a and b.
template <class T>
int differing(const Field<T>& a, const Field<T>& b) {
  const Field<T> x = a.copy_to(Device::cpu), y = b.copy_to(Device::cpu);
  const FieldView<const T> xv = x.cview(), yv = y.cview();
  const Box s = x.stored();
  int n = 0;
  for (int j = s.lo[1]; j <= s.hi[1]; ++j)
    for (int i = s.lo[0]; i <= s.hi[0]; ++i)
      if (!(xv(i, j, 0) == yv(i, j, 0))) ++n;
  return n;
}

template <class T>
void check_sor_pairs(const ProblemSpec& spec, std::uint64_t seed) {
  SCOPED_TRACE(spec.name);
  Discretization<T> disc = assemble<T>(spec, Device::cuda);
  const StencilOperator<T>& op = disc.op;
  ASSERT_EQ(op.grid.dims, 2);
  for (int count : {1, 2, 3, 4}) {
    const Field<T> start = random_field(disc.u, seed + std::uint64_t(count));
    Field<T> in_pairs = start.copy_to(Device::cuda), by_colour = start.copy_to(Device::cuda);
    Field<T> second;
    red_black_iterations(op, in_pairs, T(1.37), count, second);
    for (int s = 0; s < count; ++s) red_black_iteration_generic(op, by_colour, T(1.37));
    EXPECT_EQ(differing(in_pairs, by_colour), 0) << count << " iterations";
    // Pairs in double; float sweeps by colours (red_black_sweep_fuses says why).
    EXPECT_EQ(second.empty(), count == 1 || sizeof(T) == 4) << "the second field is for pairs";
  }
}

// Sizes around the 32 x 32 tile (one tile, a partial last tile, many tiles), Dirichlet
// sides (the active box one node in), Neumann and Robin sides (the active box reaching the
// ghosts), masks, constant and variable rows.
TEST(RedBlackSweepGpu, BothColoursInOnePassAreTheTwoColourPasses) {
  SKIP_WITHOUT_GPU();
  std::uint64_t seed = 10;
  for (int n : {5, 33, 34, 37, 100, 129, 300}) {
    for (const ProblemSpec& spec :
         {model(n, "dirichlet", "none", "constant"), model(n, "neumann", "hole", "variable"),
          model(n, "robin", "fixed", "variable"), model(n, "neumann", "none", "constant")}) {
      check_sor_pairs<double>(spec, seed++);
      check_sor_pairs<float>(spec, seed++);
    }
  }
}

// A V-cycle smoothing in pairs on the GPU (every level here: 2D, no periodic axis) against
// the CPU's colour passes, with even and odd sweep counts (the odd one by colour passes),
// as a solver and as a preconditioner (reversed colours after the coarse correction).
TEST(RedBlackSweepGpu, MultigridCycleMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const ProblemSpec& spec : {model(257, "dirichlet", "none", "constant", "random"),
                                  model(200, "neumann", "hole", "variable")}) {
    for (int sweeps : {2, 3}) {
      SCOPED_TRACE(spec.name + ", sweeps " + std::to_string(sweeps));
      MultigridOptions options;
      options.pre_smooth = options.post_smooth = sweeps;
      Discretization<double> cpu = assemble<double>(spec, Device::cpu);
      const StencilOperator<double> gpu_op = cpu.op.copy_to(Device::cuda);
      MultigridHierarchy<double> on_cpu(cpu.op, options), on_gpu(gpu_op, options);
      Field<double> u_cpu = cpu.u.copy_to(Device::cpu), u_gpu = cpu.u.copy_to(Device::cuda);
      const double start = cpu.op.residual_norm(nullptr, u_cpu);
      on_cpu.cycle(u_cpu);
      on_gpu.cycle(u_gpu);
      Field<double> z_cpu = cpu.u.copy_to(Device::cpu), z_gpu = cpu.u.copy_to(Device::cuda);
      Field<double> r_cpu = random_field(cpu.u, 3).copy_to(Device::cpu);
      on_cpu.precondition(r_cpu, z_cpu);
      on_gpu.precondition(r_cpu.copy_to(Device::cuda), z_gpu);
      for (auto [a, b, what] :
           {std::tuple{&u_cpu, &u_gpu, "cycle"}, std::tuple{&z_cpu, &z_gpu, "preconditioner"}}) {
        const std::vector<double> x = a->to_vector(), y = b->to_vector();
        double diff = 0, size = 0;
        for (std::size_t q = 0; q < x.size(); ++q) {
          diff = std::max(diff, std::abs(x[q] - y[q]));
          size = std::max(size, std::abs(x[q]));
        }
        EXPECT_GT(size, 0.0) << what;
        EXPECT_LT(diff, 1e-12 * size) << what;
      }
      // The cycle did its work: the residual fell by a multigrid factor.
      EXPECT_LT(gpu_op.residual_norm(nullptr, u_gpu), 0.2 * start);
    }
  }
}

}  // namespace
}  // namespace gridsolve
