// The effective field terms, the LLG right-hand side and the Runge-Kutta combinations as
// loop bodies run by for_each / reduce (compiled as CUDA in a CUDA build).
#include "gridsolve/apps/micromag/micromag_system.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::micromag {

namespace {

// Everything a loop body needs to compute B_eff at a cell; passed by value.
template <class T>
struct FieldKernel {
  const T* m[3];
  const std::uint8_t* region;
  const MaterialParams<T>* mat;
  int nx, ny, nz;
  bool wrap[3];  // periodic axes: the neighbour across the side is the first cell of the other
  CellIndex ix;  // cell -> element of m; the region array is dense, x fastest
  T inv_d2[3];
  demag::PaddedVector<T> hd;
  bool has_demag;
  T bext[3];

  GRIDSOLVE_HD std::int64_t at(int i, int j, int k) const { return ix(i, j, k); }
  GRIDSOLVE_HD std::int64_t region_at(int i, int j, int k) const {
    return (std::int64_t(k) * ny + j) * nx + i;
  }

  // Exchange with one neighbour q2 at 1/d^2 = w; vacuum neighbours and the box's sides
  // contribute nothing (free surfaces). Between regions A is the harmonic mean.
  GRIDSOLVE_HD void neighbour(std::int64_t q2, std::int64_t rq2, int r, T a, T w, const T mi[3],
                              T s[3]) const {
    const int r2 = region[rq2];
    if (mat[r2].ms == T(0)) return;
    T aij = a;
    if (r2 != r) {
      const T a2 = mat[r2].aex;
      aij = (a + a2) != T(0) ? T(2) * a * a2 / (a + a2) : T(0);
    }
    for (int c = 0; c < 3; ++c) s[c] += aij * w * (m[c][q2] - mi[c]);
  }

