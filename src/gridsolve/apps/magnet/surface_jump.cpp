#include "gridsolve/apps/magnet/surface_jump.hpp"

#include "gridsolve/apps/magnet/magnet_problem.hpp"

namespace gridsolve::magnet {

void SurfaceJump::path_point(const MagnetDesign& d, double s, double& r, double& z) {
  if (s <= d.z0) {
    r = d.r0;
    z = s;
  } else {
    r = d.r0 - (s - d.z0);
    z = d.z0;
  }
}

SurfaceJump surface_jump(const MagnetDesign& d, const MagnetField& f) {
  const Grid& g = f.grid;
  const int i0 = d.corner_i(), j0 = d.corner_j();
  SurfaceJump out;
  for (int j = 0; j <= j0; ++j) {
    const double z = g.coord(1, j);
    out.body_z.push_back(z);
    out.body.push_back(f.at(i0, j) - inner_potential(d, z));
  }
  const double phi_in_cap = inner_potential(d, g.coord(1, j0));
  for (int i = 0; i <= i0; ++i) {
    out.cap_r.push_back(g.coord(0, i));
    out.cap.push_back(f.at(i, j0) - phi_in_cap);
  }
  for (int j = 0; j <= j0; ++j) {
    out.path_s.push_back(out.body_z[std::size_t(j)]);
    out.path.push_back(out.body[std::size_t(j)]);
  }
  for (int i = i0 - 1; i >= 0; --i) {
    out.path_s.push_back(d.z0 + (d.r0 - out.cap_r[std::size_t(i)]));
    out.path.push_back(out.cap[std::size_t(i)]);
  }
  out.total_current = out.cap.front() - out.body.front();
  return out;
}

}  // namespace gridsolve::magnet
