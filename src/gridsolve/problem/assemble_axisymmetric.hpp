// Axisymmetric (r, z) assembly: -(1/r) d/dr(r k du/dr) - d/dz(k du/dz) = f, as r-weighted
// vertex-centred finite volumes (x = r, y = z), symmetric so that CG and multigrid apply.
#pragma once
#include <functional>

#include "gridsolve/problem/assemble.hpp"

namespace gridsolve {

// du/dn on a face cut by a mask (a hole's surface), n the outward normal of the domain,
// which points along `axis` (0 = r, 1 = z) with `sign` (+1 or -1); (r, z) is the
// midpoint of the face piece. Empty: every cut face is insulated (du/dn = 0).
using CutFlux = std::function<double(double r, double z, int axis, int sign)>;

// Each node's row is its dual cell's balance multiplied by the r-weighted cell volume
// (per radian): a_E = k r_{i+1/2} A_z / dr with A_z the cell's height, a_N = k
// (integral of r over the cell's width) / dz, and so on. Faces on the axis (r = 0) carry
// no flux, which is the axis condition: the axis row tends to 2 u_rr + u_zz = -f.
// Neumann / Robin sides and cut faces enter b weighted by r. dr and dz may differ.
// Needs a 2D grid with r >= 0 (grid.geometry should say axisymmetric; it is not
// checked, so Cartesian specs can be assembled in this form too).
// With a part, only that rank's part is assembled, on its device: its box and ghost rows,
// exactly the values operator_part cuts from the whole operator, without the whole ever
// being held; unknowns counts every rank's (each rank of the run calls it).
template <class T>
Discretization<T> assemble_axisymmetric(const ProblemSpec& spec, Device device,
                                        const CutFlux& cut_flux = {}, const RankPart& part = {});

}  // namespace gridsolve
