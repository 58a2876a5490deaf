// PNG figures of a flow run through gnuplot: vorticity with streamlines, centrelines
// against Ghia's points, force coefficients over time.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <cmath>

#include "gridsolve/apps/flow/flow_files.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/gnuplot.hpp"

namespace gridsolve::flow {

namespace {

constexpr const char* terminal =
    "set terminal pngcairo size {},{} enhanced font 'DejaVu Sans,12'\n";

// Nodes (x, y, vorticity, psi), subsampled to at most ~400 per axis.
std::string node_data(const FlowSnapshot& snap, double* wlim) {
  const MacGrid& g = snap.grid();
  const int nx = g.cells()[0], ny = g.cells()[1];
  const std::vector<double> w = snap.vorticity(), psi = snap.stream_function();
  const int sx = std::max(1, (nx + 399) / 400), sy = std::max(1, (ny + 399) / 400);
  std::vector<double> mags;
  std::string out;
  for (int j = 0; j <= ny; j += sy) {
    for (int i = 0; i <= nx; i += sx) {
      const double wv = w[std::size_t(i + (nx + 1) * j)];
      mags.push_back(std::abs(wv));
      out += fmt::format("{:.6g} {:.6g} {:.6g} {:.8g}\n", g.xf(0, i), g.xf(1, j), wv,
                         psi[std::size_t(i + (nx + 1) * j)]);
    }
    out += "\n";
  }
  std::sort(mags.begin(), mags.end());
  *wlim = mags.empty() ? 1 : std::max(1e-12, mags[std::size_t(0.95 * double(mags.size() - 1))]);
  return out;
}

}  // namespace

std::string write_plots(const std::string& dir, const FlowSnapshot& snap, FlowResult& r) {
  if (find_gnuplot().empty()) return "gnuplot not found";
  const FlowCase& c = r.flow_case;
  if (c.dims != 2) return "";
  const std::string pdir = dir + "/plots";
  create_output_directory(pdir);
  double wlim = 1;
  write_file_atomically(pdir + "/nodes.dat", node_data(snap, &wlim));
  const double aspect = (c.hi[1] - c.lo[1]) / (c.hi[0] - c.lo[0]);
  const int width = 1100, height = std::clamp(int(1000 * aspect) + 120, 300, 1100);
  std::string script =
      fmt::format(terminal, width, height) +
      fmt::format(R"GP(
set table 'psi_lines.dat'
unset surface
set contour base
set cntrparam levels 24
set view map
splot 'nodes.dat' using 1:2:4 with lines notitle
unset table
unset contour
set surface
set output '../vorticity.png.tmp'
set title "{title}: vorticity with streamlines (contours of the stream function)"
set xlabel 'x'
set ylabel 'y'
set size ratio -1
set xrange [{x0}:{x1}]
set yrange [{y0}:{y1}]
set cbrange [-{w}:{w}]
set palette defined (0 '#2c7bb6', 0.5 '#ffffff', 1 '#d7191c')
set cblabel 'vorticity'
plot 'nodes.dat' using 1:2:3 with image notitle, 'psi_lines.dat' using 1:2 with lines lc rgb '#202020' lw 0.8 notitle
unset output
)GP",
                  fmt::arg("title", c.name), fmt::arg("x0", c.lo[0]), fmt::arg("x1", c.hi[0]),
                  fmt::arg("y0", c.lo[1]), fmt::arg("y1", c.hi[1]), fmt::arg("w", wlim));
  std::vector<std::string> pngs = {"vorticity.png"};
  if (!r.ghia.empty()) {
    std::string ug, vg;
    for (const auto& p : r.ghia)
      (p.kind == 'u' ? ug : vg) += fmt::format("{},{}\n", p.coord, p.reference);
    write_file_atomically(pdir + "/ghia_u.dat", ug);
    write_file_atomically(pdir + "/ghia_v.dat", vg);
    script += fmt::format(terminal, 1300, 600) + fmt::format(R"GP(
set output '../centrelines.png.tmp'
set size noratio
set autoscale
unset cbrange
set datafile separator ','
set multiplot layout 1,2 title "{title}: centreline velocities against Ghia, Ghia and Shin (1982)"
set title 'u(y) on x = 0.5'
set xlabel 'u'
set ylabel 'y'
set key bottom right
plot '../centreline_u.csv' every ::1 using 2:1 with lines lw 2 title 'gridsolve', 'ghia_u.dat' using 2:1 with points pt 7 title 'Ghia et al.'
set title 'v(x) on y = 0.5'
set xlabel 'x'
set ylabel 'v'
set key top right
plot '../centreline_v.csv' every ::1 using 1:2 with lines lw 2 title 'gridsolve', 'ghia_v.dat' using 1:2 with points pt 7 title 'Ghia et al.'
unset multiplot
unset output
set datafile separator whitespace
)GP",
                                                             fmt::arg("title", c.name));
    pngs.push_back("centrelines.png");
  }
  if (r.forces.size() > 1) {
    script += fmt::format(terminal, 1100, 700) + fmt::format(R"GP(
set output '../forces.png.tmp'
set size noratio
set autoscale
unset cbrange
set datafile separator ','
set multiplot layout 2,1 title "{title}: force coefficients over time"
set title ''
set xlabel 't'
set ylabel 'c_D'
plot '../forces.csv' every ::1 using 1:2 with lines lw 1.5 notitle
set ylabel 'c_L'
plot '../forces.csv' every ::1 using 1:3 with lines lw 1.5 notitle
unset multiplot
unset output
)GP",
                                                             fmt::arg("title", c.name));
    pngs.push_back("forces.png");
  }
  write_file_atomically(pdir + "/flow.gp", script);
  const std::string problem = run_gnuplot(pdir, "flow.gp");
  if (!problem.empty()) return problem;
  for (const std::string& p : pngs) {
    const std::string tmp = dir + "/" + p + ".tmp";
    try {
      publish_file(tmp, dir + "/" + p);  // a symbolic link kept, the file it names replaced
    } catch (const Error& e) {
      return fmt::format("could not move {} into place: {}", tmp, e.what());
    }
    r.files.push_back(dir + "/" + p);
  }
  return "";
}

}  // namespace gridsolve::flow
