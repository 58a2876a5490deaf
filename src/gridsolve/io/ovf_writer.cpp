// OVF 2.0 writer and reader for cell-centred vector fields.
#include "gridsolve/io/ovf_writer.hpp"

#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <fstream>
#include <sstream>

#include "gridsolve/core/error.hpp"
#include "gridsolve/core/text.hpp"
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/input_file.hpp"

namespace gridsolve {

template <class T>
void write_ovf2(const std::string& path, const OvfMesh& m, const std::array<std::vector<T>, 3>& v,
                const std::string& title, const std::array<std::string, 3>& labels,
                const std::string& unit, double time, const std::string& run_id) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  const std::size_t cells = std::size_t(m.n[0]) * m.n[1] * m.n[2];
  for (const auto& c : v)
    require(c.size() == cells,
            fmt::format("OVF '{}': {} values for {} cells", path, c.size(), cells));
  std::string h;
  auto line = [&h](const std::string& s) { h += "# " + s + "\n"; };
  line("OOMMF OVF 2.0");
  line("Segment count: 1");
  line("Begin: Segment");
  line("Begin: Header");
  line("Title: " + title);
  line("meshtype: rectangular");
  line("meshunit: " + m.unit);
  const char* ax = "xyz";
  for (int a = 0; a < 3; ++a) line(fmt::format("{}min: {:.17g}", ax[a], m.origin[a]));
  for (int a = 0; a < 3; ++a)
    line(fmt::format("{}max: {:.17g}", ax[a], m.origin[a] + m.n[a] * m.cell[a]));
  line("valuedim: 3");
  line(fmt::format("valuelabels: {} {} {}", labels[0], labels[1], labels[2]));
  line(fmt::format("valueunits: {0} {0} {0}", unit));
  line(fmt::format("Desc: Total simulation time: {:.17g} s", time));
  if (!run_id.empty()) line("Desc: run_id " + run_id);
  for (int a = 0; a < 3; ++a)
    line(fmt::format("{}base: {:.17g}", ax[a], m.origin[a] + 0.5 * m.cell[a]));
  for (int a = 0; a < 3; ++a) line(fmt::format("{}nodes: {}", ax[a], m.n[a]));
  for (int a = 0; a < 3; ++a) line(fmt::format("{}stepsize: {:.17g}", ax[a], m.cell[a]));
  line("End: Header");
  line(fmt::format("Begin: Data Binary {}", sizeof(T)));
  std::string body(sizeof(T) * (1 + 3 * cells), '\0');
  const T check = sizeof(T) == 4 ? T(1234567.0) : T(123456789012345.0);
  char* p = body.data();
  std::memcpy(p, &check, sizeof(T));
  p += sizeof(T);
  for (std::size_t q = 0; q < cells; ++q)
    for (int c = 0; c < 3; ++c) {
      std::memcpy(p, &v[c][q], sizeof(T));
      p += sizeof(T);
    }
  std::string tail = fmt::format("\n# End: Data Binary {}\n# End: Segment\n", sizeof(T));
  write_file_atomically(path, h + body + tail);
}

template void write_ovf2<float>(const std::string&, const OvfMesh&,
                                const std::array<std::vector<float>, 3>&, const std::string&,
                                const std::array<std::string, 3>&, const std::string&, double,
                                const std::string&);
template void write_ovf2<double>(const std::string&, const OvfMesh&,
                                 const std::array<std::vector<double>, 3>&, const std::string&,
                                 const std::array<std::string, 3>&, const std::string&, double,
                                 const std::string&);

namespace {

std::array<std::vector<double>, 3> parse_ovf2(const std::string& text, OvfMesh& m,
                                              const std::function<void(const std::string&)>& fail) {
  if (text.rfind("# OOMMF OVF 2.0", 0) != 0) fail("not OVF 2.0 (first line '# OOMMF OVF 2.0')");
  std::size_t pos = 0;
  int bytes = 0;
  bool is_text = false;
  int dim = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;
    const std::string l = text.substr(pos, end - pos);
    pos = end + 1;
    auto value = [&](const char* key) -> std::string {
      const std::string k = fmt::format("# {}:", key);
      return l.rfind(k, 0) == 0 ? l.substr(k.size()) : std::string();
    };
    const char* ax[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) {
      std::string s;
      if (!(s = value(fmt::format("{}nodes", ax[a]).c_str())).empty()) m.n[a] = std::stoi(s);
      if (!(s = value(fmt::format("{}stepsize", ax[a]).c_str())).empty()) m.cell[a] = std::stod(s);
      if (!(s = value(fmt::format("{}min", ax[a]).c_str())).empty()) m.origin[a] = std::stod(s);
    }
    if (!value("valuedim").empty()) dim = std::stoi(value("valuedim"));
    if (l.rfind("# Begin: Data Binary 4", 0) == 0) bytes = 4;
    if (l.rfind("# Begin: Data Binary 8", 0) == 0) bytes = 8;
    if (l.rfind("# Begin: Data Text", 0) == 0) is_text = true;
    if (bytes || is_text) break;
  }
  if (dim != 3) fail("valuedim must be 3");
  if (!bytes && !is_text) fail("no 'Begin: Data' line");
  for (int a = 0; a < 3; ++a)
    if (m.n[a] < 1) fail(fmt::format("{} nodes along axis {}; at least 1", m.n[a], a));
  const std::size_t cells = std::size_t(m.n[0]) * m.n[1] * m.n[2];
  // Every value takes at least two bytes of text ("0 "), or `bytes` in binary: a header
  // announcing more cells than the file can hold is refused before any allocation.
  if (double(cells) * 3 * (is_text ? 2 : bytes) > double(text.size() - pos))
    fail(fmt::format("the header announces {} cells, more than the file holds", cells));
  std::array<std::vector<double>, 3> v;
  for (auto& c : v) c.resize(cells);
  if (is_text) {
    std::istringstream s(text.substr(pos));
    for (std::size_t q = 0; q < cells; ++q)
      for (int c = 0; c < 3; ++c)
        if (!(s >> v[c][q])) fail("fewer values than cells");
    return v;
  }
  if (text.size() < pos + bytes * (1 + 3 * cells)) fail("the data block is shorter than the mesh");
  const char* p = text.data() + pos;
  auto get = [&](const char* at) {
    if (bytes == 4) {
      float f;
      std::memcpy(&f, at, 4);
      return double(f);
    }
    double d;
    std::memcpy(&d, at, 8);
    return d;
  };
  const double check = get(p);
  if (check != (bytes == 4 ? 1234567.0 : 123456789012345.0))
    fail("wrong check value (byte order?)");
  p += bytes;
  for (std::size_t q = 0; q < cells; ++q)
    for (int c = 0; c < 3; ++c) {
      v[c][q] = get(p);
      p += bytes;
    }
  return v;
}

}  // namespace

std::array<std::vector<double>, 3> read_ovf2(const std::string& path, OvfMesh& m,
                                             std::uintmax_t limit) {
  const std::string text = read_input_file(path, limit, "OVF file");
  auto fail = [&](const std::string& why) -> void {
    throw Error(fmt::format("OVF file '{}': {}", printable(path), why));
  };
  try {
    return parse_ovf2(text, m, fail);
  } catch (const std::logic_error&) {  // std::stoi / std::stod on a malformed header value
    fail("a header value is not a number");
  }
  return {};
}

}  // namespace gridsolve
