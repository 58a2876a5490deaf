// The fused effective-field loops (effective_field.hpp's terms), the LLG right-hand side and
// the Runge-Kutta combinations as loop bodies run by for_each / reduce (compiled as CUDA in
// a CUDA build).
#include "gridsolve/apps/micromag/micromag_system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gridsolve/apps/micromag/effective_field.hpp"
#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/exec/parallel_for.hpp"

namespace gridsolve::micromag {

namespace {

template <class T>
GRIDSOLVE_HD void cross(const T a[3], const T b[3], T out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// 1 / sqrt(x). On the GPU the hardware's reciprocal square root (2 ulp in float, 1 in
// double) instead of a correctly rounded root and division: m is normalized every stage,
// so its length is 1 to within rounding either way, at a fraction of the instructions.
template <class T>
GRIDSOLVE_HD T inv_sqrt(T x) {
#ifdef __CUDA_ARCH__
  return rsqrt(x);
#else
  return T(1) / std::sqrt(x);
#endif
}

}  // namespace

// The field evaluation at v: fills v's ghosts (exchange reads the neighbours there).
template <class T>
static FieldKernel<T> make_kernel(CellVectors<T>& v, const GhostSides& sides,
                                  const Field<std::uint8_t>& region,
                                  const Buffer<MaterialParams<T>>& params, const Mesh& mesh,
                                  const demag::PaddedVector<T>* hd, std::array<double, 3> b,
                                  ThermalDraw thermal = {},
                                  std::array<double, 3> current = {0, 0, 0}) {
  v.fill_ghosts(sides);
  const TermInputs<T> in{v.view(), region.cview(), params.data(), &mesh, hd, b, thermal, current};
  return FieldKernel<T>::make(in);
}

// The cells of a mesh as a box of indices.
static Box cell_box(const Mesh& mesh) {
  return Box{{0, 0, 0}, {mesh.n[0] - 1, mesh.n[1] - 1, mesh.n[2] - 1}};
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
MicromagSystem<T>::MicromagSystem(const MicromagProblem& p, Device d, demag::FftMode mode,
                                  bool whole)
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
    q.inv_ms = g.ms > 0 ? T(1 / g.ms) : T(0);
    q.inv_1_alpha2 = T(1 / (1 + g.alpha * g.alpha));
    q.aex = T(g.aex);
    q.alpha = T(g.alpha);
    q.ku1 = T(g.ku1);
    q.kc1 = T(g.kc1);
    q.dind = T(g.dind);
    q.dbulk = T(g.dbulk);
    q.temp = T(g.temp);
    q.pol = T(g.pol);
    q.xi = T(g.xi);
    q.lambda = T(g.lambda);
    q.eps_prime = T(g.epsilon_prime);
    const double pn =
        std::sqrt(g.fixed_layer[0] * g.fixed_layer[0] + g.fixed_layer[1] * g.fixed_layer[1] +
                  g.fixed_layer[2] * g.fixed_layer[2]);
    // No fixed layer: no Slonczewski torque (a zero thickness turns it off in the kernel).
    q.flt = pn > 0 ? T(g.free_layer_thickness > 0 ? g.free_layer_thickness
                                                  : p.mesh.n[2] * p.mesh.cell[2])
                   : T(0);
    for (int c = 0; c < 3; ++c) q.fixed[c] = pn > 0 ? T(g.fixed_layer[c] / pn) : T(0);
    has_temperature_ = has_temperature_ || (g.temp > 0 && g.ms > 0);
    const bool current = p.current[0] != 0 || p.current[1] != 0 || p.current[2] != 0;
    has_extra_terms_ =
        has_extra_terms_ ||
        (g.ms > 0 && (g.dind != 0 || g.dbulk != 0 || g.temp > 0 || (current && g.pol != 0)));
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
  // The region map with its ghosts: vacuum everywhere first, which the free sides keep
  // (the box sits in vacuum), then the cells, then the periodic sides' ghosts.
  sides_ = cell_ghost_sides(mesh_.n, mesh_.periodic);
  Field<std::uint8_t> map = cell_field<std::uint8_t>(Device::cpu, mesh_.n, 1);
  std::fill(map.storage(), map.storage() + map.storage_size(), vacuum);
  const FieldView<std::uint8_t> w = map.view();
  for (int k = 0; k < mesh_.n[2]; ++k)
    for (int j = 0; j < mesh_.n[1]; ++j)
      for (int i = 0; i < mesh_.n[0]; ++i)
        w(i, j, k) = reg[(std::size_t(k) * mesh_.n[1] + j) * mesh_.n[0] + i];
  exchange_ghosts(map, sides_);
  const Communicator& comm = Communicator::world();
  cells_ = cell_box(mesh_);
  if (comm.size() > 1 && !whole) {
    // Slabs along z (y for a single layer), the demag convolution's own.
    const int t = mesh_.n[2] > 1 ? 2 : 1;
    require(mesh_.n[std::size_t(t)] >= 2 * comm.size(),
            fmt::format("micromag on {} ranks: the mesh has {} cells along {}, the axis the ranks "
                        "split; each rank needs two at least",
                        comm.size(), mesh_.n[std::size_t(t)], t == 2 ? "z" : "y"));
    if (p.demag) {
      split_conv_ = std::make_unique<demag::DemagOnRanks<T>>(d, mesh_.n, mesh_.cell,
                                                             periodicity(mesh_));
      parts_ = split_conv_->decomposition();
    } else {
      parts_ = demag::slab_decomposition(mesh_.n, mesh_.periodic);
    }
    cells_ = parts_->box(comm.rank());
    // The map's part with its ghosts: the neighbours' regions, vacuum or the periodic side.
    region_ = field_part(map, parts_, comm.rank()).copy_to(d);
  } else {
    region_ = map.copy_to(d);
    if (p.demag)
      conv_ = std::make_unique<demag::DemagConvolution<T>>(d, mesh_.n, mesh_.cell, mode,
                                                           periodicity(mesh_));
  }
  params_ = Buffer<MaterialParams<T>>(d, host.size());
  copy_bytes(params_.data(), d, host.data(), Device::cpu, host.size() * sizeof(MaterialParams<T>));
  m_ = vectors();
}

template <class T>
CellVectors<T> MicromagSystem<T>::vectors() const {
  return CellVectors<T>(device_, mesh_.n, parts_, parts_ ? Communicator::world().rank() : 0);
}

template <class T>
demag::PaddedVector<T> MicromagSystem<T>::demag_input() const {
  return conv_ ? conv_->input() : split_conv_ ? split_conv_->input() : demag::PaddedVector<T>{};
}

template <class T>
demag::PaddedVector<T> MicromagSystem<T>::demag_output() const {
  return conv_ ? conv_->output() : split_conv_ ? split_conv_->output() : demag::PaddedVector<T>{};
}

template <class T>
double MicromagSystem<T>::max_over_ranks(double v) const {
  return parts_ ? Communicator::world().max(v) : v;
}

template <class T>
double MicromagSystem<T>::sum_over_ranks(double v) const {
  return parts_ ? Communicator::world().sum(v) : v;
}

template <class T>
MicromagSystem<T>::~MicromagSystem() = default;

template <class T>
void MicromagSystem<T>::set_m(const std::array<std::vector<double>, 3>& v) {
  const std::int64_t cells = mesh_.cells();
  for (const auto& c : v)
    require(std::int64_t(c.size()) == cells, "micromag: magnetization of the wrong size");
  std::vector<std::uint8_t> reg = problem_.region;  // the whole mesh's, vacuum where Ms = 0
  for (std::uint8_t& r : reg)
    if (problem_.regions[r].ms <= 0) r = vacuum;
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
  if (!has_demag()) return;
  const demag::PaddedVector<T> in = demag_input();
  const Vec3Ptr<T> m = v.ptr();
  const CellIndex ix = v.index();
  const FieldView<const std::uint8_t> region = region_.cview();
  const MaterialParams<T>* mat = params_.data();
  for_each(device_, cells_, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t q = ix(i, j, k), p = in.at(i, j, k);
    const T ms = mat[region(i, j, k)].ms;
    for (int c = 0; c < 3; ++c) in.c[c][p] = ms * m.c[c][q];
  });
}

template <class T>
void MicromagSystem<T>::demag() {
  if (conv_) conv_->convolve();
  if (split_conv_) split_conv_->convolve();
}

// What a slope pass does with the slope it computes at a cell, in the same pass. Each gets
// the cell, its element q in every CellVectors, whether it has material, its Ms and the
// slope d (zero without material); `reduces` ones return a value maxed over the cells.

// Stores the slope.
template <class T>
struct StoreSlope {
  static constexpr bool reduces = false;
  Vec3Ptr<T> k;
  GRIDSOLVE_HD double operator()(int, int, int, std::int64_t q, bool, T, const T d[3]) const {
    for (int c = 0; c < 3; ++c) k.c[c][q] = d[c];
    return 0.0;
  }
};

// v normalized, written to `out` and (times Ms) to the demag input.
template <class T>
GRIDSOLVE_HD void put_unit(T v[3], std::int64_t q, const Vec3Ptr<T>& out,
                           const demag::PaddedVector<T>& in, bool has_demag, T ms, int i, int j,
                           int kk) {
  const T inv = inv_sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int c = 0; c < 3; ++c) {
    v[c] *= inv;
    out.c[c][q] = v[c];
  }
  if (has_demag) {
    const std::int64_t p = in.at(i, j, kk);
    for (int c = 0; c < 3; ++c) in.c[c][p] = ms * v[c];
  }
}

