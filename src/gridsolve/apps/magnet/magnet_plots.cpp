#include "gridsolve/apps/magnet/magnet_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/gnuplot.hpp"

namespace gridsolve::magnet {

namespace {

constexpr const char* terminal =
    "set terminal pngcairo size {},{} enhanced font 'DejaVu Sans,13' linewidth 1.5\n";

// Phi over the full section: mirrored in r (even) and z (odd), at most ~300 points per
// half axis so the picture stays quick to draw.
std::string section_data(const MagnetResult& r) {
  const Grid& g = r.field.grid;
  const int stride_r = std::max(1, (g.n[0] + 299) / 300),
            stride_z = std::max(1, (g.n[1] + 299) / 300);
  std::vector<int> is, js;
  for (int i = 0; i < g.n[0]; i += stride_r) is.push_back(i);
  if (is.back() != g.n[0] - 1) is.push_back(g.n[0] - 1);
  for (int j = 0; j < g.n[1]; j += stride_z) js.push_back(j);
  if (js.back() != g.n[1] - 1) js.push_back(g.n[1] - 1);
  std::string out;
  auto row = [&](int j, double zsign) {
    for (auto it = is.rbegin(); it != is.rend(); ++it)
      if (*it > 0)
        out += fmt::format("{:.6g} {:.6g} {:.8g}\n", -g.coord(0, *it), zsign * g.coord(1, j),
                           zsign * r.field.at(*it, j));
    for (int i : is)
      out += fmt::format("{:.6g} {:.6g} {:.8g}\n", g.coord(0, i), zsign * g.coord(1, j),
                         zsign * r.field.at(i, j));
    out += "\n";
  };
  for (auto it = js.rbegin(); it != js.rend(); ++it)
    if (*it > 0) row(*it, -1.0);
  for (int j : js) row(j, 1.0);
  return out;
}

std::string outline_data(const MagnetDesign& d) {
  return fmt::format("{0} {1}\n{2} {1}\n{2} {3}\n{0} {3}\n{0} {1}\n", -d.r0, -d.z0, d.r0, d.z0);
}

std::string contour_script(const MagnetResult& r) {
  const MagnetDesign& d = r.design;
  double peak = 0;
  for (double v : r.field.phi) peak = std::max(peak, std::abs(v));
  const double step = peak / 20;
  return fmt::format(terminal, 1100, 1000) +
         fmt::format(R"(
set table 'phi_contour_lines.dat'
unset surface
set contour base
set cntrparam levels incremental {lo:.8g}, {step:.8g}, {hi:.8g}
set view map
splot 'phi_section.dat' using 1:2:3 with lines notitle
unset table
unset contour
set surface
set output '../phi_contours.png.tmp'
set title "Scalar potential {{/Symbol F}} (A) over the (r, z) section\n{{/=11 contours every {step:.4g} A; magnet r_0 = {r0} m, z_0 = {z0} m, B = {B} mT; superconducting box r_1 = {r1} m, z_1 = {z1} m}}"
set xlabel 'r (m)'
set ylabel 'z (m)'
set cblabel '{{/Symbol F}} (A)'
set size ratio -1
set xrange [{mr1}:{r1}]
set yrange [{mz1}:{z1}]
set cbrange [{lo:.8g}:{hi:.8g}]
set palette defined (0 '#2166ac', 0.5 '#f7f7f7', 1 '#b2182b')
set key top right opaque box
plot 'phi_section.dat' using 1:2:3 with image notitle, \
     'phi_contour_lines.dat' using 1:2 with lines lc rgb '#202020' lw 0.5 notitle, \
     'magnet_outline.dat' using 1:2 with lines lc rgb 'black' lw 3 title 'magnet surface (current sheet)'
)",
                     fmt::arg("lo", -peak), fmt::arg("hi", peak), fmt::arg("step", step),
                     fmt::arg("r0", d.r0), fmt::arg("z0", d.z0), fmt::arg("B", d.B * 1e3),
                     fmt::arg("r1", d.r1), fmt::arg("z1", d.z1), fmt::arg("mr1", -d.r1),
                     fmt::arg("mz1", -d.z1));
}

std::string dphi_script(const MagnetResult& r) {
  const MagnetDesign& d = r.design;
  return fmt::format(terminal, 1400, 650) + fmt::format(R"(
set output '../dphi_surface.png.tmp'
set datafile separator ','
set multiplot layout 1,2 title "Jump d{{/Symbol F}} = {{/Symbol F}}_{{out}} - {{/Symbol F}}_{{in}} on the magnet's surface (the surface current's stream function)\n{{/=11 total current on the upper half I = {I:.1f} A; dots: the {N} wire levels (k - 1/2) I / N}}"
set grid
set key top left
set xlabel 'z (m)'
set ylabel 'd{{/Symbol F}} (A)'
set title 'Body r = r_0 = {r0} m, from the midplane to the cap'
set xrange [0:{z0}]
plot '../dphi_body.csv' using 1:2 every ::1 with lines lw 2 lc rgb '#1f77b4' title 'd{{/Symbol F}}(r_0, z)', \
     '../wires.csv' using ($5 > 0 && strcol(3) eq 'body' ? $5 : 1/0):7 every ::1 with points pt 7 ps 1.2 lc rgb '#d62728' title 'wires'
set xlabel 'r (m)'
set title 'Cap z = z_0 = {z0} m, from the axis to the rim'
set key bottom left
set xrange [0:{r0}]
plot '../dphi_cap.csv' using 1:2 every ::1 with lines lw 2 lc rgb '#2ca02c' title 'd{{/Symbol F}}(r, z_0)', \
     '../wires.csv' using ($5 > 0 && strcol(3) eq 'cap' ? $4 : 1/0):7 every ::1 with points pt 7 ps 1.2 lc rgb '#d62728' title 'wires'
unset multiplot
)",
                                                        fmt::arg("I", r.jump.total_current),
                                                        fmt::arg("N", d.wires),
                                                        fmt::arg("r0", d.r0), fmt::arg("z0", d.z0));
}

