// The right-hand side SourceMap writes for node sources against the one assemble builds for
// the same sources, on either device: the CPU tests and the GPU tests share it.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gridsolve/exec/memory.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "gridsolve/problem/source_map.hpp"

namespace gridsolve::testing {

// The problem's own f at the nodes, perturbed by 1% of random noise (seeded): sources
// that are not a formula's, compatible with a singular operator within its 1%.
inline std::vector<double> noisy_sources(const ProblemSpec& spec, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  const Grid& g = spec.grid;
  std::vector<double> f;
  f.reserve(std::size_t(g.node_count()));
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i) {
        const double x = g.coord(0, i), y = g.coord(1, j), z = g.dims == 3 ? g.coord(2, k) : 0.0;
        f.push_back(spec.f(x, y, z) * (1 + noise(rng)) + noise(rng));
      }
  return f;
}

// SourceMap's b for sources f (placed in `device`'s memory) against assemble's b for a spec
// carrying the same f per node: every node within rounding of b's scale, and the same
// share removed from a singular operator.
template <class T>
void expect_map_writes_assembled_rhs(const ProblemSpec& spec, Device device) {
  const std::vector<double> f = noisy_sources(spec, 11);
  ProblemSpec with_f = spec;
  with_f.f_nodes = f;
  const Discretization<T> reference = assemble<T>(with_f, device);
  const Discretization<T> d = assemble<T>(spec, device);
  const SourceMap<T> map(spec, device);
  const std::vector<T> typed(f.begin(), f.end());
  Buffer<T> on_device(device, typed.size());
  copy_bytes(on_device.data(), device, typed.data(), Device::cpu, typed.size() * sizeof(T));
  Field<T> b = map.make_rhs();
  const double removed = map.write(d.op, on_device.data(), b);
  EXPECT_EQ(b.device(), device);
  EXPECT_NEAR(removed, reference.op.rhs_mismatch, 1e-6);
  const std::vector<T> got = b.to_vector(), want = reference.op.rhs.to_vector();
  ASSERT_EQ(got.size(), want.size());
  double scale = 0, worst = 0;
  for (const T v : want) scale = std::max(scale, std::abs(double(v)));
  for (std::size_t n = 0; n < got.size(); ++n)
    worst = std::max(worst, std::abs(double(got[n]) - double(want[n])));
  ASSERT_GT(scale, 0);
  EXPECT_LE(worst, (sizeof(T) == 8 ? 1e-13 : 2e-6) * scale) << "largest difference " << worst;
}

// Model problems covering the assembly's paths: the uniform rows (Dirichlet, constant k),
// the general rows with Neumann, Robin and periodic sides and their data, a singular
// all-periodic operator, fixed and cut-out regions, 2D and 3D.
inline std::vector<ModelProblem> source_map_cases() {
  std::vector<ModelProblem> cases;
  auto add = [&](int dims, int n, const char* sides, const char* mask, const char* k) {
    ModelProblem m;
    m.dims = dims, m.n = n, m.sides = sides, m.mask = mask, m.coefficient = k;
    cases.push_back(m);
  };
  add(2, 33, "dirichlet", "none", "constant");
  add(2, 33, "neumann", "none", "variable");
  add(2, 33, "robin", "none", "constant");
  add(2, 32, "periodic-all", "none", "variable");
  add(3, 13, "periodic", "none", "constant");
  add(3, 13, "robin", "none", "variable");
  add(2, 33, "dirichlet", "hole", "variable");
  add(2, 33, "dirichlet", "fixed", "constant");
  return cases;
}

}  // namespace gridsolve::testing
