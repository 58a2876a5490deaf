#include "gridsolve/apps/flow/flow_post.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gridsolve/apps/flow/flow_obstacles.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/io/input_file.hpp"

namespace gridsolve::flow {

FlowSnapshot::FlowSnapshot(const FlowSolver<double>& s) : grid_(&s.grid()) {
  FlowSolver<double>::WholeState w = s.whole_state();
  u_ = std::move(w.u);
  p_ = std::move(w.p);
  solid_ = std::move(w.solid);
  // (in 3D the bodies are their shapes extruded along z: the nearest surface is in x, y)
  if (s.flow_case().obstacle_treatment == ObstacleTreatment::immersed)
    obstacles_ = s.flow_case().obstacles;
}

bool FlowSnapshot::solid(int i, int j) const {
  return solid_.cview()(i, j, 0) != 0;
}

namespace {
// Index i and weight of the lower point such that positions pos(i) <= x <= pos(i + 1),
// over index range [first, last].
template <class P>
std::pair<int, double> bracket(double x, int first, int last, P pos) {
  int i = first;
  while (i + 1 < last && pos(i + 1) < x) ++i;
  const double a = pos(i), b = pos(i + 1);
  double t = b > a ? (x - a) / (b - a) : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  return {i, 1.0 - t};
}
}  // namespace

double FlowSnapshot::sample(const Field<double>& f, int c, double x, double y, double z) const {
  const MacGrid& g = *grid_;
  const double X[3] = {x, y, z};
  int idx[3] = {0, 0, 0};
  double w[3] = {1, 1, 1};
  for (int a = 0; a < g.dims(); ++a) {
    const int n = g.cells()[std::size_t(a)];
    std::pair<int, double> b;
    if (a == c)
      b = bracket(X[a], 0, n, [&](int i) { return g.xf(a, i); });
    else
      b = bracket(X[a], -1, n, [&](int i) { return g.xc(a, i); });
    idx[a] = b.first;
    w[a] = b.second;
  }
  const FieldView<const double> v = f.cview();
  const FieldView<const std::uint8_t> solid = solid_.cview();
  const auto n = g.cells();
  double s = 0, wsum = 0;
  const int kz = g.dims() == 3 ? 2 : 1;
  for (int dk = 0; dk < kz; ++dk)
    for (int dj = 0; dj < 2; ++dj)
      for (int di = 0; di < 2; ++di) {
        const double wt = (di ? 1 - w[0] : w[0]) * (dj ? 1 - w[1] : w[1]) *
                          (g.dims() == 3 ? (dk ? 1 - w[2] : w[2]) : 1.0);
        const int i = idx[0] + di, j = idx[1] + dj, k = idx[2] + dk;
        // Pressure inside an obstacle is no value of the flow: the fluid cells' values,
        // reweighted, give the pressure on the body's surface.
        if (c < 0 && i >= 0 && j >= 0 && i < n[0] && j < n[1] && k < n[2] && solid(i, j, k))
          continue;
        s += wt * v(i, j, k);
        wsum += wt;
      }
  return wsum > 0 ? s / wsum : 0.0;
}

double FlowSnapshot::velocity(int c, double x, double y, double z) const {
  return sample(u_[std::size_t(c)], c, x, y, z);
}

double FlowSnapshot::pressure(double x, double y, double z) const {
  if (!obstacles_.empty()) {
    const SurfacePoint s = nearest_surface(obstacles_, x, y);
    const MacGrid& g = *grid_;
    const double h = std::max(g.width(0, g.cell_of(0, s.x)), g.width(1, g.cell_of(1, s.y)));
    if (s.distance < h) {
      // Lagrange through distances h, 2h, 3h, evaluated at the point's own distance (the
      // surface for points inside). The samples stay inside the viscous layer, where the
      // pressure at a stagnation point still rises toward the wall.
      const double t = std::max(s.distance, 0.0) / h;
      const double node[3] = {1, 2, 3};
      double value = 0;
      for (int a = 0; a < 3; ++a) {
        double w = 1;
        for (int b = 0; b < 3; ++b)
          if (b != a) w *= (t - node[b]) / (node[a] - node[b]);
        const double d = node[a] * h;
        value += w * sample(p_, -1, s.x + d * s.nx, s.y + d * s.ny, z);
      }
      return value;
    }
  }
  return sample(p_, -1, x, y, z);
}

std::vector<double> FlowSnapshot::stream_function() const {
  const MacGrid& g = *grid_;
  const int nx = g.cells()[0], ny = g.cells()[1];
  std::vector<double> psi(std::size_t(nx + 1) * std::size_t(ny + 1), 0.0);
  const FieldView<const double> u = u_[0].cview();
  // Along x = x_0 integrate u dy, then step across with -v dx.
  for (int j = 0; j < ny; ++j)
    psi[std::size_t(0 + (nx + 1) * (j + 1))] =
        psi[std::size_t((nx + 1) * j)] + u(0, j, 0) * g.width(1, j);
  const FieldView<const double> vv = u_[1].cview();
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i < nx; ++i)
      psi[std::size_t(i + 1 + (nx + 1) * j)] =
          psi[std::size_t(i + (nx + 1) * j)] - vv(i, j, 0) * g.width(0, i);
  return psi;
}