  // Adds the chosen terms of B (T) at cell (i, j, k) to b.
  GRIDSOLVE_HD void field(int i, int j, int k, unsigned terms, T b[3]) const {
    const std::int64_t q = at(i, j, k), rq = region_at(i, j, k);
    const int r = region[rq];
    const MaterialParams<T>& p = mat[r];
    const T mi[3] = {m[0][q], m[1][q], m[2][q]};
    if ((terms & term_exchange) && p.aex != T(0)) {
      T s[3] = {0, 0, 0};
      // Along a periodic axis the neighbour across the side wraps round (a single cell
      // along that axis is its own neighbour: m_j - m_i = 0, nothing to add).
      if (i > 0)
        neighbour(q - 1, rq - 1, r, p.aex, inv_d2[0], mi, s);
      else if (wrap[0] && nx > 1)
        neighbour(q + (nx - 1), rq + (nx - 1), r, p.aex, inv_d2[0], mi, s);
      if (i < nx - 1)
        neighbour(q + 1, rq + 1, r, p.aex, inv_d2[0], mi, s);
      else if (wrap[0] && nx > 1)
        neighbour(q - (nx - 1), rq - (nx - 1), r, p.aex, inv_d2[0], mi, s);
      if (j > 0)
        neighbour(q - ix.pitch, rq - nx, r, p.aex, inv_d2[1], mi, s);
      else if (wrap[1] && ny > 1)
        neighbour(q + (ny - 1) * ix.pitch, rq + std::int64_t(ny - 1) * nx, r, p.aex, inv_d2[1], mi,
                  s);
      if (j < ny - 1)
        neighbour(q + ix.pitch, rq + nx, r, p.aex, inv_d2[1], mi, s);
      else if (wrap[1] && ny > 1)
        neighbour(q - (ny - 1) * ix.pitch, rq - std::int64_t(ny - 1) * nx, r, p.aex, inv_d2[1], mi,
                  s);
      const std::int64_t plane = std::int64_t(nx) * ny;
      if (k > 0)
        neighbour(q - ix.plane, rq - plane, r, p.aex, inv_d2[2], mi, s);
      else if (wrap[2] && nz > 1)
        neighbour(q + (nz - 1) * ix.plane, rq + (nz - 1) * plane, r, p.aex, inv_d2[2], mi, s);
      if (k < nz - 1)
        neighbour(q + ix.plane, rq + plane, r, p.aex, inv_d2[2], mi, s);
      else if (wrap[2] && nz > 1)
        neighbour(q - (nz - 1) * ix.plane, rq - (nz - 1) * plane, r, p.aex, inv_d2[2], mi, s);
      const T f = T(2) / p.ms;
      for (int c = 0; c < 3; ++c) b[c] += f * s[c];
    }
    if (terms & term_anisotropy) {
      if (p.ku1 != T(0)) {
        const T mu = mi[0] * p.u[0] + mi[1] * p.u[1] + mi[2] * p.u[2];
        const T f = T(2) * p.ku1 / p.ms * mu;
        for (int c = 0; c < 3; ++c) b[c] += f * p.u[c];
      }
      if (p.kc1 != T(0)) {
        const T a1 = mi[0] * p.c1[0] + mi[1] * p.c1[1] + mi[2] * p.c1[2];
        const T a2 = mi[0] * p.c2[0] + mi[1] * p.c2[1] + mi[2] * p.c2[2];
        const T a3 = mi[0] * p.c3[0] + mi[1] * p.c3[1] + mi[2] * p.c3[2];
        const T f = -T(2) * p.kc1 / p.ms;
        const T g1 = f * a1 * (a2 * a2 + a3 * a3), g2 = f * a2 * (a1 * a1 + a3 * a3),
                g3 = f * a3 * (a1 * a1 + a2 * a2);
        for (int c = 0; c < 3; ++c) b[c] += g1 * p.c1[c] + g2 * p.c2[c] + g3 * p.c3[c];
      }
    }
    if (terms & term_zeeman)
      for (int c = 0; c < 3; ++c) b[c] += bext[c];
    if ((terms & term_demag) && has_demag) {
      const std::int64_t pq = hd.at(i, j, k);
      for (int c = 0; c < 3; ++c) b[c] += T(mu0) * hd.c[c][pq];
    }
  }
};

template <class T>
GRIDSOLVE_HD void cross(const T a[3], const T b[3], T out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

template <class T>
GRIDSOLVE_HD T inv_sqrt(T x) {
  return T(1) / sqrt(x);
}

}  // namespace

template <class T>
static FieldKernel<T> make_kernel(const CellVectors<T>& v, const Buffer<std::uint8_t>& region,
                                  const Buffer<MaterialParams<T>>& params, const Mesh& mesh,
                                  const demag::DemagConvolution<T>* conv, std::array<double, 3> b) {
  FieldKernel<T> f{};
  for (int c = 0; c < 3; ++c) f.m[c] = v.comp(c);
  f.region = region.data();
  f.mat = params.data();
  f.nx = mesh.n[0];
  f.ny = mesh.n[1];
  f.nz = mesh.n[2];
  for (int a = 0; a < 3; ++a) f.wrap[a] = mesh.periodic[a];
  f.ix = v.index();
  for (int a = 0; a < 3; ++a) f.inv_d2[a] = T(1 / (mesh.cell[a] * mesh.cell[a]));
  f.has_demag = conv != nullptr;
  if (conv) f.hd = conv->output();
  for (int c = 0; c < 3; ++c) f.bext[c] = T(b[c]);
  return f;
}

demag::Periodicity periodicity(const Mesh& mesh) {
  demag::Periodicity p;
  p.axis = mesh.periodic;
  p.images = mesh.images;
  return p;
}

MicromagProblem MicromagProblem::box(std::array<int, 3> n, std::array<double, 3> cell,
                                     const Region& r) {
  MicromagProblem p;
  p.mesh.n = n;
  p.mesh.cell = cell;
  p.region.assign(std::size_t(p.mesh.cells()), 0);
  p.regions[0] = r;
  return p;
}

template <class T>
MicromagSystem<T>::MicromagSystem(const MicromagProblem& p, Device d, demag::FftMode mode)
    : device_(d), problem_(p), mesh_(p.mesh) {
  const std::int64_t cells = mesh_.cells();
  require(cells > 0, "micromag: the mesh has no cells");
  require(std::int64_t(p.region.size()) == cells,
          fmt::format("micromag: {} region entries for {} cells", p.region.size(), cells));
  for (int a = 0; a < 3; ++a)
    require(mesh_.cell[a] > 0, fmt::format("micromag: cell size {} must be positive", a));
  std::vector<MaterialParams<T>> host(max_regions);
  for (int r = 0; r < max_regions; ++r) {
    const Region& g = p.regions[r];
    MaterialParams<T>& q = host[r];
    q = MaterialParams<T>{};
    if (r == vacuum) continue;
    q.ms = T(g.ms);
    q.aex = T(g.aex);
    q.alpha = T(g.alpha);
    q.ku1 = T(g.ku1);
    q.kc1 = T(g.kc1);
    auto unit = [&](std::array<double, 3> v, const char* what) {
      const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      require(n > 0, fmt::format("micromag: region {} {} must not be zero", r, what));
      return std::array<double, 3>{v[0] / n, v[1] / n, v[2] / n};
    };
    const auto u = unit(g.anis_u, "anisotropy axis");
    const auto c1 = unit(g.anis_c1, "cubic axis c1");
    auto c2 = unit(g.anis_c2, "cubic axis c2");
    const double d12 = c1[0] * c2[0] + c1[1] * c2[1] + c1[2] * c2[2];
    if (g.kc1 != 0)
      require(std::abs(d12) < 1e-6,
              fmt::format("micromag: region {} cubic axes c1 and c2 must be perpendicular", r));
    const std::array<double, 3> c3{c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2],
                                   c1[0] * c2[1] - c1[1] * c2[0]};
    for (int c = 0; c < 3; ++c) {
      q.u[c] = T(u[c]);
      q.c1[c] = T(c1[c]);
      q.c2[c] = T(c2[c]);
      q.c3[c] = T(c3[c]);
    }
  }
  std::vector<std::uint8_t> reg = p.region;
  for (std::uint8_t& r : reg)
    if (p.regions[r].ms <= 0) r = vacuum;  // no material: a free surface for exchange
  for (std::uint8_t r : reg) magnetic_cells_ += r != vacuum;
  require(magnetic_cells_ > 0, "micromag: no cell holds magnetic material (Ms > 0)");
  region_ = Buffer<std::uint8_t>(d, reg.size());
  copy_bytes(region_.data(), d, reg.data(), Device::cpu, reg.size());
  params_ = Buffer<MaterialParams<T>>(d, host.size());
  copy_bytes(params_.data(), d, host.data(), Device::cpu, host.size() * sizeof(MaterialParams<T>));
  m_ = CellVectors<T>(d, mesh_.n);
  if (p.demag)
    conv_ = std::make_unique<demag::DemagConvolution<T>>(d, mesh_.n, mesh_.cell, mode,
                                                         periodicity(mesh_));
}