// Heun's predictor: stores the slope k at m and makes out = normalize(m + h k).
template <class T>
struct EulerPredictor {
  static constexpr bool reduces = false;
  Vec3Ptr<T> k, out;
  Vec3Ptr<const T> m;
  demag::PaddedVector<T> in;
  bool has_demag;
  T h;
  GRIDSOLVE_HD double operator()(int i, int j, int kk, std::int64_t q, bool magnetic, T ms,
                                 const T d[3]) const {
    for (int c = 0; c < 3; ++c) k.c[c][q] = d[c];
    if (!magnetic) return 0.0;
    T v[3];
    for (int c = 0; c < 3; ++c) v[c] = m.c[c][q] + h * d[c];
    put_unit(v, q, out, in, has_demag, ms, i, j, kk);
    return 0.0;
  }
};

// Heun's corrector, from the slope d at the predictor and k at m: out = normalize(m + h/2
// (k + d)); returns |d - k|^2 (0 unless `estimate`): the root and h/2 are taken once, of
// the largest. d is not stored.
template <class T>
struct HeunCorrector {
  static constexpr bool reduces = true;
  Vec3Ptr<const T> m, k;
  Vec3Ptr<T> out;
  demag::PaddedVector<T> in;
  bool has_demag, estimate;
  T half_h;
  GRIDSOLVE_HD double operator()(int i, int j, int kk, std::int64_t q, bool magnetic, T ms,
                                 const T d[3]) const {
    if (!magnetic) return 0.0;
    T v[3], e[3];
    for (int c = 0; c < 3; ++c) {
      const T k0 = k.c[c][q];
      v[c] = m.c[c][q] + half_h * (k0 + d[c]);
      e[c] = d[c] - k0;
    }
    put_unit(v, q, out, in, has_demag, ms, i, j, kk);
    return estimate ? double(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) : 0.0;
  }
};

