// Timings of the demag convolution and the LLG step, and of mumax3 on the same device.
#include "gridsolve/bench/micromag_bench.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "gridsolve/apps/micromag/llg_stepper.hpp"
#include "gridsolve/apps/micromag/micromag_system.hpp"
#include "gridsolve/bench/demag_ranks_bench.hpp"
#include "gridsolve/bench/host_timing.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/device.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/io/summary_json.hpp"
#include "gridsolve/transform/demag_convolution.hpp"

namespace gridsolve {

namespace {

using Clock = std::chrono::steady_clock;
using namespace micromag;

std::array<int, 3> parse_mesh(const std::string& s) {
  std::array<int, 3> n{1, 1, 1};
  char x1 = 0, x2 = 0;
  std::istringstream in(s);
  in >> n[0] >> x1 >> n[1] >> x2 >> n[2];
  require(in && x1 == 'x' && x2 == 'x' && in.peek() == EOF,
          fmt::format("--mesh must look like 2048x2048x1, got '{}'", s));
  for (int v : n)
    require(v >= 1 && v <= 65536, fmt::format("--mesh: 1 .. 65536 per axis, got '{}'", s));
  return n;
}

// Median seconds of `repeats` timings of `reps` calls of f, after one warm-up call.
template <class F>
double median_seconds(Device d, int repeats, int reps, F f) {
  f();
  synchronize(d);
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) f();
    synchronize(d);
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Row {
  std::string name, precision, mesh;
  double ms = 0;
  double rate = 0;  // cells x evaluations / s
  std::string note;
};

template <class T>
std::vector<double> random_values(std::int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

template <class T>
void demag_rows(Device d, std::array<int, 3> n, int repeats, std::vector<Row>& rows) {
  const std::string prec = sizeof(T) == 4 ? "float" : "double";
  const std::string mesh = fmt::format("{}x{}x{}", n[0], n[1], n[2]);
  const double cells = double(n[0]) * n[1] * n[2];
  const std::array<double, 3> cell{4e-9, 4e-9, 4e-9};
  double plain_transforms = 0;
  {
    const demag::Layout l = demag::Layout::make(n, demag::FftMode::plain);
    std::unique_ptr<demag::DemagFft<T>> fft;
    if (d == Device::cuda) {
#if GRIDSOLVE_HAVE_CUDA
      fft = demag::make_cufft_demag_fft<T>(l);
#else
      throw Error("this build of gridsolve has no CUDA support", Error::Kind::runtime);
#endif
    } else {
      fft = demag::make_fftw_demag_fft<T>(l);
    }
    plain_transforms = median_seconds(d, repeats, 5, [&] {
      fft->forward();
      fft->inverse();
    });
    rows.push_back({"plain padded transforms (3 fwd + 3 inv)", prec, mesh, 1e3 * plain_transforms,
                    cells / plain_transforms,
                    fmt::format("padded {}x{}x{}", l.p[0], l.p[1], l.p[2])});
  }
  for (demag::FftMode mode :
       {demag::FftMode::plain, demag::FftMode::skip_zeros, demag::FftMode::fused}) {
    demag::DemagConvolution<T> conv(d, n, cell, mode);
    // A random magnetization (the timing does not depend on it, but zeros are never timed).
    const std::int64_t count = std::int64_t(n[0]) * n[1] * n[2];
    std::vector<Buffer<T>> m(3), h(3);
    for (int c = 0; c < 3; ++c) {
      const std::vector<double> v = random_values<T>(count, 7 + c);
      const std::vector<T> vt(v.begin(), v.end());
      m[c] = Buffer<T>(d, count);
      h[c] = Buffer<T>(d, count);
      copy_bytes(m[c].data(), d, vt.data(), Device::cpu, count * sizeof(T));
    }
    const T* mp[3] = {m[0].data(), m[1].data(), m[2].data()};
    T* hp[3] = {h[0].data(), h[1].data(), h[2].data()};
    conv.apply(mp, hp);
    const double s = median_seconds(d, repeats, 5, [&] { conv.convolve(); });
    rows.push_back({mode == demag::FftMode::plain        ? "demag evaluation, plain transforms"
                    : mode == demag::FftMode::skip_zeros ? "demag evaluation, zero-skipping"
                                                         : "demag evaluation, fused column pass",
                    prec, mesh, 1e3 * s, cells / s,
                    fmt::format("{:.2f}x the plain transforms", s / plain_transforms)});
  }
}

struct StepTiming {
  double ms = 0;    // one step (the median run's; on ranks, the slowest rank's)
  double rate = 0;  // cells x field evaluations / s over the whole mesh
};

// The terms a benchmark step adds to mumax3's problem: none, interfacial DMI (1 mJ/m^2), or
// a temperature (300 K, in fixed Heun steps of 1e-13 s).
enum class Extra { none, dmi, thermal };

// mumax3's benchmark problem: permalloy-like, 4 nm cubes, alpha 0.01 (the field, B = (0,
// 10 mT, 0), and m = +x are the steps').
MicromagProblem benchmark_problem(std::array<int, 3> n, Extra extra = Extra::none) {
  Region r;
  r.ms = 800e3;
  r.aex = 13e-12;
  r.alpha = 0.01;
  if (extra == Extra::dmi) r.dind = 1e-3;
  if (extra == Extra::thermal) r.temp = 300;
  return MicromagProblem::box(n, {4e-9, 4e-9, 4e-9}, r);
}

// LLG steps of mumax3's benchmark problem (B = (0, 10 mT, 0), m = +x): on the run's ranks
// together, or on this rank alone if `whole`.
template <class T>
StepTiming time_steps(Device d, std::array<int, 3> n, int repeats, Method method,
                      demag::FftMode mode, bool whole = false, Extra extra = Extra::none) {
  const MicromagProblem p = benchmark_problem(n, extra);
  MicromagSystem<T> sys(p, d, mode, whole);
  const std::int64_t count = p.mesh.cells();
  const std::array<std::vector<double>, 3> uniform{std::vector<double>(count, 1.0),
                                                   std::vector<double>(count, 0.0),
                                                   std::vector<double>(count, 0.0)};
  StepperOptions o;
  o.method = method;
  if (extra == Extra::thermal) o.dt = 1e-13;  // stochastic: fixed steps
  const FieldOfTime b = [](double) { return std::array<double, 3>{0, 0.01, 0}; };
  const Communicator& comm = Communicator::world();
  std::vector<double> rates, per_step;
  const int steps = d == Device::cuda ? 100 : 5;
  for (int rep = 0; rep < repeats; ++rep) {
    sys.set_m(uniform);
    LlgStepper<T> st(sys, o);
    double t = 0;
    for (int i = 0; i < 4; ++i) st.step(t, 1, b);  // warm-up, and dt settles
    sys.set_m(uniform);
    st.invalidate();
    t = 0;
    synchronize(d);
    const std::int64_t e0 = st.evaluations();
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) st.step(t, 1, b);
    synchronize(d);
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!whole) wall = comm.max(wall);
    rates.push_back(double(count) * double(st.evaluations() - e0) / wall);
    per_step.push_back(wall / steps);
  }
  std::sort(rates.begin(), rates.end());
  std::sort(per_step.begin(), per_step.end());
  return {1e3 * per_step[per_step.size() / 2], rates[rates.size() / 2]};
}

// Where a field evaluation's time goes (ms per call, the slowest rank's): the ghost fill
// of m, the demag field (M into the convolution's input, the convolution), the slope (its
// ghost fill included) and the stage combination with its max reduction.
template <class T>
std::array<double, 4> evaluation_parts_ms(Device d, std::array<int, 3> n, int repeats,
                                          demag::FftMode mode, bool whole = false) {
  const MicromagProblem p = benchmark_problem(n);
  MicromagSystem<T> sys(p, d, mode, whole);
  const std::int64_t count = p.mesh.cells();
  std::array<std::vector<double>, 3> m0{random_values<T>(count, 3), random_values<T>(count, 4),
                                        random_values<T>(count, 5)};
  sys.set_m(m0);
  CellVectors<T> k = sys.vectors(), out = sys.vectors();
  const std::array<double, 3> b{0, 0.01, 0};
  StageSum<T> sum;
  sum.add(k, 0.5);
  constexpr int calls = 20;
  auto per_call = [&](auto&& f) {
    return bench::ranks_median_ms(repeats, d, !whole, [&] {
             for (int i = 0; i < calls; ++i) f();
           }) / calls;
  };
  return {per_call([&] { sys.m().fill_ghosts(sys.ghost_sides()); }), per_call([&] {
            sys.load_demag_input(sys.m());
            sys.demag();
          }),
          per_call([&] { sys.slope(sys.m(), k, b, Slope::llg); }),
          per_call([&] { sys.combine(sys.m(), 1e-14, sum, out, sum); })};
}

template <class T>
void step_rows(Device d, std::array<int, 3> n, int repeats, Method method, demag::FftMode mode,
               std::vector<Row>& rows) {
  const std::string prec = sizeof(T) == 4 ? "float" : "double";
  const std::string mesh = fmt::format("{}x{}x{}", n[0], n[1], n[2]);
  const StepTiming s = time_steps<T>(d, n, repeats, method, mode);
  rows.push_back({fmt::format("LLG step, {} ({} FFTs)", to_string(method),
                              mode == demag::FftMode::plain        ? "plain"
                              : mode == demag::FftMode::skip_zeros ? "zero-skipping"
                                                                   : "fused column pass"),
                  prec, mesh, s.ms, s.rate, "cells x field evaluations / s"});
}

// Runs mumax3's own benchmark script at this mesh (with the extra term: Dind, or Temp in
// fixed steps, FixDt); returns its cells x evaluations / s.
double run_mumax3(const std::string& peer, std::array<int, 3> n, std::string& note,
                  Extra extra = Extra::none) {
  namespace fs = std::filesystem;
  const fs::path bin = fs::path(peer) / "bin" / "mumax3";
  if (!fs::exists(bin)) {
    note = fmt::format("no mumax3 at {}", bin.string());
    return 0;
  }
  const fs::path work = fs::temp_directory_path() / "gridsolve-mumax3-bench";
  fs::create_directories(work);
  const std::string terms = extra == Extra::dmi       ? "Dind = 1e-3\n"
                            : extra == Extra::thermal ? "Temp = 300\nFixDt = 1e-13\n"
                                                      : "";
  const std::string script =
      terms +
      fmt::format(
          "msat = 800e3\naex = 13e-12\nalpha = 0.01\nc := 4e-9\nsetcellsize(c, c, "
          "c)\nsetsolver(2)\n"
          "setgridsize({0}, {1}, {2})\nsteps(1)\nb_ext = vector(0, 0.01, 0)\nm = uniform(1, 0, 0)\n"
          "steps(3)\nm = uniform(1, 0, 0)\nt = 0\nstart := now()\nneval0 := Neval.get()\n"
          "steps(100)\nwall := since(start).Seconds()\nnevl := Neval.get() - neval0\n"
          "fprintln(\"benchmark.txt\", {0}*{1}*{2}, {0}*{1}*{2}*nevl/wall, t/nevl)\n",
          n[0], n[1], n[2]);
  std::ofstream((work / "bench.mx3").string()) << script;
  const fs::path out = work / "bench.out";
  fs::remove_all(out);
  const std::string cmd = fmt::format(
      "cd '{}' && LD_LIBRARY_PATH='{}/lib':/usr/local/cuda/lib64:$LD_LIBRARY_PATH "
      "CUDA_CACHE_PATH=/tmp/mumax3-nvjit timeout 300 '{}' -http '' -f -cache /tmp/kc -o '{}' "
      "bench.mx3 > mumax3.log 2>&1",
      work.string(), fs::absolute(peer).string(), fs::absolute(bin).string(), out.string());
  const int rc = std::system(cmd.c_str());
  std::ifstream in((out / "benchmark.txt").string());
  double cells = 0, rate = 0;
  if (rc != 0 || !(in >> cells >> rate)) {
    note = fmt::format("mumax3 failed (exit {}); see {}", rc, (work / "mumax3.log").string());
    return 0;
  }
  note = std::string("mumax3's bench.mx3 at this mesh") +
         (extra == Extra::dmi       ? " with Dind = 1e-3"
          : extra == Extra::thermal ? " with Temp = 300, FixDt = 1e-13"
                                    : "") +
         ", same device, same run";
  return rate;
}

}  // namespace

