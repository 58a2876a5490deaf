#include "gridsolve/apps/magnet/monotone_interpolation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "gridsolve/core/error.hpp"

namespace gridsolve::magnet {

MonotoneCubic::MonotoneCubic(std::vector<double> x, std::vector<double> y)
    : x_(std::move(x)), y_(std::move(y)) {
  const std::size_t n = x_.size();
  require(n >= 2 && y_.size() == n,
          fmt::format(
              "monotone interpolation needs at least 2 points and as many values, got {} and {}", n,
              y_.size()));
  const auto bad = std::adjacent_find(x_.begin(), x_.end(), std::greater_equal<double>());
  require(bad == x_.end(),
          fmt::format(
              "monotone interpolation needs strictly increasing abscissae; {} is followed by {}",
              bad == x_.end() ? 0.0 : *bad, bad == x_.end() ? 0.0 : *(bad + 1)));
  std::vector<double> h(n - 1), delta(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    h[k] = x_[k + 1] - x_[k];
    delta[k] = (y_[k + 1] - y_[k]) / h[k];
  }
  slope_.assign(n, 0.0);
  if (n == 2) {
    slope_[0] = slope_[1] = delta[0];
    return;
  }
  // Interior: weighted harmonic mean of the neighbouring secants, zero at extrema.
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (delta[k - 1] * delta[k] <= 0) continue;
    const double w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1];
    slope_[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k]);
  }
  // Ends: one-sided three-point estimate, limited so as to keep monotonicity.
  auto end_slope = [](double h0, double h1, double d0, double d1) {
    double s = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (s * d0 <= 0)
      s = 0;
    else if (d0 * d1 <= 0 && std::abs(s) > 3 * std::abs(d0))
      s = 3 * d0;
    return s;
  };
  slope_[0] = end_slope(h[0], h[1], delta[0], delta[1]);
  slope_[n - 1] = end_slope(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
}

double MonotoneCubic::operator()(double x) const {
  if (x <= x_.front()) return y_.front();
  if (x >= x_.back()) return y_.back();
  const std::size_t k = std::size_t(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
  const double h = x_[k + 1] - x_[k], t = (x - x_[k]) / h;
  const double t2 = t * t, t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * y_[k] + (t3 - 2 * t2 + t) * h * slope_[k] +
         (-2 * t3 + 3 * t2) * y_[k + 1] + (t3 - t2) * h * slope_[k + 1];
}

}  // namespace gridsolve::magnet