std::vector<double> FlowSnapshot::vorticity() const {
  const MacGrid& g = *grid_;
  const int nx = g.cells()[0], ny = g.cells()[1];
  const FieldView<const double> u = u_[0].cview(), v = u_[1].cview();
  std::vector<double> w(std::size_t(nx + 1) * std::size_t(ny + 1), 0.0);
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      // Node (i, j) sits between u faces (i, j - 1), (i, j) and v faces (i - 1, j), (i, j);
      // ghosts carry the wall values.
      const double dvdx = (v(i, j, 0) - v(i - 1, j, 0)) / (g.xc(0, i) - g.xc(0, i - 1));
      const double dudy = (u(i, j, 0) - u(i, j - 1, 0)) / (g.xc(1, j) - g.xc(1, j - 1));
      w[std::size_t(i + (nx + 1) * j)] = dvdx - dudy;
    }
  return w;
}

std::vector<double> FlowSnapshot::cell_velocity(int c) const {
  const MacGrid& g = *grid_;
  const auto n = g.cells();
  const FieldView<const double> u = u_[std::size_t(c)].cview();
  std::vector<double> out;
  out.reserve(std::size_t(g.cell_count()));
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        int J[3] = {i, j, k};
        J[c] += 1;
        out.push_back(0.5 * (u(i, j, k) + u(J[0], J[1], J[2])));
      }
  return out;
}

std::vector<double> FlowSnapshot::cell_pressure() const {
  const auto n = grid_->cells();
  const FieldView<const double> p = p_.cview();
  std::vector<double> out;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) out.push_back(p(i, j, k));
  return out;
}

VortexCentre primary_vortex(const FlowSnapshot& s) {
  const MacGrid& g = s.grid();
  const int nx = g.cells()[0], ny = g.cells()[1];
  const std::vector<double> psi = s.stream_function();
  int bi = 1, bj = 1;
  for (int j = 1; j < ny; ++j)
    for (int i = 1; i < nx; ++i)
      if (psi[std::size_t(i + (nx + 1) * j)] < psi[std::size_t(bi + (nx + 1) * bj)]) bi = i, bj = j;
  auto at = [&](int i, int j) { return psi[std::size_t(i + (nx + 1) * j)]; };
  // A parabola through the three nodes per axis locates the minimum between nodes.
  auto refine = [](double xm, double x0, double xp, double fm, double f0, double fp) {
    const double d1 = (f0 - fm) / (x0 - xm), d2 = (fp - f0) / (xp - x0);
    const double curv = (d2 - d1) / (0.5 * (xp - xm));
    if (curv <= 0) return x0;
    const double slope = (fp - fm) / (xp - xm);
    return std::clamp(x0 - slope / curv, xm, xp);
  };
  VortexCentre v;
  v.x = refine(g.xf(0, bi - 1), g.xf(0, bi), g.xf(0, bi + 1), at(bi - 1, bj), at(bi, bj),
               at(bi + 1, bj));
  v.y = refine(g.xf(1, bj - 1), g.xf(1, bj), g.xf(1, bj + 1), at(bi, bj - 1), at(bi, bj),
               at(bi, bj + 1));
  v.psi = at(bi, bj);
  return v;
}