template <class T>
MicromagSystem<T>::~MicromagSystem() = default;

template <class T>
void MicromagSystem<T>::set_m(const std::array<std::vector<double>, 3>& v) {
  const std::int64_t cells = mesh_.cells();
  for (const auto& c : v)
    require(std::int64_t(c.size()) == cells, "micromag: magnetization of the wrong size");
  std::vector<std::uint8_t> reg(cells);
  copy_bytes(reg.data(), Device::cpu, region_.data(), device_, cells);
  std::array<std::vector<T>, 3> h;
  for (auto& c : h) c.assign(cells, T(0));
  for (std::int64_t q = 0; q < cells; ++q) {
    if (reg[q] == vacuum) continue;
    const double n = std::sqrt(v[0][q] * v[0][q] + v[1][q] * v[1][q] + v[2][q] * v[2][q]);
    require(n > 0 && std::isfinite(n), "micromag: the initial magnetization is zero or not finite");
    for (int c = 0; c < 3; ++c) h[c][q] = T(v[c][q] / n);
  }
  m_.from_host(h);
}

template <class T>
void MicromagSystem<T>::load_demag_input(const CellVectors<T>& v) {
  if (!conv_) return;
  const demag::PaddedVector<T> in = conv_->input();
  const Vec3Ptr<T> m = v.ptr();
  const CellIndex ix = v.index();
  const std::uint8_t* region = region_.data();
  const MaterialParams<T>* mat = params_.data();
  const int nx = mesh_.n[0], ny = mesh_.n[1];
  for_each(device_, Box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}},
           [=] GRIDSOLVE_HD(int i, int j, int k) {
             const std::int64_t q = ix(i, j, k), p = in.at(i, j, k);
             const T ms = mat[region[(std::int64_t(k) * ny + j) * nx + i]].ms;
             for (int c = 0; c < 3; ++c) in.c[c][p] = ms * m.c[c][q];
           });
}