// dm/dt (or the relax / descent direction) at every cell, handed to `emit`; the largest of
// emit's values when it reduces. Without the DMI, thermal and spin-torque terms (`Extras`
// false) their code is compiled out of the loop body: in double it otherwise costs
// registers, occupancy and about 10% of a film's Heun step, unused.
template <bool Extras, class T, class Emit>
double slope_cells(Device device, const Box& cells, const FieldKernel<T>& f, const CellIndex ix,
                   Slope kind, const Emit emit) {
  // The thermal field is zero outside LLG slopes (its draw has no step there).
  constexpr unsigned terms = Extras ? term_all | term_thermal : term_all & ~unsigned(term_dmi);
  const T g = T(gamma_ll);
  const auto body = [=] GRIDSOLVE_HD(int i, int j, int kk) -> double {
    const std::int64_t q = ix(i, j, kk);
    const int r = f.region(i, j, kk);
    const MaterialParams<T>& p = f.mat[r];
    // A cell without material (Ms = 0) gets a zero slope, chosen at the end: the field is
    // evaluated there too (and thrown away) so that no branch on the material keeps the
    // loads of m, its neighbours and the demag field from being issued together. Nearly
    // every cell of a mesh is magnetic, and the kernel is bound by those loads' latency.
    const CellState<T> cell = f.cell(i, j, kk, r);
    T bf[3] = {0, 0, 0};
    f.terms.template add<terms>(cell, bf);
    const T ms = p.ms;
    T d[3] = {0, 0, 0};
    if (ms != T(0)) {
      const T* mi = cell.m;
      T mxb[3], mxmxb[3];
      cross(mi, bf, mxb);
      cross(mi, mxb, mxmxb);
      if (kind == Slope::llg) {
        // (1 + a^2) dm/dt = -gamma (m x B + a m x (m x B))
        const T pre = -g * p.inv_1_alpha2;
        for (int c = 0; c < 3; ++c) d[c] = pre * (mxb[c] + p.alpha * mxmxb[c]);
        if constexpr (Extras) {
          f.zhang_li.add(cell, d);
          f.slonczewski.add(cell, d);
        }
      } else if (kind == Slope::damping) {
        // The damping term alone at its fastest (alpha = 1).
        for (int c = 0; c < 3; ++c) d[c] = -g / T(2) * mxmxb[c];
      } else {
        for (int c = 0; c < 3; ++c) d[c] = mxmxb[c];
      }
    }
    return emit(i, j, kk, q, ms != T(0), ms, d);
  };
  if constexpr (Emit::reduces) {
    return reduce<double>(device, cells, body, MaxOp{}, 0.0);
  } else {
    for_each(device, cells, [=] GRIDSOLVE_HD(int i, int j, int kk) { body(i, j, kk); });
    return 0.0;
  }
}

