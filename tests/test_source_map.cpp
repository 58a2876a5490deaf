// SourceMap: one assembly's right-hand side for new node sources equals what assembling
// again with them gives, on every path of the assembly; sources that are not finite, and a
// singular operator's incompatible ones, are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gridsolve/core/error.hpp"
#include "source_map_check.hpp"

namespace gridsolve {
namespace {

std::string name(const ModelProblem& m) {
  return std::to_string(m.dims) + "D " + m.sides + ", mask " + m.mask + ", k " + m.coefficient;
}

TEST(SourceMap, WritesWhatAssemblyWritesDouble) {
  for (const ModelProblem& m : testing::source_map_cases()) {
    SCOPED_TRACE(name(m));
    testing::expect_map_writes_assembled_rhs<double>(make_model_problem(m), Device::cpu);
  }
}

TEST(SourceMap, WritesWhatAssemblyWritesFloat) {
  for (const ModelProblem& m : testing::source_map_cases()) {
    SCOPED_TRACE(name(m));
    testing::expect_map_writes_assembled_rhs<float>(make_model_problem(m), Device::cpu);
  }
}

// A NaN where a node is fixed (a Dirichlet side) is not read; at a free node it is refused.
TEST(SourceMap, RefusesSourcesThatAreNotFiniteAtFreeNodes) {
  ModelProblem m;
  m.n = 17;
  const ProblemSpec spec = make_model_problem(m);
  const Discretization<double> d = assemble<double>(spec, Device::cpu);
  const SourceMap<double> map(spec, Device::cpu);
  std::vector<double> f = testing::noisy_sources(spec, 3);
  f[0] = std::numeric_limits<double>::quiet_NaN();  // a corner: Dirichlet
  Field<double> b = map.make_rhs();
  EXPECT_NO_THROW(map.write(d.op, f.data(), b));
  f[5 * 17 + 7] = std::numeric_limits<double>::infinity();
  f[9 * 17 + 3] = std::numeric_limits<double>::quiet_NaN();
  try {
    map.write(d.op, f.data(), b);
    ADD_FAILURE() << "non-finite sources accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not finite (NaN or infinite) at 2 nodes"),
              std::string::npos)
        << e.what();
  }
}

// Every side Neumann and nothing fixed: sources with a net flux have no solution.
TEST(SourceMap, RefusesIncompatibleSourcesOfASingularOperator) {
  ModelProblem m;
  m.n = 17;
  m.sides = "periodic-all";
  const ProblemSpec spec = make_model_problem(m);
  const Discretization<double> d = assemble<double>(spec, Device::cpu);
  ASSERT_TRUE(d.op.singular);
  const SourceMap<double> map(spec, Device::cpu);
  const std::vector<double> ones(std::size_t(spec.grid.node_count()), 1.0);
  Field<double> b = map.make_rhs();
  EXPECT_THROW(map.write(d.op, ones.data(), b), Error);
}

}  // namespace
}  // namespace gridsolve