namespace {

// Under mpirun: the demag evaluation on the run's ranks beside rank 0 alone.
int ranks_bench(const MicromagBenchOptions& o, std::array<int, 3> n, Device d) {
  const Communicator& comm = Communicator::world();
  const DemagRanksReport r = run_demag_ranks_bench(d, n, o.repeats);
  // The Heun step (float, the mode the micromag command picks) on the ranks, strong and
  // weak, beside rank 0 alone.
  const demag::FftMode mode = d == Device::cpu ? demag::FftMode::skip_zeros
                              : n[2] == 1      ? demag::FftMode::fused
                                               : demag::FftMode::plain;
  const std::array<int, 3> grown = weak_mesh(n, comm.size());
  const StepTiming strong = time_steps<float>(d, n, o.repeats, Method::heun, mode);
  const StepTiming weak = time_steps<float>(d, grown, o.repeats, Method::heun, mode);
  StepTiming alone;
  if (comm.is_root()) alone = time_steps<float>(d, n, o.repeats, Method::heun, mode, true);
  alone.ms = comm.max(alone.ms);
  alone.rate = comm.max(alone.rate);
  const std::array<double, 4> parts = evaluation_parts_ms<float>(d, n, o.repeats, mode);
  std::array<double, 4> parts_alone{};
  if (comm.is_root()) parts_alone = evaluation_parts_ms<float>(d, n, o.repeats, mode, true);
  if (!comm.is_root()) return 0;
  fmt::print(
      "gridsolve bench micromag on {} ranks: demag evaluation (float), slabs, median of {} runs\n"
      "device {}; link: {}, {:.1f} GB/s one way per rank; one rank: {}\n",
      r.ranks, o.repeats, r.device, r.link, r.link_gbs, r.one_rank_mode);
  fmt::print("{:<7} {:>5} {:>16} {:>10} {:>16} {:>10} {:>8} {:>6} {:>11} {:>10} {:>9} {:>8}\n",
             "kind", "ranks", "mesh", "ms/eval", "1-rank mesh", "1-rank ms", "speedup", "effic",
             "transp. ms", "MB/rank", "link ms", "/link");
  nlohmann::json js = nlohmann::json::array();
  auto text = [](std::array<int, 3> m) { return fmt::format("{}x{}x{}", m[0], m[1], m[2]); };
  for (const DemagRanksRow& w : r.rows) {
    fmt::print(
        "{:<7} {:>5} {:>16} {:>10.3f} {:>16} {:>10.3f} {:>8.2f} {:>5.0f}% {:>11.3f} {:>10.1f} "
        "{:>9.3f} {:>8.2f}\n",
        w.kind, w.ranks, text(w.mesh), w.ms, text(w.one_rank_mesh), w.one_rank_ms, w.speedup,
        100 * w.efficiency, w.transpose_ms, w.transpose_bytes / 1e6, w.link_ms,
        w.link_ms > 0 ? w.transpose_ms / w.link_ms : 0.0);
    js.push_back({{"kind", w.kind},
                  {"ranks", w.ranks},
                  {"mesh", text(w.mesh)},
                  {"ms", w.ms},
                  {"one_rank_mesh", text(w.one_rank_mesh)},
                  {"one_rank_ms", w.one_rank_ms},
                  {"speedup", w.speedup},
                  {"efficiency", w.efficiency},
                  {"transpose_ms", w.transpose_ms},
                  {"transpose_bytes", w.transpose_bytes},
                  {"link_ms", w.link_ms}});
  }
  fmt::print(
      "strong: the mesh split over the ranks, beside rank 0 alone on it; weak: each rank keeps "
      "the given mesh's cells, beside rank 0 alone on it. transp. ms: the transposes of one "
      "evaluation timed alone; link ms: the bytes one rank sends at the link bandwidth\n");
  // The Heun step: the whole mesh's cells x evaluations / s, strong and weak.
  fmt::print("{:<7} {:>5} {:>16} {:>10} {:>16} {:>10} {:>8} {:>6} {:>14}\n", "Heun", "ranks",
             "mesh", "ms/step", "1-rank mesh", "1-rank ms", "speedup", "effic", "cells*eval/s");
  struct StepRow {
    std::string kind;
    std::array<int, 3> mesh;
    StepTiming t;
    double speedup;
  };
  // Speedups by cells x evaluations / s: the adaptive step may take other step sizes (and
  // reject other steps) on the ranks than alone, in float.
  const StepRow steps_on_ranks[2] = {{"strong", n, strong, strong.rate / alone.rate},
                                     {"weak", grown, weak, weak.rate / alone.rate}};
  for (const StepRow& w : steps_on_ranks) {
    fmt::print("{:<7} {:>5} {:>16} {:>10.3f} {:>16} {:>10.3f} {:>8.2f} {:>5.0f}% {:>14.4g}\n",
               w.kind, r.ranks, text(w.mesh), w.t.ms, text(n), alone.ms, w.speedup,
               100 * w.speedup / r.ranks, w.t.rate);
    js.push_back({{"kind", "heun " + w.kind},
                  {"ranks", r.ranks},
                  {"mesh", text(w.mesh)},
                  {"ms", w.t.ms},
                  {"one_rank_mesh", text(n)},
                  {"one_rank_ms", alone.ms},
                  {"speedup", w.speedup},
                  {"efficiency", w.speedup / r.ranks},
                  {"cells_evaluations_per_s", w.t.rate}});
  }
  fmt::print(
      "one field evaluation, ms per call ({} ranks / rank 0 alone) of {}: ghost fill {:.3f} / "
      "{:.3f}, demag {:.3f} / {:.3f}, slope {:.3f} / {:.3f}, combine {:.3f} / {:.3f}\n",
      r.ranks, text(n), parts[0], parts_alone[0], parts[1], parts_alone[1], parts[2],
      parts_alone[2], parts[3], parts_alone[3]);
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    write_json_file(o.out + "/bench.json", {{"bench", "micromag"},
                                            {"ranks", r.ranks},
                                            {"device", r.device},
                                            {"link", r.link},
                                            {"link_gbs", r.link_gbs},
                                            {"rows", js}});
  }
  return 0;
}

}  // namespace