template <class T>
template <class Emit>
double MicromagSystem<T>::slope_pass(CellVectors<T>& v, std::array<double, 3> b, Slope kind,
                                     const Emit& emit) {
  const demag::PaddedVector<T> hd = demag_output();
  // The thermal field enters LLG slopes only (relax and minimize follow the deterministic
  // field).
  const bool llg = kind == Slope::llg;
  const FieldKernel<T> f = make_kernel(
      v, sides_, region_, params_, mesh_, has_demag() ? &hd : nullptr, b,
      llg ? thermal_ : ThermalDraw{}, llg ? problem_.current : std::array<double, 3>{0, 0, 0});
  // every CellVectors of the mesh has the same layout
  const double r = has_extra_terms_ ? slope_cells<true>(device_, cells_, f, v.index(), kind, emit)
                                    : slope_cells<false>(device_, cells_, f, v.index(), kind, emit);
  return Emit::reduces ? max_over_ranks(r) : r;
}

template <class T>
void MicromagSystem<T>::slope(CellVectors<T>& v, CellVectors<T>& k, std::array<double, 3> b,
                              Slope kind) {
  slope_pass(v, b, kind, StoreSlope<T>{k.ptr()});
}

template <class T>
void MicromagSystem<T>::heun_predict(CellVectors<T>& k, std::array<double, 3> b, Slope kind,
                                     double h, CellVectors<T>& out) {
  const Vec3Ptr<T> a = m_.ptr();
  slope_pass(m_, b, kind,
             EulerPredictor<T>{
                 k.ptr(), out.ptr(), {{a.c[0], a.c[1], a.c[2]}}, demag_input(), has_demag(), T(h)});
}

