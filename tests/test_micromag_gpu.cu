// Micromagnetics on the GPU: the cuFFT demag convolution against the direct sum, the
// CPU and GPU paths on the same random magnetization, and the exact single-spin test.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/transform/demag_convolution.hpp"
#include "gpu_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::micromag;

namespace {

MicromagProblem random_problem(std::array<int, 3> n) {
  Region r;
  r.ms = 8e5;
  r.aex = 1.3e-11;
  r.alpha = 0.05;
  r.ku1 = 2e4;
  r.anis_u = {0.3, 0.2, 1};
  r.kc1 = -1e4;
  r.dind = 2e-3;
  r.dbulk = 1e-3;
  MicromagProblem p = MicromagProblem::box(n, {3e-9, 2.5e-9, 2e-9}, r);
  Region r2 = r;
  r2.ms = 5e5;
  r2.aex = 0.7e-11;
  r2.dind = -1e-3;
  p.regions[3] = r2;
  // Some cells of a second region and some without material.
  for (std::size_t q = 0; q < p.region.size(); ++q) {
    if (q % 7 == 3) p.region[q] = 3;
    if (q % 11 == 5) p.region[q] = vacuum;
  }
  return p;
}

std::array<std::vector<double>, 3> random_m(std::int64_t cells, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::array<std::vector<double>, 3> m;
  for (auto& c : m) {
    c.resize(cells);
    for (double& v : c) v = g(rng);
  }
  return m;
}

template <class T>
void expect_cpu_gpu_agree(std::array<int, 3> n, demag::FftMode mode, double tol,
                          std::array<bool, 3> periodic = {false, false, false}, int images = 0) {
  MicromagProblem p = random_problem(n);
  p.mesh.periodic = periodic;
  p.mesh.images = images;
  MicromagSystem<T> cpu(p, Device::cpu, demag::FftMode::skip_zeros);
  MicromagSystem<T> gpu(p, Device::cuda, mode);
  // Two magnetizations in turn: the second catches padding the first one left dirty.
  for (unsigned seed : {1u, 2u}) {
    const auto m = random_m(p.mesh.cells(), seed);
    cpu.set_m(m);
    gpu.set_m(m);
    const std::array<double, 3> b{0.01, -0.02, 0.005};
    CellVectors<T> bc(Device::cpu, p.mesh.n), bg(Device::cuda, p.mesh.n);
    cpu.effective_field(b, term_all, bc);
    gpu.effective_field(b, term_all, bg);
    const auto hc = bc.to_host(), hg = bg.to_host();
    double worst = 0, scale = 0;
    for (int c = 0; c < 3; ++c)
      for (std::size_t q = 0; q < hc[c].size(); ++q) {
        worst = std::max(worst, std::abs(double(hc[c][q]) - double(hg[c][q])));
        scale = std::max(scale, std::abs(double(hc[c][q])));
      }
    EXPECT_LT(worst / scale, tol) << "seed " << seed;
    const Energies ec = cpu.energies(b), eg = gpu.energies(b);
    EXPECT_NEAR(ec.total(), eg.total(), tol * 10 * std::abs(ec.demag));
    EXPECT_NEAR(ec.exchange, eg.exchange, tol * 10 * std::abs(ec.exchange));
    EXPECT_NEAR(ec.anisotropy, eg.anisotropy, tol * 10 * std::abs(ec.anisotropy) + 1e-40);
  }
}

}  // namespace

TEST(MicromagGpu, DemagMatchesDirectSum) {
  SKIP_WITHOUT_GPU();
  for (demag::FftMode mode :
       {demag::FftMode::skip_zeros, demag::FftMode::plain, demag::FftMode::fused})
    for (auto n : std::vector<std::array<int, 3>>{
             {7, 5, 3}, {9, 6, 1}, {5, 4, 2}, {1, 6, 5}, {8, 1, 3}, {13, 11, 1}, {12, 8, 1},
             {5, 16, 1}}) {
      const std::array<double, 3> cell{3e-9, 2.5e-9, 2e-9};
      EXPECT_LT(
          demag::DemagConvolution<double>::check_against_direct_sum(Device::cuda, n, cell, mode),
          1e-12);
      EXPECT_LT(
          demag::DemagConvolution<float>::check_against_direct_sum(Device::cuda, n, cell, mode),
          3e-6);
    }
}

TEST(MicromagGpu, CpuAndGpuAgree) {
  SKIP_WITHOUT_GPU();
  for (demag::FftMode mode :
       {demag::FftMode::skip_zeros, demag::FftMode::plain, demag::FftMode::fused}) {
    expect_cpu_gpu_agree<double>({24, 10, 3}, mode, 1e-11);
    expect_cpu_gpu_agree<double>({33, 17, 1}, mode, 1e-11);
    expect_cpu_gpu_agree<float>({33, 17, 1}, mode, 2e-5);
  }
}