template <class T>
void MicromagSystem<T>::demag() {
  if (conv_) conv_->convolve();
}

template <class T>
void MicromagSystem<T>::slope(const CellVectors<T>& v, CellVectors<T>& k, std::array<double, 3> b,
                              Slope kind) {
  const FieldKernel<T> f = make_kernel(v, region_, params_, mesh_, conv_.get(), b);
  const Vec3Ptr<T> out = k.ptr();
  const T g = T(gamma_ll);
  for_each(device_, Box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}},
           [=] GRIDSOLVE_HD(int i, int j, int kk) {
             const std::int64_t q = f.at(i, j, kk);
             const MaterialParams<T>& p = f.mat[f.region[f.region_at(i, j, kk)]];
             if (p.ms == T(0)) {
               for (int c = 0; c < 3; ++c) out.c[c][q] = T(0);
               return;
             }
             T bf[3] = {0, 0, 0};
             f.field(i, j, kk, term_all, bf);
             const T mi[3] = {f.m[0][q], f.m[1][q], f.m[2][q]};
             T mxb[3], mxmxb[3];
             cross(mi, bf, mxb);
             cross(mi, mxb, mxmxb);
             if (kind == Slope::llg) {
               // (1 + a^2) dm/dt = -gamma (m x B + a m x (m x B))
               const T pre = -g / (T(1) + p.alpha * p.alpha);
               for (int c = 0; c < 3; ++c) out.c[c][q] = pre * (mxb[c] + p.alpha * mxmxb[c]);
             } else if (kind == Slope::damping) {
               // The damping term alone at its fastest (alpha = 1).
               for (int c = 0; c < 3; ++c) out.c[c][q] = -g / T(2) * mxmxb[c];
             } else {
               for (int c = 0; c < 3; ++c) out.c[c][q] = mxmxb[c];
             }
           });
}

