// The design's pictures, drawn by gnuplot from generated scripts and data (kept in
// DIR/plots/ so they can be edited and re-run): Phi contours over the mirrored section,
// dPhi along body and cap, the wire layout, the on-axis deviation in ppm.
#pragma once
#include <string>
#include <vector>

#include "gridsolve/apps/magnet/magnet_run.hpp"

namespace gridsolve::magnet {

struct PlotOutcome {
  std::vector<std::string> written;  // PNG names in DIR
  std::string problem;               // empty when every plot was drawn
};

// Never throws for a missing or failing gnuplot: the outcome says what happened.
PlotOutcome write_magnet_plots(const std::string& dir, const MagnetResult& r);

}  // namespace gridsolve::magnet