template <class T>
double MicromagSystem<T>::heun_correct(CellVectors<T>& v, const CellVectors<T>& k,
                                       std::array<double, 3> b, Slope kind, double h,
                                       CellVectors<T>& out, bool estimate) {
  const Vec3Ptr<T> a = m_.ptr(), s = k.ptr();
  return 0.5 * h *
         std::sqrt(slope_pass(v, b, kind,
                              HeunCorrector<T>{{{a.c[0], a.c[1], a.c[2]}},
                                               {{s.c[0], s.c[1], s.c[2]}},
                                               out.ptr(),
                                               demag_input(),
                                               has_demag(),
                                               estimate,
                                               T(0.5 * h)}));
}

template <class T>
double MicromagSystem<T>::combine(const CellVectors<T>& m0, double h, const StageSum<T>& sum,
                                  CellVectors<T>& out, const StageSum<T>& err) {
  const Vec3Ptr<T> a = m0.ptr(), o = out.ptr();
  const CellIndex ix = m0.index();
  const FieldView<const std::uint8_t> region = region_.cview();
  const MaterialParams<T>* mat = params_.data();
  const bool has_demag = this->has_demag();
  const demag::PaddedVector<T> in = demag_input();
  const T ht = T(h);
  const StageSum<T> s = sum, e = err;
  const Box cells = cells_;
  if (e.count == 0) {
    // No error estimate wanted: a plain loop (a reduction launches fewer, longer threads).
    for_each(device_, cells, [=] GRIDSOLVE_HD(int i, int j, int k) {
      const std::int64_t q = ix(i, j, k);
      const T ms = mat[region(i, j, k)].ms;
      if (ms == T(0)) return;
      T v[3] = {a.c[0][q], a.c[1][q], a.c[2][q]};
      for (int t = 0; t < s.count; ++t)
        for (int c = 0; c < 3; ++c) v[c] += ht * s.w[t] * s.k[t][c][q];
      put_unit(v, q, o, in, has_demag, ms, i, j, k);
    });
    return 0.0;
  }
  return max_over_ranks(reduce<double>(
      device_, cells,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = ix(i, j, k);
        const T ms = mat[region(i, j, k)].ms;
        if (ms == T(0)) return 0.0;
        T v[3] = {a.c[0][q], a.c[1][q], a.c[2][q]};
        for (int t = 0; t < s.count; ++t)
          for (int c = 0; c < 3; ++c) v[c] += ht * s.w[t] * s.k[t][c][q];
        put_unit(v, q, o, in, has_demag, ms, i, j, k);
        T d[3] = {0, 0, 0};
        for (int t = 0; t < e.count; ++t)
          for (int c = 0; c < 3; ++c) d[c] += e.w[t] * e.k[t][c][q];
        return double(ht) * sqrt(double(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      },
      MaxOp{}, 0.0));
}

template <class T>
double MicromagSystem<T>::max_norm(double h, const StageSum<T>& sum) {
  const StageSum<T> s = sum;
  const double hh = h;
  const CellIndex ix = m_.index();
  // Over the cells only: the ghosts between rows may hold copies of cells.
  return max_over_ranks(reduce<double>(
      device_, cells_,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = ix(i, j, k);
        T d[3] = {0, 0, 0};
        for (int t = 0; t < s.count; ++t)
          for (int c = 0; c < 3; ++c) d[c] += s.w[t] * s.k[t][c][q];
        return hh * sqrt(double(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      },
      MaxOp{}, 0.0));
}

template <class T>
double MicromagSystem<T>::dot(const StageSum<T>& a, const StageSum<T>& b) {
  const StageSum<T> x = a, y = b;
  const CellIndex ix = m_.index();
  return sum_over_ranks(reduce<double>(
      device_, cells_,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const std::int64_t q = ix(i, j, k);
        double u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int t = 0; t < x.count; ++t)
          for (int c = 0; c < 3; ++c) u[c] += double(x.w[t] * x.k[t][c][q]);
        for (int t = 0; t < y.count; ++t)
          for (int c = 0; c < 3; ++c) v[c] += double(y.w[t] * y.k[t][c][q]);
        return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
      },
      SumOp{}, 0.0));
}

