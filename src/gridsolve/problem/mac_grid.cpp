#include "gridsolve/problem/mac_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "gridsolve/core/error.hpp"

namespace gridsolve {

AxisSpacing AxisSpacing::parse(const std::string& text) {
  AxisSpacing s;
  if (text == "uniform" || text.empty()) return s;
  if (text.rfind("tanh", 0) == 0) {
    s.kind = Kind::tanh;
    s.beta = 2.0;
    if (text != "tanh") {
      // Only "tanh" or "tanh:BETA", the number taking the whole rest.
      bool ok = text.size() > 5 && text[4] == ':';
      if (ok) {
        try {
          std::size_t used = 0;
          s.beta = std::stod(text.substr(5), &used);
          ok = used == text.size() - 5;
        } catch (...) {
          ok = false;
        }
      }
      if (!ok) throw Error(fmt::format("spacing '{}': write tanh or tanh:BETA (a number)", text));
    }
    require(s.beta > 0 && s.beta <= 10,
            fmt::format("spacing '{}': tanh clustering needs 0 < beta <= 10", text));
    return s;
  }
  if (text.rfind("band:", 0) == 0) {
    s.kind = Kind::band;
    double v[3];
    std::size_t start = 5;
    for (int k = 0; k < 3; ++k) {
      const std::size_t end = k < 2 ? text.find(':', start) : text.size();
      try {
        if (end == std::string::npos) throw std::invalid_argument("missing");
        std::size_t used = 0;
        const std::string part = text.substr(start, end - start);
        v[k] = std::stod(part, &used);
        if (used != part.size()) throw std::invalid_argument("trailing");
      } catch (...) {
        throw Error(fmt::format(
            "spacing '{}': write band:LO:HI:H (the band [LO, HI] of uniform cells about H "
            "wide), three numbers",
            text));
      }
      start = end + 1;
    }
    s.band_lo = v[0], s.band_hi = v[1], s.band_h = v[2];
    require(s.band_hi > s.band_lo && s.band_h > 0 && s.band_h <= s.band_hi - s.band_lo,
            fmt::format("spacing '{}': the band needs LO < HI and 0 < H <= HI - LO", text));
    return s;
  }
  throw Error(fmt::format(
      "spacing '{}' is not known; valid: uniform, tanh, tanh:BETA, band:LO:HI:H", text));
}

std::string AxisSpacing::describe() const {
  if (kind == Kind::band) return fmt::format("band:{}:{}:{}", band_lo, band_hi, band_h);
  return kind == Kind::uniform ? "uniform" : fmt::format("tanh:{}", beta);
}

namespace {

// The growth factor r with h (r + r^2 + ... + r^m) = length (cells growing away from a
// band whose cells are h wide).
double growth_factor(double h, int m, double length) {
  auto sum = [&](double r) {
    if (std::abs(r - 1) < 1e-12) return h * m;
    return h * r * (std::pow(r, m) - 1) / (r - 1);
  };
  double a = 1e-6, b = 100;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (a + b);
    (sum(mid) < length ? a : b) = mid;
  }
  return 0.5 * (a + b);
}

// Faces 0..n of a band-spaced axis on [lo, hi].
std::vector<double> band_faces(const AxisSpacing& s, int n, double lo, double hi, char axis) {
  const std::string what = fmt::format("axis {}, spacing '{}'", axis, s.describe());
  require(s.band_lo >= lo && s.band_hi <= hi,
          fmt::format("{}: the band must lie inside the domain [{}, {}]", what, lo, hi));
  const double l1 = s.band_lo - lo, l2 = hi - s.band_hi;
  const bool left = l1 > 1e-12 * (hi - lo), right = l2 > 1e-12 * (hi - lo);
  // The band's cell count, checked before it becomes an int (a tiny H would overflow it).
  const double band_cells = std::round((s.band_hi - s.band_lo) / s.band_h);
  require(band_cells <= n,
          fmt::format("{}: the band takes {:.6g} cells, the axis has {}; give more cells or a "
                      "wider H",
                      what, band_cells, n));
  int nb = std::max(1, int(band_cells));
  if (!left && !right) nb = n;
  const int rest = n - nb;
  const int need = int(left) + int(right);
  require(rest >= need,
          fmt::format("{}: the band takes {} cells, the axis has {}; give at least {} cells", what,
                      nb, n, nb + need));
  const double hb = (s.band_hi - s.band_lo) / nb;
  int m1 = left ? rest : 0, m2 = right ? rest : 0;
  double r1 = left ? growth_factor(hb, m1, l1) : 1, r2 = right ? growth_factor(hb, m2, l2) : 1;
  if (left && right) {  // split the rest so that both sides grow alike
    double best = 1e300;
    for (int a = 1; a < rest; ++a) {
      const double ra = growth_factor(hb, a, l1), rb = growth_factor(hb, rest - a, l2);
      if (std::abs(ra - rb) < best)
        best = std::abs(ra - rb), m1 = a, m2 = rest - a, r1 = ra, r2 = rb;
    }
  }
  constexpr double max_growth = 1.25;
  require(r1 <= max_growth && r2 <= max_growth,
          fmt::format("{}: the cells outside the band would grow by a factor {:.3f} per cell "
                      "(at most {} is allowed); give more cells or a wider H",
                      what, std::max(r1, r2), max_growth));
  // More cells than the outside needs would shrink them toward the ends instead; a
  // little is harmless (the DFG channel's y axis ends at 0.84 of the band's width).
  const double end1 = left ? std::pow(r1, m1) : 1, end2 = right ? std::pow(r2, m2) : 1;
  require(std::min(end1, end2) >= 0.5,
          fmt::format("{}: the cells outside the band would shrink toward the ends, to {:.3g} of "
                      "the band's width (at least 0.5 is allowed); give fewer cells or a smaller H",
                      what, std::min(end1, end2)));
  std::vector<double> f(std::size_t(n + 1));
  for (int i = 0; i <= nb; ++i) f[std::size_t(m1 + i)] = s.band_lo + hb * i;
  double w = hb;
  for (int k = 1; k <= m1; ++k) w *= r1, f[std::size_t(m1 - k)] = f[std::size_t(m1 - k + 1)] - w;
  w = hb;
  for (int k = 1; k <= m2; ++k)
    w *= r2, f[std::size_t(m1 + nb + k)] = f[std::size_t(m1 + nb + k - 1)] + w;
  f[0] = lo;  // the geometric sums end there up to round-off
  f[std::size_t(n)] = hi;
  return f;
}

}  // namespace

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
    const std::vector<double> band = spacing_[a].kind == AxisSpacing::Kind::band
                                         ? band_faces(spacing_[a], n, lo_[a], hi_[a], "xyz"[a])
                                         : std::vector<double>{};
    for (int i = 0; i <= n; ++i) {
      if (!band.empty()) {
        f[std::size_t(i + 1)] = band[std::size_t(i)];
        continue;
      }
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
