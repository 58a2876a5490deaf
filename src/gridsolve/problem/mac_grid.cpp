#include "gridsolve/problem/mac_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

AxisSpacing AxisSpacing::parse(const std::string& text) {
  AxisSpacing s;
  if (text == "uniform" || text.empty()) return s;
  if (text.rfind("tanh", 0) == 0) {
    s.kind = Kind::tanh;
    s.beta = 2.0;
    if (text.size() > 5 && text[4] == ':') {
      try {
        s.beta = std::stod(text.substr(5));
      } catch (...) {
        throw Error(fmt::format("spacing '{}': the number after 'tanh:' is not a number", text));
      }
    }
    require(s.beta > 0 && s.beta <= 10,
            fmt::format("spacing '{}': tanh clustering needs 0 < beta <= 10", text));
    return s;
  }
  throw Error(fmt::format("spacing '{}' is not known; valid: uniform, tanh, tanh:BETA", text));
}

std::string AxisSpacing::describe() const {
  return kind == Kind::uniform ? "uniform" : fmt::format("tanh:{}", beta);
}

MacGrid::MacGrid(int dims, std::array<int, 3> cells, std::array<double, 3> lo,
                 std::array<double, 3> hi, std::array<AxisSpacing, 3> spacing, Device device)
    : dims_(dims), n_(cells), lo_(lo), hi_(hi), spacing_(spacing), device_(device) {
  require(dims == 2 || dims == 3, fmt::format("a flow grid is 2D or 3D, not {}D", dims));
  if (dims == 2) n_[2] = 1, lo_[2] = 0, hi_[2] = 1, spacing_[2] = AxisSpacing{};
  for (int a = 0; a < 3; ++a) {
    require(n_[a] >= (a < dims ? 2 : 1),
            fmt::format("axis {} has {} cells; at least 2 are needed", "xyz"[a], n_[a]));
    require(hi_[a] > lo_[a], fmt::format("axis {}: the domain's upper end {} is not above its "
                                         "lower end {}",
                                         "xyz"[a], hi_[a], lo_[a]));
    const int n = n_[a];
    const double L = hi_[a] - lo_[a];
    std::vector<double>& f = face_[a];
    f.assign(std::size_t(n + 3), 0.0);
    for (int i = 0; i <= n; ++i) {
      const double s = double(i) / n;
      double x = s;
      if (spacing_[a].kind == AxisSpacing::Kind::tanh) {
        const double b = spacing_[a].beta;
        x = 0.5 * (1.0 + std::tanh(b * (2 * s - 1)) / std::tanh(b));
      }
      f[std::size_t(i + 1)] = i == n ? hi_[a] : lo_[a] + L * x;
    }
    // Ghost faces mirror the boundary cells.
    f[0] = 2 * f[1] - f[2];
    f[std::size_t(n + 2)] = 2 * f[std::size_t(n + 1)] - f[std::size_t(n)];
    std::vector<double>& c = centre_[a];
    c.assign(std::size_t(n + 3), 0.0);
    for (int i = -1; i <= n; ++i)
      c[std::size_t(i + 1)] = 0.5 * (f[std::size_t(i + 1)] + f[std::size_t(i + 2)]);
    c[std::size_t(n + 2)] = c[std::size_t(n + 1)];  // unused; keeps the array's size even
    face_dev_[a] = Buffer<double>(device, f.size());
    centre_dev_[a] = Buffer<double>(device, c.size());
    copy_bytes(face_dev_[a].data(), device, f.data(), Device::cpu, f.size() * sizeof(double));
    copy_bytes(centre_dev_[a].data(), device, c.data(), Device::cpu, c.size() * sizeof(double));
  }
}

double MacGrid::min_width(int a) const {
  double m = hi_[a] - lo_[a];
  for (int i = 0; i < n_[a]; ++i) m = std::min(m, width(a, i));
  return m;
}

int MacGrid::cell_of(int a, double x) const {
  const auto& f = face_[a];
  const auto it = std::upper_bound(f.begin() + 1, f.begin() + n_[a] + 2, x);
  const int i = int(it - f.begin()) - 2;
  return std::clamp(i, 0, n_[a] - 1);
}

MacGeometry MacGrid::geometry() const {
  MacGeometry g;
  g.dims = dims_;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = n_[a];
    g.face[a] = face_dev_[a].data();
    g.centre[a] = centre_dev_[a].data();
  }
  return g;
}

MacGeometry MacGrid::host_geometry() const {
  MacGeometry g = geometry();
  for (int a = 0; a < 3; ++a) {
    g.face[a] = face_[a].data();
    g.centre[a] = centre_[a].data();
  }
  return g;
}

std::string MacGrid::describe() const {
  std::string s = dims_ == 2 ? fmt::format("{} x {} cells", n_[0], n_[1])
                             : fmt::format("{} x {} x {} cells", n_[0], n_[1], n_[2]);
  bool stretched = false;
  for (int a = 0; a < dims_; ++a) stretched |= spacing_[a].kind != AxisSpacing::Kind::uniform;
  if (stretched) {
    s += ", spacing";
    for (int a = 0; a < dims_; ++a) s += fmt::format(" {}:{}", "xyz"[a], spacing_[a].describe());
  }
  return s;
}

}  // namespace gridsolve