template <class T>
double MicromagSystem<T>::combine(const CellVectors<T>& m0, double h, const StageSum<T>& sum,
                                  CellVectors<T>& out, const StageSum<T>& err) {
  const Vec3Ptr<T> a = m0.ptr(), o = out.ptr();
  const CellIndex ix = m0.index();
  const std::uint8_t* region = region_.data();
  const MaterialParams<T>* mat = params_.data();
  const int nx = mesh_.n[0], ny = mesh_.n[1];
  const bool has_demag = conv_ != nullptr;
  const demag::PaddedVector<T> in = has_demag ? conv_->input() : demag::PaddedVector<T>{};
  const T ht = T(h);
  const StageSum<T> s = sum, e = err;
  const Box cells{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}};
  if (e.count == 0) {
    // No error estimate wanted: a plain loop (a reduction launches fewer, longer threads).
    for_each(device_, cells, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t q = ix(i, j, k);
      const T ms = mat[region[(std::int64_t(k) * ny + j) * nx + i]].ms;
      if (ms == T(0)) return;
      T v[3] = {a.c[0][q], a.c[1][q], a.c[2][q]};
      for (int t = 0; t < s.count; ++t)
        for (int c = 0; c < 3; ++c) v[c] += ht * s.w[t] * s.k[t][c][q];
      const T inv = inv_sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (int c = 0; c < 3; ++c) {
        v[c] *= inv;
        o.c[c][q] = v[c];
      }
      if (has_demag) {
        const std::int64_t p = in.at(i, j, k);
        for (int c = 0; c < 3; ++c) in.c[c][p] = ms * v[c];
      }
    });
    return 0.0;
  }
  return reduce<double>(
      device_, Box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}},
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = ix(i, j, k);
        const T ms = mat[region[(std::int64_t(k) * ny + j) * nx + i]].ms;
        if (ms == T(0)) return 0.0;
        T v[3] = {a.c[0][q], a.c[1][q], a.c[2][q]};
        for (int t = 0; t < s.count; ++t)
          for (int c = 0; c < 3; ++c) v[c] += ht * s.w[t] * s.k[t][c][q];
        const T inv = inv_sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int c = 0; c < 3; ++c) {
          v[c] *= inv;
          o.c[c][q] = v[c];
        }
        if (has_demag) {
          const std::int64_t p = in.at(i, j, k);
          for (int c = 0; c < 3; ++c) in.c[c][p] = ms * v[c];
        }
        if (e.count == 0) return 0.0;
        T d[3] = {0, 0, 0};
        for (int t = 0; t < e.count; ++t)
          for (int c = 0; c < 3; ++c) d[c] += e.w[t] * e.k[t][c][q];
        return double(ht) * sqrt(double(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      },
      MaxOp{}, 0.0);
}

template <class T>
double MicromagSystem<T>::max_norm(double h, const StageSum<T>& sum) {
  const StageSum<T> s = sum;
  const double hh = h;
  // A flat loop over the cells and the (zero) row padding between them.
  return reduce<double>(
      device_, Box{{0, 0, 0}, {int(m_.span() - 1), 0, 0}},
      [=] GRIDSOLVE_HD(int q, int, int) -> double {
        T d[3] = {0, 0, 0};
        for (int t = 0; t < s.count; ++t)
          for (int c = 0; c < 3; ++c) d[c] += s.w[t] * s.k[t][c][q];
        return hh * sqrt(double(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      },
      MaxOp{}, 0.0);
}

template <class T>
double MicromagSystem<T>::dot(const StageSum<T>& a, const StageSum<T>& b) {
  const StageSum<T> x = a, y = b;
  return reduce<double>(
      device_, Box{{0, 0, 0}, {int(m_.span() - 1), 0, 0}},
      [=] GRIDSOLVE_HD(int q, int, int) -> double {
        double u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int t = 0; t < x.count; ++t)
          for (int c = 0; c < 3; ++c) u[c] += double(x.w[t] * x.k[t][c][q]);
        for (int t = 0; t < y.count; ++t)
          for (int c = 0; c < 3; ++c) v[c] += double(y.w[t] * y.k[t][c][q]);
        return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
      },
      SumOp{}, 0.0);
}

template <class T>
static double energy_term(Device d, const Box& box, const FieldKernel<T>& f, unsigned which,
                          double factor) {
  return reduce<double>(
      d, box,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = f.at(i, j, k);
        const MaterialParams<T>& p = f.mat[f.region[f.region_at(i, j, k)]];
        if (p.ms == T(0)) return 0.0;
        T bf[3] = {0, 0, 0};
        f.field(i, j, k, which, bf);
        double s = 0;
        for (int c = 0; c < 3; ++c) s += double(f.m[c][q]) * double(bf[c]);
        return factor * double(p.ms) * s;
      },
      SumOp{}, 0.0);
}

