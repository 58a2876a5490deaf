// Obstacles on the MAC grid: where the shapes' surface lies (nearest point, where a grid
// line crosses it) and, per velocity component, which faces a body fixes and how strongly
// the free faces beside it feel its wall: the immersed boundary's geometry, built once.
#pragma once
#include <cstdint>
#include <vector>

#include "gridsolve/apps/flow/flow_case.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/problem/mac_grid.hpp"

namespace gridsolve::flow {

struct SurfacePoint {
  double x = 0, y = 0;      // the nearest point on an obstacle's surface
  double nx = 1, ny = 0;    // the outward unit normal there (into the fluid)
  double distance = 1e300;  // signed: positive outside the obstacle
};

bool inside_any(const std::vector<Obstacle>& obstacles, double x, double y);
// The surface point nearest to (x, y) over all obstacles (the deepest one when inside).
SurfacePoint nearest_surface(const std::vector<Obstacle>& obstacles, double x, double y);

// Throws unless every obstacle holds at least one point its treatment fixes (a velocity
// face's position for the immersed boundary, a cell centre for the staircase): a body
// smaller than the cells would otherwise be silently left out of the flow.
void require_resolved(const std::vector<Obstacle>& obstacles, const MacGrid& grid,
                      ObstacleTreatment treatment);

// Velocity component `comp`'s faces against the obstacles (host fields, one ghost layer):
// `fixed` is 1 on faces a body holds at zero; `wall` on every free face is the sum, over its
// links to fixed faces, of (face area of the staggered volume) / (distance to the wall
// along that link). The momentum equation's wall term is nu * wall * u_P and the wall's
// pull on the body the same with the opposite sign.
//  - immersed: fixed = the face's own position lies inside a shape; the distance is where
//    the grid line crosses the surface (Shortley-Weller: the wall at its true place);
//  - staircase: fixed = a cell beside the face has its centre inside; the wall lies on
//    those cells' faces.
// `open` is the fraction of each face that lies in the fluid (1 away from bodies, and
// everywhere for the staircase): the continuity equation counts only the open part of a
// face cut by the surface, so that a cell cut by a body conserves the fluid's mass in its
// fluid part (cut cells for the mass balance).
struct BodyFaces {
  Field<std::uint8_t> fixed;
  Field<double> wall;
  Field<double> open;
};
BodyFaces body_faces(const FlowCase& c, const MacGrid& grid, int comp);

}  // namespace gridsolve::flow
