// The effective field as the sum of its terms, one file each, composed at compile time into
// the one fused loop body that evaluates them all per cell (no pass per term). A new term
// (DMI, thermal, spin torque) is a new file in the shape of field_term.hpp and a line in
// EffectiveField below.
#pragma once
#include "gridsolve/apps/micromag/bulk_dmi.hpp"
#include "gridsolve/apps/micromag/cubic_anisotropy.hpp"
#include "gridsolve/apps/micromag/demag_field.hpp"
#include "gridsolve/apps/micromag/exchange_field.hpp"
#include "gridsolve/apps/micromag/field_term.hpp"
#include "gridsolve/apps/micromag/interfacial_dmi.hpp"
#include "gridsolve/apps/micromag/thermal_field.hpp"
#include "gridsolve/apps/micromag/uniaxial_anisotropy.hpp"
#include "gridsolve/apps/micromag/slonczewski_torque.hpp"
#include "gridsolve/apps/micromag/zhang_li_torque.hpp"
#include "gridsolve/apps/micromag/zeeman_field.hpp"

namespace gridsolve::micromag {

// The terms in the order their fields are added.
template <class T, class... Terms>
struct TermSum {
  static TermSum make(const TermInputs<T>&) { return {}; }
  GRIDSOLVE_HD void add(const CellState<T>&, unsigned, T*) const {}
  template <unsigned Mask>
  GRIDSOLVE_HD void add(const CellState<T>&, T*) const {}
  GRIDSOLVE_HD double energy_density(const CellState<T>&, unsigned) const { return 0.0; }
};

template <class T, class First, class... Rest>
struct TermSum<T, First, Rest...> {
  First first;
  TermSum<T, Rest...> rest;

  static TermSum make(const TermInputs<T>& in) {
    return {First::make(in), TermSum<T, Rest...>::make(in)};
  }
  // Adds the B of the terms selected by `terms` (Term flags).
  GRIDSOLVE_HD void add(const CellState<T>& c, unsigned terms, T b[3]) const {
    if (terms & First::bit) first.add(c, b);
    rest.add(c, terms, b);
  }
  // The same for a set known at compile time: the other terms are not compiled into the
  // loop body at all. A term left in place behind a runtime flag still costs the body its
  // registers (the thermal field's normals alone bring a stack frame for their sines).
  template <unsigned Mask>
  GRIDSOLVE_HD void add(const CellState<T>& c, T b[3]) const {
    if constexpr ((Mask & First::bit) != 0) first.add(c, b);
    rest.template add<Mask>(c, b);
  }
  // The summed energy density of the selected terms.
  GRIDSOLVE_HD double energy_density(const CellState<T>& c, unsigned terms) const {
    const double e = (terms & First::bit) ? first.energy_density(c) : 0.0;
    return e + rest.energy_density(c, terms);
  }
};

// The registry of terms. The demag field comes first: its loads (the convolution's output,
// from memory) are then issued before the other terms' arithmetic and branches.
template <class T>
using EffectiveField = TermSum<T,                      //
                               DemagField<T>,          //
                               ExchangeField<T>,       //
                               InterfacialDmi<T>,      //
                               BulkDmi<T>,             //
                               UniaxialAnisotropy<T>,  //
                               CubicAnisotropy<T>,     //
                               ZeemanField<T>,         //
                               ThermalField<T>>;

// Everything a loop body needs to evaluate B_eff at a cell; passed by value.
template <class T>
struct FieldKernel {
  FieldView<const T> m;
  FieldView<const std::uint8_t> region;
  const MaterialParams<T>* mat;
  EffectiveField<T> terms;
  // The spin-transfer torques: not fields, LLG slopes add them to dm/dt.
  ZhangLiTorque<T> zhang_li;
  SlonczewskiTorque<T> slonczewski;

  static FieldKernel make(const TermInputs<T>& in) {
    return {in.m,
            in.region,
            in.mat,
            EffectiveField<T>::make(in),
            ZhangLiTorque<T>::make(in),
            SlonczewskiTorque<T>::make(in)};
  }
  // The state of cell (i, j, k) of region r.
  GRIDSOLVE_HD CellState<T> cell(int i, int j, int k, int r) const {
    const std::int64_t q = m.index(i, j, k);
    return {i,
            j,
            k,
            q,
            region.index(i, j, k),
            {m.data[q], m.data[q + m.component], m.data[q + 2 * m.component]},
            r,
            mat[r]};
  }
};

}  // namespace gridsolve::micromag