std::string ghia_table_path() {
  const char* env = std::getenv("GRIDSOLVE_REFERENCE_DIR");
  const std::string name = "ghia1982_re100_re1000.csv";
  if (env && *env) return std::string(env) + "/" + name;
  namespace fs = std::filesystem;
  // Upward from the working directory, then from the program's own folder, so that a
  // build-tree binary finds the repository's copy wherever it is run from.
  std::vector<fs::path> starts{fs::current_path()};
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) starts.push_back(self.parent_path());
  for (const fs::path& start : starts)
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      for (const fs::path& p : {dir / "examples/flow" / name, dir / "shared/reference" / name})
        if (fs::exists(p)) return p.string();
      if (dir == dir.parent_path()) break;
    }
  return "";
}

std::vector<CentrelinePoint> compare_with_ghia(const FlowSnapshot& s, const std::string& path,
                                               double re) {
  require(re == 100 || re == 1000,
          fmt::format("Ghia's tables are for Re 100 and 1000, not {}", re));
  require(!path.empty(),
          "Ghia's table ghia1982_re100_re1000.csv was not found; set GRIDSOLVE_REFERENCE_DIR "
          "to the folder that holds it (examples/flow in the source tree)");
  // The table is 34 short lines; a megabyte bounds it like every other input.
  std::istringstream in(read_input_file(path, std::size_t(1) << 20, "reference table"));
  std::vector<CentrelinePoint> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("kind", 0) == 0) continue;
    std::stringstream ss(line);
    std::string kind, coord, r100, r1000;
    std::getline(ss, kind, ',');
    std::getline(ss, coord, ',');
    std::getline(ss, r100, ',');
    std::getline(ss, r1000, ',');
    CentrelinePoint p;
    p.kind = kind.empty() ? 'u' : kind[0];
    p.coord = std::stod(coord);
    p.reference = std::stod(re == 100 ? r100 : r1000);
    p.computed = p.kind == 'u' ? s.velocity(0, 0.5, p.coord) : s.velocity(1, p.coord, 0.5);
    out.push_back(p);
  }
  require(!out.empty(), fmt::format("Ghia's table '{}' holds no points", path));
  return out;
}

double max_deviation(const std::vector<CentrelinePoint>& pts) {
  double m = 0;
  for (const auto& p : pts) m = std::max(m, std::abs(p.computed - p.reference));
  return m;
}

double mean_deviation(const std::vector<CentrelinePoint>& pts) {
  double m = 0;
  for (const auto& p : pts) m += std::abs(p.computed - p.reference);
  return pts.empty() ? 0 : m / double(pts.size());
}

double strouhal(const std::vector<double>& t, const std::vector<double>& lift, double length,
                double velocity) {
  const std::size_t n = t.size();
  if (n < 8) return 0;
  const std::size_t start = n / 2;
  double mean = 0;
  for (std::size_t i = start; i < n; ++i) mean += lift[i];
  mean /= double(n - start);
  std::vector<double> crossings;
  for (std::size_t i = start + 1; i < n; ++i)
    if (lift[i - 1] < mean && lift[i] >= mean) {
      const double f = (mean - lift[i - 1]) / (lift[i] - lift[i - 1]);
      crossings.push_back(t[i - 1] + f * (t[i] - t[i - 1]));
    }
  if (crossings.size() < 2) return 0;
  const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  return length / (velocity * period);
}

}  // namespace gridsolve::flow