TEST(MicromagGpu, FusedColumnPassAgreesWithCpu) {
  SKIP_WITHOUT_GPU();
  // Padded column lengths 16 (one thread a column), 32, 128, 1024 (radix-16 passes with a
  // last pass of radix 2, 8 and 4), 4096 and 8192 (512 threads a column; double falls back
  // to the cuFFT passes there, its buffers exceeding shared memory), and 200, which is not
  // a power of two and falls back as well.
  for (auto n : std::vector<std::array<int, 3>>{
           {40, 8, 1}, {24, 16, 1}, {20, 64, 1}, {12, 512, 1}, {16, 2048, 1}, {4, 4096, 1},
           {10, 100, 1}}) {
    expect_cpu_gpu_agree<double>(n, demag::FftMode::fused, 1e-11);
    expect_cpu_gpu_agree<float>(n, demag::FftMode::fused, 2e-5);
  }
}

TEST(MicromagGpu, DynamicsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  // A few RK45 and Heun steps of a random state: CPU and GPU give the same m. Heun starts
  // from a step too large, so that its retries (a predictor redone) run too.
  const MicromagProblem p = random_problem({16, 8, 2});
  const auto m0 = random_m(p.mesh.cells(), 5);
  for (Method method : {Method::rk45, Method::heun}) {
    std::array<std::vector<double>, 3> out[2];
    std::int64_t rejected = 0;
    int i = 0;
    for (Device d : {Device::cpu, Device::cuda}) {
      MicromagSystem<double> sys(p, d);
      sys.set_m(m0);
      StepperOptions o;
      o.method = method;
      o.tolerance = 1e-6;
      if (method == Method::heun) o.dt = o.max_dt = 2e-12;
      LlgStepper<double> st(sys, o);
      const FieldOfTime b = [](double t) {
        return std::array<double, 3>{0.02 * std::sin(1e10 * t), 0, 0.01};
      };
      double t = 0;
      while (t < 2e-11) st.step(t, 2e-11 - t, b);
      out[i++] = sys.m().to_host();
      rejected += st.rejected();
    }
    if (method == Method::heun) EXPECT_GT(rejected, 0);
    for (int c = 0; c < 3; ++c)
      for (std::size_t q = 0; q < out[0][c].size(); ++q)
        EXPECT_NEAR(out[0][c][q], out[1][c][q], 1e-9) << to_string(method);
  }
}

TEST(MicromagGpu, ThermalRunsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  // Fixed-step Heun with a temperature: the counter-based thermal field is the same draw on
  // the CPU and the GPU, so the noisy trajectories agree.
  MicromagProblem p = random_problem({16, 8, 2});
  p.regions[0].temp = 300;
  p.regions[3].temp = 150;
  p.thermal_seed = 77;
  const auto m0 = random_m(p.mesh.cells(), 9);
  auto run = [&](Device d, bool warm) {
    MicromagProblem q = p;
    if (!warm) q.regions[0].temp = q.regions[3].temp = 0;
    MicromagSystem<double> sys(q, d);
    sys.set_m(m0);
    StepperOptions o;
    o.method = Method::heun;
    o.dt = 1e-14;
    LlgStepper<double> st(sys, o);
    const FieldOfTime b = [](double) { return std::array<double, 3>{0, 0, 0.01}; };
    double t = 0;
    for (int s = 0; s < 200; ++s) st.step(t, 1, b);
    return sys.m().to_host();
  };
  const auto cpu = run(Device::cpu, true), gpu = run(Device::cuda, true),
             cold = run(Device::cpu, false);
  double noise = 0;
  for (int c = 0; c < 3; ++c)
    for (std::size_t q = 0; q < cpu[c].size(); ++q) {
      EXPECT_NEAR(cpu[c][q], gpu[c][q], 1e-9);
      noise = std::max(noise, std::abs(cpu[c][q] - cold[c][q]));
    }
  EXPECT_GT(noise, 1e-3);  // the thermal field moved m
}