// The summed energy density (J/m^3) of the chosen terms over the magnetic cells.
template <class T>
static double energy_sum(Device d, const Box& box, const FieldKernel<T>& f, unsigned which) {
  return reduce<double>(
      d, box,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const int r = f.region(i, j, k);
        if (f.mat[r].ms == T(0)) return 0.0;
        return f.terms.energy_density(f.cell(i, j, k, r), which);
      },
      SumOp{}, 0.0);
}

template <class T>
Energies MicromagSystem<T>::energies(std::array<double, 3> b) {
  load_demag_input(m_);
  demag();
  const demag::PaddedVector<T> hd = demag_output();
  const FieldKernel<T> f = make_kernel(m_, sides_, region_, params_, mesh_, has_demag() ? &hd : nullptr, b);
  const Box box = cells_;
  const double vol = mesh_.cell_volume();
  Energies e;
  e.exchange = vol * sum_over_ranks(energy_sum(device_, box, f, term_exchange));
  e.zeeman = vol * sum_over_ranks(energy_sum(device_, box, f, term_zeeman));
  e.demag = has_demag() ? vol * sum_over_ranks(energy_sum(device_, box, f, term_demag)) : 0.0;
  e.anisotropy = vol * sum_over_ranks(energy_sum(device_, box, f, term_anisotropy));
  e.dmi = vol * sum_over_ranks(energy_sum(device_, box, f, term_dmi));
  return e;
}

template <class T>
std::array<double, 3> MicromagSystem<T>::average_m() {
  std::array<double, 3> avg{};
  const CellIndex ix = m_.index();
  for (int c = 0; c < 3; ++c) {
    const T* v = m_.comp(c);
    avg[c] = sum_over_ranks(reduce<double>(
                 device_, cells_,
                 [=] GRIDSOLVE_HD(int i, int j, int k) -> double { return double(v[ix(i, j, k)]); },
                 SumOp{}, 0.0)) /
             double(magnetic_cells_);
  }
  return avg;
}

template <class T>
double MicromagSystem<T>::max_torque(std::array<double, 3> b) {
  load_demag_input(m_);
  demag();
  const demag::PaddedVector<T> hd = demag_output();
  const FieldKernel<T> f = make_kernel(m_, sides_, region_, params_, mesh_, has_demag() ? &hd : nullptr, b);
  return max_over_ranks(reduce<double>(
      device_, cells_,
      [=] GRIDSOLVE_HD(int i, int j, int k) -> double {
        const int r = f.region(i, j, k);
        if (f.mat[r].ms == T(0)) return 0.0;
        const CellState<T> cell = f.cell(i, j, k, r);
        T bf[3] = {0, 0, 0};
        f.terms.template add<term_all>(cell, bf);
        T t[3];
        cross(cell.m, bf, t);
        return sqrt(double(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]));
      },
      MaxOp{}, 0.0));
}

template <class T>
void MicromagSystem<T>::effective_field(std::array<double, 3> b, unsigned terms,
                                        CellVectors<T>& out) {
  load_demag_input(m_);
  demag();
  const demag::PaddedVector<T> hd = demag_output();
  const FieldKernel<T> f = make_kernel(m_, sides_, region_, params_, mesh_, has_demag() ? &hd : nullptr, b);
  const Vec3Ptr<T> o = out.ptr();
  const CellIndex ix = out.index();
  for_each(device_, cells_, [=] GRIDSOLVE_HD(int i, int j, int k) {
    const std::int64_t q = ix(i, j, k);
    T bf[3] = {0, 0, 0};
    const int r = f.region(i, j, k);
    if (f.mat[r].ms != T(0)) f.terms.add(f.cell(i, j, k, r), terms, bf);
    for (int c = 0; c < 3; ++c) o.c[c][q] = bf[c];
  });
}

template class MicromagSystem<float>;
template class MicromagSystem<double>;

}  // namespace gridsolve::micromag
