// MonotoneCubic: piecewise-cubic Hermite interpolation that keeps monotone data monotone
// (Fritsch-Carlson slopes, as in PCHIP), for inverting sampled monotone curves.
#pragma once
#include <vector>

namespace gridsolve::magnet {

class MonotoneCubic {
 public:
  // x strictly increasing, at least 2 points; throws Error otherwise.
  MonotoneCubic(std::vector<double> x, std::vector<double> y);
  // Interpolates inside [x.front(), x.back()], clamps outside.
  double operator()(double x) const;

 private:
  std::vector<double> x_, y_, slope_;
};

}  // namespace gridsolve::magnet
