#include "gridsolve/apps/magnet/magnet_study.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "gridsolve/apps/magnet/surface_jump.hpp"
#include "gridsolve/core/error.hpp"

namespace gridsolve::magnet {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct Sample {
  StudyStep step;
  SurfaceJump jump;
};

Sample run_step(const MagnetDesign& d, const MagnetSolveSettings& s, const std::string& sweep) {
  const MagnetField f = solve_magnet(d, s);
  Sample out;
  out.jump = surface_jump(d, f);
  StudyStep& st = out.step;
  st.sweep = sweep;
  st.h = d.dr;
  st.r1 = d.r1;
  st.z1 = d.z1;
  st.nodes_r = f.grid.n[0];
  st.nodes_z = f.grid.n[1];
  st.iterations = f.report.iterations;
  st.seconds = f.report.seconds + f.assembly_seconds;
  st.converged = f.report.converged;
  st.total_current = out.jump.total_current;
  st.current_change = st.dphi_change = st.order = st.current_order = nan;
  return out;
}

void compare(const Sample& prev, Sample& cur) {
  const double i = cur.jump.total_current;
  cur.step.current_change = std::abs(i - prev.jump.total_current) / std::abs(i);
  // On the coarser of the two paths (the fewer points), so no value is extrapolated.
  const bool prev_coarser = prev.jump.path_s.size() <= cur.jump.path_s.size();
  const SurfaceJump& a = prev_coarser ? prev.jump : cur.jump;
  const SurfaceJump& b = prev_coarser ? cur.jump : prev.jump;
  cur.step.dphi_change = max_difference_on(a.path_s, a.path, b.path_s, b.path) / std::abs(i);
}

}  // namespace

double max_difference_on(const std::vector<double>& sa, const std::vector<double>& a,
                         const std::vector<double>& sb, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < sa.size(); ++k) {
    const double s = sa[k];
    auto hi = std::lower_bound(sb.begin(), sb.end(), s);
    double v;
    if (hi == sb.begin())
      v = b.front();
    else if (hi == sb.end())
      v = b.back();
    else {
      const std::size_t n = std::size_t(hi - sb.begin());
      const double t = (s - sb[n - 1]) / (sb[n] - sb[n - 1]);
      v = (1 - t) * b[n - 1] + t * b[n];
    }
    m = std::max(m, std::abs(a[k] - v));
  }
  return m;
}

std::vector<StudyStep> mesh_study(const MagnetDesign& d, const MagnetSolveSettings& s,
                                  std::vector<double> spacings) {
  require(!spacings.empty(), "the mesh study needs at least one spacing");
  std::sort(spacings.begin(), spacings.end(), std::greater<double>());
  for (double h : spacings) {
    MagnetDesign t = d;
    t.dr = t.dz = h;
    t.validate();  // every step is checked before the first solve
  }
  std::vector<Sample> runs;
  std::vector<StudyStep> out;
  for (double h : spacings) {
    MagnetDesign t = d;
    t.dr = t.dz = h;
    runs.push_back(run_step(t, s, "mesh"));
    if (runs.size() >= 2) compare(runs[runs.size() - 2], runs.back());
    if (runs.size() >= 3) {
      const StudyStep &p = runs[runs.size() - 2].step, &c = runs.back().step;
      runs.back().step.order = std::log(p.dphi_change / c.dphi_change) / std::log(p.h / c.h);
      runs.back().step.current_order =
          std::log(p.current_change / c.current_change) / std::log(p.h / c.h);
    }
    out.push_back(runs.back().step);
  }
  return out;
}

std::vector<StudyStep> box_study(const MagnetDesign& d, const MagnetSolveSettings& s,
                                 std::vector<double> boxes, double h) {
  require(!boxes.empty(), "the box study needs at least one box size");
  std::sort(boxes.begin(), boxes.end());
  for (double b : boxes) {
    MagnetDesign t = d;
    t.r1 = t.z1 = b;
    t.dr = t.dz = h;
    t.validate();
  }
  std::vector<Sample> runs;
  std::vector<StudyStep> out;
  for (double b : boxes) {
    MagnetDesign t = d;
    t.r1 = t.z1 = b;
    t.dr = t.dz = h;
    runs.push_back(run_step(t, s, "box"));
    if (runs.size() >= 2) compare(runs[runs.size() - 2], runs.back());
    out.push_back(runs.back().step);
  }
  return out;
}

}  // namespace gridsolve::magnet