template <class T>
Energies MicromagSystem<T>::energies(std::array<double, 3> b) {
  load_demag_input(m_);
  demag();
  const FieldKernel<T> f = make_kernel(m_, region_, params_, mesh_, conv_.get(), b);
  const Box box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}};
  const double vol = mesh_.cell_volume();
  Energies e;
  // -1/2 Ms m.B for the terms linear in m (exchange, demag), -Ms m.B for Zeeman; the
  // anisotropy energies directly from their densities.
  e.exchange = vol * energy_term(device_, box, f, term_exchange, -0.5);
  e.zeeman = vol * energy_term(device_, box, f, term_zeeman, -1.0);
  e.demag = conv_ ? vol * energy_term(device_, box, f, term_demag, -0.5) : 0.0;
  e.anisotropy = vol * reduce<double>(
                           device_, box,
                           [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
                             const std::int64_t q = f.at(i, j, k);
                             const MaterialParams<T>& p = f.mat[f.region[f.region_at(i, j, k)]];
                             if (p.ms == T(0)) return 0.0;
                             const double m0 = f.m[0][q], m1 = f.m[1][q], m2 = f.m[2][q];
                             double density = 0;
                             if (p.ku1 != T(0)) {
                               const double mu = m0 * p.u[0] + m1 * p.u[1] + m2 * p.u[2];
                               density -= double(p.ku1) * mu * mu;
                             }
                             if (p.kc1 != T(0)) {
                               const double a1 = m0 * p.c1[0] + m1 * p.c1[1] + m2 * p.c1[2];
                               const double a2 = m0 * p.c2[0] + m1 * p.c2[1] + m2 * p.c2[2];
                               const double a3 = m0 * p.c3[0] + m1 * p.c3[1] + m2 * p.c3[2];
                               density += double(p.kc1) * (a1 * a1 * a2 * a2 + a2 * a2 * a3 * a3 +
                                                           a3 * a3 * a1 * a1);
                             }
                             return density;
                           },
                           SumOp{}, 0.0);
  return e;
}

template <class T>
std::array<double, 3> MicromagSystem<T>::average_m() {
  std::array<double, 3> avg{};
  const std::int64_t span = m_.span();
  for (int c = 0; c < 3; ++c) {
    const T* v = m_.comp(c);
    avg[c] =
        reduce<double>(
            device_, Box{{0, 0, 0}, {int(span - 1), 0, 0}},
            [=] GRIDSOLVE_HD(int q, int, int) -> double { return double(v[q]); }, SumOp{}, 0.0) /
        double(magnetic_cells_);
  }
  return avg;
}

template <class T>
double MicromagSystem<T>::max_torque(std::array<double, 3> b) {
  load_demag_input(m_);
  demag();
  const FieldKernel<T> f = make_kernel(m_, region_, params_, mesh_, conv_.get(), b);
  return reduce<double>(
      device_, Box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}},
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = f.at(i, j, k);
        if (f.mat[f.region[f.region_at(i, j, k)]].ms == T(0)) return 0.0;
        T bf[3] = {0, 0, 0};
        f.field(i, j, k, term_all, bf);
        const T mi[3] = {f.m[0][q], f.m[1][q], f.m[2][q]};
        T t[3];
        cross(mi, bf, t);
        return sqrt(double(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]));
      },
      MaxOp{}, 0.0);
}

template <class T>
void MicromagSystem<T>::effective_field(std::array<double, 3> b, unsigned terms,
                                        CellVectors<T>& out) {
  load_demag_input(m_);
  demag();
  const FieldKernel<T> f = make_kernel(m_, region_, params_, mesh_, conv_.get(), b);
  const Vec3Ptr<T> o = out.ptr();
  for_each(device_, Box{{0, 0, 0}, {mesh_.n[0] - 1, mesh_.n[1] - 1, mesh_.n[2] - 1}},
           [=] GRIDSOLVE_HD(int i, int j, int k) {
             const std::int64_t q = f.at(i, j, k);
             T bf[3] = {0, 0, 0};
             if (f.mat[f.region[f.region_at(i, j, k)]].ms != T(0)) f.field(i, j, k, terms, bf);
             for (int c = 0; c < 3; ++c) o.c[c][q] = bf[c];
           });
}

template class MicromagSystem<float>;
template class MicromagSystem<double>;

}  // namespace gridsolve::micromag