int micromag_bench(const MicromagBenchOptions& o) {
  const std::array<int, 3> n = parse_mesh(o.mesh);
  require(o.repeats >= 1, fmt::format("--repeats must be at least 1, got {}", o.repeats));
  const Device d = select_device(o.device);
  if (Communicator::world().size() > 1) return ranks_bench(o, n, d);
  std::string device_name = to_string(d);
  if (d == Device::cuda && !cuda_devices().empty()) device_name = cuda_devices()[0].name;
  fmt::print("gridsolve bench micromag: {} on {}, median of {} runs\n", o.mesh, device_name,
             o.repeats);
  std::vector<Row> rows;
  demag_rows<float>(d, n, o.repeats, rows);
  if (d == Device::cuda && n != std::array<int, 3>{4096, 2048, 1})
    demag_rows<float>(d, {4096, 2048, 1}, o.repeats, rows);  // 8.4 M cells
  demag_rows<double>(d, n, o.repeats, rows);
  using demag::FftMode;
  const FftMode modes[2] = {FftMode::skip_zeros, FftMode::plain};
  for (FftMode m : modes) step_rows<float>(d, n, o.repeats, Method::heun, m, rows);
  step_rows<float>(d, n, o.repeats, Method::heun, FftMode::fused, rows);
  for (FftMode m : modes) step_rows<double>(d, n, o.repeats, Method::heun, m, rows);
  step_rows<double>(d, n, o.repeats, Method::heun, FftMode::fused, rows);
  step_rows<float>(d, n, o.repeats, Method::rk45, modes[0], rows);
  // The terms a step may add, and what they cost (float, the film's transforms).
  const FftMode film = d == Device::cpu ? FftMode::skip_zeros
                       : n[2] == 1      ? FftMode::fused
                                        : FftMode::plain;
  const StepTiming base = time_steps<float>(d, n, o.repeats, Method::heun, film);
  StepTiming with[2];
  const Extra extras[2] = {Extra::dmi, Extra::thermal};
  const char* extra_names[2] = {"LLG step, heun + interfacial DMI",
                                "LLG step, heun + 300 K (fixed 1e-13 s)"};
  for (int e = 0; e < 2; ++e) {
    with[e] = time_steps<float>(d, n, o.repeats, Method::heun, film, false, extras[e]);
    rows.push_back({extra_names[e], "float", o.mesh, with[e].ms, with[e].rate,
                    fmt::format("the step without it: {:.4f} ms; the term costs {:+.1f}%", base.ms,
                                100 * (with[e].ms / base.ms - 1))});
  }
  double ours = 0;
  for (const Row& r : rows)
    if (r.precision == "float" && r.name.find("heun (") != std::string::npos)
      ours = std::max(ours, r.rate);
  if (!o.peer.empty()) {
    Row peer{"mumax3 benchmark (Heun, float)", "float", o.mesh, 0, 0, ""};
    peer.rate = run_mumax3(o.peer, n, peer.note);
    if (peer.rate > 0) peer.note += fmt::format("; gridsolve / mumax3 = {:.2f}x", ours / peer.rate);
    rows.push_back(peer);
    const char* peer_names[2] = {"mumax3 benchmark + Dind (Heun, float)",
                                 "mumax3 benchmark + Temp (Heun, float)"};
    for (int e = 0; e < 2; ++e) {
      Row p{peer_names[e], "float", o.mesh, 0, 0, ""};
      p.rate = run_mumax3(o.peer, n, p.note, extras[e]);
      if (p.rate > 0)
        p.note += fmt::format("; gridsolve / mumax3 = {:.2f}x", with[e].rate / p.rate);
      rows.push_back(p);
    }
  }
  fmt::print("{:<44} {:>6} {:>12} {:>10} {:>14}  {}\n", "job", "prec", "mesh", "ms", "cells*eval/s",
             "note");
  nlohmann::json js = nlohmann::json::array();
  for (const Row& r : rows) {
    // A peer's rows have a rate and no time of ours ("-", null in bench.json).
    const std::string ms = r.ms > 0 ? fmt::format("{:.4f}", r.ms) : std::string("-");
    fmt::print("{:<44} {:>6} {:>12} {:>10} {:>14.4g}  {}\n", r.name, r.precision, r.mesh, ms,
               r.rate, r.note);
    js.push_back({{"job", r.name},
                  {"precision", r.precision},
                  {"mesh", r.mesh},
                  {"ms", r.ms > 0 ? nlohmann::json(r.ms) : nlohmann::json(nullptr)},
                  {"cells_evaluations_per_s", r.rate},
                  {"note", r.note}});
  }
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    write_json_file(o.out + "/bench.json",
                    {{"bench", "micromag"}, {"device", device_name}, {"rows", js}});
  }
  return 0;
}

}  // namespace gridsolve
