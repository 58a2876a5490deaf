// Slonczewski spin-transfer torque of a current J_z flowing perpendicular to the layers
// (a free layer on a fixed layer magnetized along p): in the form mumax3 and OOMMF use,
//   dm/dt += gamma / (1 + alpha^2) [(A - alpha B) m x (p x m) + (B - alpha A) p x m],
//   A = beta eps, B = beta eps', beta = hbar J_z / (e d Ms) (T),
//   eps = Pol Lambda^2 / ((Lambda^2 + 1) + (Lambda^2 - 1) m . p),
// d the free layer's thickness, Lambda the asymmetry and eps' the secondary (field-like)
// term. J_z > 0 with Pol > 0 pulls m towards p. It acts cell by cell (no neighbours) on
// LLG slopes only, as the Zhang-Li torque.
#pragma once
#include "gridsolve/apps/micromag/field_term.hpp"

namespace gridsolve::micromag {

template <class T>
struct SlonczewskiTorque {
  T jz;             // the current through the layers, A/m^2
  T gamma;          // rad / (T s)
  double hbar_j_e;  // hbar J_z / e, in T A: over d Ms (A) it is beta in tesla

  static SlonczewskiTorque make(const TermInputs<T>& in) {
    return {T(in.current[2]), T(gamma_ll), reduced_planck * in.current[2] / elementary_charge};
  }

  // Adds the torque to dm/dt at the cell.
  GRIDSOLVE_HD void add(const CellState<T>& c, T dmdt[3]) const {
    const MaterialParams<T>& q = c.p;
    if (jz == T(0) || q.flt == T(0) || q.ms == T(0) || q.pol == T(0)) return;
    const T* m = c.m;
    const T* p = q.fixed;
    const T beta = T(hbar_j_e / (double(q.flt) * double(q.ms)));
    const T l2 = q.lambda * q.lambda;
    const T mp = m[0] * p[0] + m[1] * p[1] + m[2] * p[2];
    const T eps = q.pol * l2 / ((l2 + T(1)) + (l2 - T(1)) * mp);
    const T a = beta * eps, b = beta * q.eps_prime;
    const T gilbert = gamma / (T(1) + q.alpha * q.alpha);
    const T f_mpm = gilbert * (a - q.alpha * b), f_pm = gilbert * (b - q.alpha * a);
    const T pxm[3] = {p[1] * m[2] - p[2] * m[1], p[2] * m[0] - p[0] * m[2],
                      p[0] * m[1] - p[1] * m[0]};
    const T mxpxm[3] = {m[1] * pxm[2] - m[2] * pxm[1], m[2] * pxm[0] - m[0] * pxm[2],
                        m[0] * pxm[1] - m[1] * pxm[0]};
    for (int k = 0; k < 3; ++k) dmdt[k] += f_mpm * mxpxm[k] + f_pm * pxm[k];
  }
};

}  // namespace gridsolve::micromag