std::string wire_script(const MagnetResult& r) {
  const MagnetDesign& d = r.design;
  const double margin = 0.15 * std::max(d.r0, d.z0);
  const double w = 2 * (d.r0 + margin), h = 2 * (d.z0 + margin);
  const int px = 900, py = std::clamp(int(px * h / w) + 120, 500, 1400);
  return fmt::format(terminal, px, py) +
         fmt::format(R"(
set output '../wire_layout.png.tmp'
set datafile separator ','
set title "Wire layout: {N2} loops ({N} per half), {Iw:.2f} A each\n{{/=11 section through the axis; each loop crosses it at (+r, z) and (-r, z)}}"
set xlabel 'r (m)'
set ylabel 'z (m)'
set size ratio -1
set grid
set xrange [{xl}:{xh}]
set yrange [{yl}:{yh}]
set bmargin 7
set key at screen 0.5, screen 0.025 center bottom horizontal
plot 'magnet_outline.dat' using 1:2 with lines lc rgb '#7f7f7f' lw 2 title 'magnet surface', \
     '../wires.csv' using 4:5 every ::1 with points pt 7 ps 1.6 lc rgb '#d62728' title 'wire', \
     '../wires.csv' using (-$4):5 every ::1 with points pt 7 ps 1.6 lc rgb '#d62728' notitle, \
     '+' using (0):(0) with points pt 2 ps 2 lc rgb 'black' title 'centre'
)",
                     fmt::arg("N2", 2 * d.wires), fmt::arg("N", d.wires),
                     fmt::arg("Iw", r.quality.wire_current), fmt::arg("xl", -d.r0 - margin),
                     fmt::arg("xh", d.r0 + margin), fmt::arg("yl", -d.z0 - margin),
                     fmt::arg("yh", d.z0 + margin));
}

std::string ppm_data(const MagnetResult& r) {
  std::string out;
  for (const AxisSample& s : r.axis_central)
    out += fmt::format("{:.8g} {:.8g}\n", s.z * 100, s.ppm);
  return out;
}

std::string ppm_script(const MagnetResult& r) {
  const MagnetDesign& d = r.design;
  return fmt::format(terminal, 1100, 700) +
         fmt::format(R"(
set output '../axis_ppm.png.tmp'
set title "On-axis field of the {N2} wire loops: deviation from B(0) = {b0:.5f} mT\n{{/=11 peak to peak over the central {span:.0f} cm: {ppm:.1f} ppm; over a sphere of radius {rs:.0f} cm: {sppm:.1f} ppm}}"
set xlabel 'z (cm)'
set ylabel '(B_z(z) - B(0)) / B(0)  (ppm)'
set grid
set key top center
plot 'axis_ppm.dat' using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'B_z on the axis (Biot-Savart)', \
     0 with lines lc rgb 'black' dt 2 notitle
)",
                     fmt::arg("N2", 2 * d.wires), fmt::arg("b0", r.quality.b0 * 1e3),
                     fmt::arg("span", d.axis_span * 100), fmt::arg("ppm", r.quality.axis_ppm),
                     fmt::arg("rs", d.sphere_radius * 100), fmt::arg("sppm", r.quality.sphere_ppm));
}

}  // namespace

PlotOutcome write_magnet_plots(const std::string& dir, const MagnetResult& r) {
  PlotOutcome out;
  const std::string plots = dir + "/plots";
  try {
    create_output_directory(plots);
    write_file_atomically(plots + "/phi_section.dat", section_data(r));
    write_file_atomically(plots + "/magnet_outline.dat", outline_data(r.design));
    write_file_atomically(plots + "/axis_ppm.dat", ppm_data(r));
    const std::pair<const char*, std::string> scripts[] = {
        {"phi_contours", contour_script(r)},
        {"dphi_surface", dphi_script(r)},
        {"wire_layout", wire_script(r)},
        {"axis_ppm", ppm_script(r)},
    };
    for (const auto& [name, text] : scripts)
      write_file_atomically(plots + "/" + name + ".gp", text);
    if (find_gnuplot().empty()) {
      out.problem =
          "gnuplot is not installed (Debian package gnuplot-nox): no PNG plots; the data "
          "and gnuplot scripts are in " +
          plots + "/";
      return out;
    }
    for (const auto& [name, text] : scripts) {
      const std::string png = dir + "/" + name + ".png";
      // Removed if gnuplot fails, or a signal ends the run while it draws.
      TemporaryPath drawn(png + ".tmp");
      const std::string problem = run_gnuplot(plots, std::string(name) + ".gp");
      if (!problem.empty()) {
        out.problem += (out.problem.empty() ? "" : "; ") + problem;
        continue;
      }
      try {
        publish_file(png + ".tmp", png);  // a symbolic link kept, the file it names replaced
        drawn.release();
        out.written.push_back(name + std::string(".png"));
      } catch (const std::exception& e) {
        out.problem += fmt::format("{}could not rename {}.tmp: {}", out.problem.empty() ? "" : "; ",
                                   png, e.what());
      }
    }
  } catch (const std::exception& e) {
    out.problem = e.what();
  }
  return out;
}

}  // namespace gridsolve::magnet