TEST(MicromagGpu, SpinTorqueRunsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  // RK45 with a current through two regions of different Pol and xi (Zhang-Li) and fixed
  // layers, Lambda and eps' (Slonczewski), beside vacuum cells: CPU and GPU give the same m,
  // and the current moved it.
  MicromagProblem p = random_problem({16, 8, 2});
  p.regions[0].pol = 0.7;
  p.regions[0].xi = 0.05;
  p.regions[0].fixed_layer = {0.3, 0.2, 1};
  p.regions[0].lambda = 2;
  p.regions[0].epsilon_prime = 0.1;
  p.regions[3].pol = 0.4;
  p.regions[3].xi = 0.2;
  p.regions[3].fixed_layer = {1, 0, 0};
  p.regions[3].free_layer_thickness = 1e-9;
  p.current = {2e12, -1e12, 0.5e12};
  const auto m0 = random_m(p.mesh.cells(), 13);
  auto run = [&](Device d, bool current) {
    MicromagProblem q = p;
    if (!current) q.current = {0, 0, 0};
    MicromagSystem<double> sys(q, d);
    sys.set_m(m0);
    StepperOptions o;
    o.tolerance = 1e-6;
    LlgStepper<double> st(sys, o);
    const FieldOfTime b = [](double) { return std::array<double, 3>{0, 0, 0.01}; };
    double t = 0;
    while (t < 2e-11) st.step(t, 2e-11 - t, b);
    return sys.m().to_host();
  };
  const auto cpu = run(Device::cpu, true), gpu = run(Device::cuda, true),
             still = run(Device::cpu, false);
  double moved = 0;
  for (int c = 0; c < 3; ++c)
    for (std::size_t q = 0; q < cpu[c].size(); ++q) {
      EXPECT_NEAR(cpu[c][q], gpu[c][q], 1e-9);
      moved = std::max(moved, std::abs(cpu[c][q] - still[c][q]));
    }
  EXPECT_GT(moved, 1e-3);
}

TEST(MicromagGpu, LarmorPrecession) {
  SKIP_WITHOUT_GPU();
  Region r;
  r.ms = 8e5;
  r.alpha = 0.1;
  MicromagProblem p = MicromagProblem::box({1, 1, 1}, {2e-9, 2e-9, 2e-9}, r);
  p.demag = false;
  MicromagSystem<double> sys(p, Device::cuda);
  const double th0 = 1.2, B = 0.1, a = 0.1;
  sys.set_m({std::vector<double>{std::sin(th0)}, {0.0}, {std::cos(th0)}});
  StepperOptions o;
  o.tolerance = 1e-10;
  LlgStepper<double> st(sys, o);
  double t = 0;
  const FieldOfTime field = [B](double) { return std::array<double, 3>{0, 0, B}; };
  while (t < 1e-9) st.step(t, 1e-9 - t, field);
  const double w = gamma_ll * B / (1 + a * a);
  const double th = 2 * std::atan(std::tan(th0 / 2) * std::exp(-a * w * t));
  const auto m = sys.average_m();
  EXPECT_NEAR(m[0], std::sin(th) * std::cos(w * t), 1e-7);
  EXPECT_NEAR(m[1], std::sin(th) * std::sin(w * t), 1e-7);
  EXPECT_NEAR(m[2], std::cos(th), 1e-7);
}

TEST(MicromagGpu, PeriodicDemagMatchesDirectSum) {
  SKIP_WITHOUT_GPU();
  struct Case {
    std::array<int, 3> n;
    std::array<bool, 3> axis;
    int images;
  };
  for (demag::FftMode mode :
       {demag::FftMode::skip_zeros, demag::FftMode::plain, demag::FftMode::fused})
    for (const Case& c : std::vector<Case>{{{8, 5, 1}, {true, false, false}, 3},
                                           {{7, 4, 1}, {true, false, false}, 2},
                                           {{9, 7, 1}, {true, true, false}, 1},
                                           {{5, 6, 2}, {false, true, false}, 2},
                                           {{5, 4, 3}, {true, true, false}, 1},
                                           {{4, 3, 5}, {false, false, true}, 1},
                                           {{6, 16, 1}, {false, true, false}, 2},
                                           {{5, 32, 1}, {true, true, false}, 1}}) {
      const std::array<double, 3> cell{3e-9, 2.5e-9, 2e-9};
      const demag::Periodicity pbc{c.axis, c.images};
      EXPECT_LT(demag::DemagConvolution<double>::check_against_direct_sum(Device::cuda, c.n, cell,
                                                                          mode, pbc),
                1e-12)
          << c.n[0] << "x" << c.n[1] << "x" << c.n[2];
      EXPECT_LT(demag::DemagConvolution<float>::check_against_direct_sum(Device::cuda, c.n, cell,
                                                                         mode, pbc),
                3e-6);
    }
}

TEST(MicromagGpu, PeriodicCpuAndGpuAgree) {
  SKIP_WITHOUT_GPU();
  // Exchange across the periodic sides and the demag tensor with images, odd and even counts.
  for (demag::FftMode mode :
       {demag::FftMode::skip_zeros, demag::FftMode::plain, demag::FftMode::fused}) {
    expect_cpu_gpu_agree<double>({24, 9, 3}, mode, 1e-11, {true, true, false}, 3);
    expect_cpu_gpu_agree<double>({33, 16, 1}, mode, 1e-11, {true, false, false}, 5);
    expect_cpu_gpu_agree<float>({32, 17, 1}, mode, 2e-5, {false, true, false}, 5);
    expect_cpu_gpu_agree<double>({20, 64, 1}, mode, 1e-11, {false, true, false}, 3);
  }
}
