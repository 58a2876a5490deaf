// Field output for ParaView: HDF5 datasets of node-, cell- and face-centred fields,
// scalar or vector, and their XDMF description.
#include "gridsolve/io/hdf5_writer.hpp"

#include <hdf5.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/communicator.hpp"
#if GRIDSOLVE_HAVE_PARALLEL_HDF5
#include "gridsolve/exec/mpi_comm.hpp"
#endif
#include "gridsolve/io/atomic_file.hpp"
#include "gridsolve/io/result_set.hpp"

namespace gridsolve {

namespace {

// Set while the ranks write one file together: a failure on one rank then ends every rank
// at once with its message (Communicator::abort) instead of unwinding through HDF5's
// collective closes, which would wait for ranks that have moved on. The temporary is left
// unpublished: no torn file takes the final name.
bool writing_collectively = false;

[[noreturn]] void write_failure(const std::string& message) {
  if (writing_collectively) Communicator::world().abort(message, 1);
  throw Error(message, Error::Kind::runtime);
}

// Owns one HDF5 identifier; every early exit (an exception included) closes it, so a
// failed write never leaves the file open and locked.
class Hid {
 public:
  Hid(hid_t id, herr_t (*closer)(hid_t)) : id_(id), close_(closer) {}
  ~Hid() {
    if (id_ >= 0) close_(id_);
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  // Closes now and reports failure: for a file this is where buffered data is flushed.
  bool close() {
    const herr_t r = id_ >= 0 ? close_(id_) : -1;
    id_ = -1;
    return r >= 0;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack to stderr by default; the failure is reported as an
// Error instead, so the stack would only be noise. Restored on exit, since the
// setting is global to the library.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

void check_dataset_name(const std::string& name) {
  bool ok = !name.empty() && (std::isalnum((unsigned char)name[0]) || name[0] == '_');
  for (char c : name)
    ok = ok && (std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.');
  require(ok, fmt::format("field name '{}' is not usable as a dataset name; use letters, digits, "
                          "'_', '-' and '.', starting with a letter, digit or '_'",
                          name));
}

// The indices a dataset covers: its own box, or the grid's whole box of its centring.
Box box_of(const Grid& g, const Centring& c, const Box& box) {
  return box.empty() ? g.box(c) : box;
}

template <class T>
void check_field_matches_grid(const Field<T>& f, const Grid& g, const std::string& name) {
  require(!f.empty(), fmt::format("field '{}' is empty; nothing to write", name));
  const Box b = f.interior(), whole = g.box(f.centring());
  bool inside = f.dims() == g.dims;
  for (int a = 0; a < 3; ++a) inside = inside && b.lo[a] >= whole.lo[a] && b.hi[a] <= whole.hi[a];
  require(inside,
          fmt::format("field '{}' ({}D, {}-centred, indices {}..{} x {}..{} x {}..{}) does not "
                      "lie on the {}D grid of {} x {} x {} nodes",
                      name, f.dims(), f.centring().describe(), b.lo[0], b.hi[0], b.lo[1], b.hi[1],
                      b.lo[2], b.hi[2], g.dims, g.n[0], g.n[1], g.n[2]));
}

// HDF5 and XDMF list axes slowest first; memory is x fastest, so the shape is reversed.
// Vectors add the components as the fastest axis.
std::vector<hsize_t> dataset_shape(const Box& b, int dims, int ncomp) {
  std::vector<hsize_t> shape;
  for (int a = dims - 1; a >= 0; --a) shape.push_back(hsize_t(b.extent(a)));
  if (ncomp > 1) shape.push_back(hsize_t(ncomp));
  return shape;
}

std::string shape_text(const Box& b, int dims, int ncomp) {
  std::string t;
  for (hsize_t s : dataset_shape(b, dims, ncomp)) t += fmt::format("{}{}", t.empty() ? "" : " ", s);
  return t;
}

// Where value (i, j, k) of box `b` sits, per axis: a node, or a cell's centre.
std::array<double, 3> first_point(const Grid& g, const Box& b) {
  std::array<double, 3> p{0, 0, 0};
  for (int a = 0; a < g.dims; ++a) p[a] = g.coord(a, b.lo[a], b.centring.type[a]);
  return p;
}

void write_double_attribute(hid_t object, const char* attr_name, const double* values, int count,
                            const std::string& where) {
  const hsize_t len = hsize_t(count);
  Hid space(H5Screate_simple(1, &len, nullptr), H5Sclose);
  if (!space.ok()) write_failure(fmt::format("cannot write '{}': HDF5 dataspace failed", where));
  Hid attr(H5Acreate2(object, attr_name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values) < 0 || !attr.close())
    write_failure(fmt::format("cannot write attribute '{}' in '{}'", attr_name, where));
}

void write_int_attribute(hid_t object, const char* attr_name, int value, const std::string& where) {
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(H5Acreate2(object, attr_name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  if (!space.ok() || !attr.ok() || H5Awrite(attr.get(), H5T_NATIVE_INT, &value) < 0 ||
      !attr.close())
    write_failure(fmt::format("cannot write attribute '{}' in '{}'", attr_name, where));
}

// What the HDF5 library says went wrong, innermost first: for a failed write that is
// the system call and the OS error ("errno = 28, error message = 'No space left on
// device'"), which the user needs to see.
std::string hdf5_error_text() {
  std::pair<std::string, std::string> found;  // innermost description, OS error
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        auto* seen = static_cast<std::pair<std::string, std::string>*>(out);
        const std::string d = e->desc ? e->desc : "";
        if (seen->first.empty()) seen->first = d;
        // The sec2 driver reports "errno = 28, error message = 'No space left on device'".
        const auto at = d.find("error message = '");
        if (seen->second.empty() && at != std::string::npos) {
          const auto from = at + 17, to = d.find('\'', from);
          seen->second = d.substr(from, to == std::string::npos ? std::string::npos : to - from);
        }
        return 0;
      },
      &found);
  if (!found.second.empty()) return found.second;
  return found.first.empty() ? "no detail from the HDF5 library" : found.first;
}

// A file whose close failed stays half open inside HDF5 1.10, and the library's exit
// handler then crashes on it; without that handler the process just ends (every file
// that succeeded was closed explicitly). Must run before the library starts.
void skip_hdf5_exit_handler() {
  static const bool once = [] {
    H5dont_atexit();
    return true;
  }();
  (void)once;
}

[[noreturn]] void hdf5_failure(const std::string& what) {
  write_failure(fmt::format("{}: {}", what, hdf5_error_text()));
}

void write_string_attribute(hid_t object, const char* attr_name, const std::string& value,
                            const std::string& where) {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.ok() || H5Tset_size(type.get(), value.size() + 1) < 0)
    hdf5_failure(fmt::format("cannot write attribute '{}' in '{}'", attr_name, where));
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(H5Acreate2(object, attr_name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  if (!space.ok() || !attr.ok() || H5Awrite(attr.get(), type.get(), value.c_str()) < 0 ||
      !attr.close())
    hdf5_failure(fmt::format("cannot write attribute '{}' in '{}'", attr_name, where));
}

// Writes the datasets into `path` (an existing temporary that the caller publishes);
// `label` is the final name, for messages. Every HDF5 call that can fail on a full disk
// (dataset writes, attribute writes, closes, the final flush) is checked, so a failure
// never reaches the rename.
// collective: every rank of the run calls it with its part of each dataset (DatasetSource::
// whole the dataset's box), and they write the one file together (parallel HDF5).
void write_hdf5_file(const std::string& path, const std::string& label, const Grid& g,
                     const std::vector<DatasetSource>& sources, const std::string& run_id,
                     bool collective = false) {
  for (const DatasetSource& s : sources) {
    const Box b = box_of(g, s.centring, s.box);
    const std::size_t expected = std::size_t(b.cells()) * std::size_t(s.ncomp);
    require(s.count == expected, fmt::format("field '{}' has {} values, its {} box holds {}",
                                             s.name, s.count, s.centring.describe(), expected));
  }
  skip_hdf5_exit_handler();
  const QuietHdf5Errors quiet;
  Hid access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose), transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (collective) {
#if GRIDSOLVE_HAVE_PARALLEL_HDF5
    writing_collectively = true;
    // Independent data writes: a rank whose write fails (a full disk) gets its error back
    // at once instead of leaving the others inside a collective write; the ranks then
    // agree on the outcome (below) before the next collective step.
    if (H5Pset_fapl_mpio(access.get(), run_mpi_comm(), MPI_INFO_NULL) < 0 ||
        H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_INDEPENDENT) < 0)
      hdf5_failure(fmt::format("cannot open '{}' on every rank (MPI-IO)", label));
#else
    throw Error("this build's HDF5 cannot write one file from several ranks");
#endif
  }
  // Cleared on every way out: later failures are this rank's own again.
  struct Clear {
    ~Clear() { writing_collectively = false; }
  } clear;
  Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!file.ok())
    hdf5_failure(fmt::format("cannot create HDF5 file '{}' (writing '{}')", path, label));
  if (!run_id.empty()) write_string_attribute(file.get(), "run_id", run_id, label);
  for (const DatasetSource& s : sources) {
    const std::string where = fmt::format("{}:/{}", label, s.name);
    Box b = box_of(g, s.centring, s.box);
    b.centring = s.centring;
    Box whole = s.whole.empty() ? b : s.whole;  // the dataset's box; b is this rank's share
    whole.centring = s.centring;
    const std::vector<hsize_t> shape = dataset_shape(whole, g.dims, s.ncomp);
    Hid space(H5Screate_simple(int(shape.size()), shape.data(), nullptr), H5Sclose);
    if (!space.ok()) hdf5_failure(fmt::format("cannot write '{}': HDF5 dataspace failed", where));
    const std::vector<hsize_t> count = dataset_shape(b, g.dims, s.ncomp);
    std::vector<hsize_t> start(count.size(), 0);
    for (int a = 0; a < g.dims; ++a) start[std::size_t(g.dims - 1 - a)] = hsize_t(b.lo[a] - whole.lo[a]);
    Hid memory(H5Screate_simple(int(count.size()), count.data(), nullptr), H5Sclose);
    if (!memory.ok() || H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                            count.data(), nullptr) < 0)
      hdf5_failure(fmt::format("cannot write '{}': HDF5 dataspace failed", where));
    const hid_t file_type = s.single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    const hid_t mem_type = s.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    Hid dset(H5Dcreate2(file.get(), s.name.c_str(), file_type, space.get(), H5P_DEFAULT,
                        H5P_DEFAULT, H5P_DEFAULT),
             H5Dclose);
    const bool wrote =
        dset.ok() &&
        H5Dwrite(dset.get(), mem_type, memory.get(), space.get(), transfer.get(), s.data) >= 0;
    if (collective && Communicator::world().min(wrote ? 1.0 : 0.0) < 1 && wrote)
      Communicator::world().barrier();  // another rank failed: it ends the run with its reason
    if (!wrote) hdf5_failure(fmt::format("cannot write dataset '{}'", where));
    const std::array<double, 3> origin = first_point(g, whole);
    write_double_attribute(dset.get(), "origin", origin.data(), g.dims, where);
    write_double_attribute(dset.get(), "spacing", g.spacing.data(), g.dims, where);
    write_string_attribute(dset.get(), "centring", s.centring.describe(), where);
    write_int_attribute(dset.get(), "components", s.field_components, where);
    if (!dset.close()) hdf5_failure(fmt::format("cannot write dataset '{}'", where));
  }
  if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0)
    hdf5_failure(fmt::format("cannot write '{}'", label));
  if (!file.close())
    hdf5_failure(fmt::format("cannot write '{}': closing the HDF5 file failed", label));
}

void write_hdf5_file_atomically(const std::string& h5_path, const Grid& g,
                                const std::vector<DatasetSource>& sources,
                                const std::string& run_id) {
  AtomicOutput out(h5_path);
  write_hdf5_file(out.temp_path(), h5_path, g, sources, run_id);
  out.commit();
}

std::string xml_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      case '\'':
        r += "&apos;";
        break;
      default:
        r += c;
    }
  }
  return r;
}

// Slowest axis first, as XDMF expects for CoRectMesh origin and spacing too.
std::string reversed(const std::array<double, 3>& v, int dims) {
  std::string r;
  for (int a = dims - 1; a >= 0; --a) r += fmt::format("{}{}", a == dims - 1 ? "" : " ", v[a]);
  return r;
}

const char* attribute_type(int ncomp) {
  switch (ncomp) {
    case 1:
      return "Scalar";
    case 3:
      return "Vector";
    case 6:
      return "Tensor6";
    case 9:
      return "Tensor";
    default:
      return "Matrix";
  }
}

// A CoRectMesh whose points are the indices of `b` (nodes, or the centres of cells and
// faces, per axis), opened but not closed.
std::string mesh_text(const Grid& g, const Box& b, const std::string& name,
                      const std::string& indent) {
  Box points = b;
  std::string dims_text;
  for (int a = g.dims - 1; a >= 0; --a)
    dims_text += fmt::format("{}{}", a == g.dims - 1 ? "" : " ", points.extent(a));
  const bool three = g.dims == 3;
  return fmt::format(
      "{0}<Grid Name=\"{1}\" GridType=\"Uniform\">\n"
      "{0}  <Topology TopologyType=\"{2}\" Dimensions=\"{3}\"/>\n"
      "{0}  <Geometry GeometryType=\"{4}\">\n"
      "{0}    <DataItem Name=\"Origin\" Dimensions=\"{5}\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{6}</DataItem>\n"
      "{0}    <DataItem Name=\"Spacing\" Dimensions=\"{5}\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{7}</DataItem>\n"
      "{0}  </Geometry>\n",
      indent, xml_escape(name), three ? "3DCoRectMesh" : "2DCoRectMesh", dims_text,
      three ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY", g.dims, reversed(first_point(g, b), g.dims),
      reversed(g.spacing, g.dims));
}

std::string attribute_text(const Grid& g, const XdmfAttribute& a, const Box& b, const char* center,
                           const std::string& h5_reference, const std::string& indent) {
  return fmt::format(
      "{0}  <Attribute Name=\"{1}\" AttributeType=\"{2}\" Center=\"{3}\">\n"
      "{0}    <DataItem Dimensions=\"{4}\" NumberType=\"Float\" Precision=\"{5}\" "
      "Format=\"HDF\">{6}:/{1}</DataItem>\n"
      "{0}  </Attribute>\n",
      indent, xml_escape(a.name), attribute_type(a.ncomp), center, shape_text(b, g.dims, a.ncomp),
      a.precision_bytes, xml_escape(h5_reference));
}

std::string xdmf_text(const std::string& h5_reference, const Grid& g,
                      const std::vector<XdmfAttribute>& attributes, const std::string& run_id) {
  require(g.dims == 2 || g.dims == 3,
          fmt::format("XDMF output needs a 2D or 3D grid, got {}D", g.dims));
  const Box nodes = g.box(Centring::node()), cells = g.box(Centring::cell());
  auto same = [](const Box& a, const Box& b) { return a.lo == b.lo && a.hi == b.hi; };
  // Node and cell fields over the whole grid live on the node mesh; every other box
  // (faces, parts of the grid) on a mesh of its own points, in order of appearance.
  std::vector<const XdmfAttribute*> on_grid;
  std::vector<std::pair<Box, std::vector<const XdmfAttribute*>>> others;
  for (const XdmfAttribute& a : attributes) {
    check_dataset_name(a.name);
    require(a.precision_bytes == 4 || a.precision_bytes == 8,
            fmt::format("XDMF precision must be 4 or 8 bytes, got {} for '{}'", a.precision_bytes,
                        a.name));
    require(a.ncomp >= 1, fmt::format("field '{}' has no components", a.name));
    Box b = box_of(g, a.centring, a.box);
    b.centring = a.centring;
    if ((a.centring == Centring::node() && same(b, nodes)) ||
        (a.centring == Centring::cell() && same(b, cells))) {
      on_grid.push_back(&a);
      continue;
    }
    bool found = false;
    for (auto& [box, list] : others)
      if (same(box, b) && box.centring == b.centring) {
        list.push_back(&a);
        found = true;
      }
    if (!found) others.push_back({b, {&a}});
  }
  const bool collection = !others.empty();
  const std::string in = collection ? "      " : "    ";
  std::string x =
      "<?xml version=\"1.0\" ?>\n"
      "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
      "  <Domain>\n";
  if (collection)
    x += "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
  x += mesh_text(g, nodes, "grid", in);
  if (!run_id.empty())
    x += fmt::format("{}  <Information Name=\"run_id\" Value=\"{}\"/>\n", in, xml_escape(run_id));
  for (const XdmfAttribute* a : on_grid) {
    const bool cell = a->centring == Centring::cell();
    x += attribute_text(g, *a, cell ? cells : nodes, cell ? "Cell" : "Node", h5_reference, in);
  }
  x += in + "</Grid>\n";
  for (const auto& [box, list] : others) {
    std::string name = box.centring.describe();
    const Box whole = g.box(box.centring);
    if (!same(box, whole)) name += "-" + list.front()->name;
    x += mesh_text(g, box, name, in);
    for (const XdmfAttribute* a : list) x += attribute_text(g, *a, box, "Node", h5_reference, in);
    x += in + "</Grid>\n";
  }
  if (collection) x += "    </Grid>\n";
  x += "  </Domain>\n</Xdmf>\n";
  return x;
}

// Values at the points of box b (x fastest), component after component, as written:
// components interleaved (a 2D vector padded with a zero z), NaN where `blank` says.
template <class V>
std::vector<V> written_values(const std::vector<V>& values, const Box& b, int ncomp, int stored,
                              const std::vector<std::uint8_t>& blank) {
  const std::size_t points = std::size_t(b.cells());
  std::vector<V> out(points * std::size_t(stored), V(0));
  for (std::size_t p = 0; p < points; ++p) {
    const bool nan = !blank.empty() && blank[p];
    for (int c = 0; c < ncomp; ++c)
      out[p * stored + c] =
          nan ? std::numeric_limits<V>::quiet_NaN() : values[std::size_t(c) * points + p];
    if (nan)
      for (int c = ncomp; c < stored; ++c)
        out[p * stored + c] = std::numeric_limits<V>::quiet_NaN();
  }
  return out;
}

// Per point of box b: 1 when every grid node of that point is outside (a node is its
// own; a cell or face spans the two nodes around it on each cell axis).
// `outside` holds one entry per node of `over` (x fastest).
std::vector<std::uint8_t> blanked_points(const Grid& g, const Box& b,
                                         const std::vector<std::uint8_t>& outside,
                                         const Box& over) {
  if (outside.empty()) return {};
  std::vector<std::uint8_t> blank;
  blank.reserve(std::size_t(b.cells()));
  const std::size_t nx = std::size_t(over.extent(0)), ny = std::size_t(over.extent(1));
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
        bool all = true;
        const int span[3] = {b.centring.is_cell(0) ? 2 : 1, b.centring.is_cell(1) ? 2 : 1,
                             g.dims == 3 && b.centring.is_cell(2) ? 2 : 1};
        for (int dk = 0; dk < span[2] && all; ++dk)
          for (int dj = 0; dj < span[1] && all; ++dj)
            for (int di = 0; di < span[0] && all; ++di)
              all = outside[std::size_t(i + di - over.lo[0]) +
                            nx * (std::size_t(j + dj - over.lo[1]) +
                                  ny * std::size_t(g.dims == 3 ? k + dk - over.lo[2] : 0))] != 0;
        blank.push_back(all);
      }
  return blank;
}

}  // namespace

template <class T>
void write_field_hdf5(const std::string& h5_path, const std::string& dataset, const Field<T>& f,
                      const Grid& g) {
  check_dataset_name(dataset);
  check_field_matches_grid(f, g, dataset);
  const Box b = f.interior();
  const int ncomp = f.ncomp(), stored = ncomp == 2 && g.dims == 2 ? 3 : ncomp;
  const std::vector<T> values = written_values(f.to_vector(), b, ncomp, stored, {});
  write_hdf5_file_atomically(h5_path, g,
                             {DatasetSource{dataset, values.data(), values.size(), sizeof(T) == 4,
                                            f.centring(), b, Box{}, stored, ncomp}},
                             {});
}

void write_xdmf(const std::string& xdmf_path, const std::string& h5_reference, const Grid& g,
                const std::vector<XdmfAttribute>& attributes) {
  write_file_atomically(xdmf_path, xdmf_text(h5_reference, g, attributes, {}));
}

template <class T>
FieldFileWriter& FieldFileWriter::add(const std::string& name, const Field<T>& f) {
  check_dataset_name(name);
  for (const Stored& s : fields_)
    require(s.name != name, fmt::format("field '{}' was added twice to one output file", name));
  check_field_matches_grid(f, grid_, name);
  const bool part = f.decomposition() != nullptr && f.decomposition()->ranks() > 1;
  require(fields_.empty() || part == on_ranks_,
          fmt::format("field '{}' is {} while the file's other fields are {}", name,
                      part ? "one rank's part" : "whole", on_ranks_ ? "parts" : "whole"));
  on_ranks_ = part;
  fields_.push_back(Stored{name, f.to_vector(), f.centring(), f.interior(), f.ncomp()});
  return *this;
}

FieldFileWriter& FieldFileWriter::blank_outside(std::vector<std::uint8_t> outside, Box over) {
  if (over.empty()) over = grid_.nodes();
  require(outside.empty() || outside.size() == std::size_t(over.cells()),
          fmt::format("the outside marks have {} entries for {} nodes", outside.size(),
                      over.cells()));
  outside_ = std::move(outside);
  outside_box_ = over;
  return *this;
}

void FieldFileWriter::collect(std::vector<Values>& buffers, std::vector<DatasetSource>& sources,
                              std::vector<XdmfAttribute>& attributes) const {
  require(!fields_.empty(), "no fields were added to the output file");
  buffers.reserve(fields_.size());
  for (const Stored& s : fields_) {
    // A 2D vector gets a zero z component: XDMF vectors have three.
    const int stored = s.ncomp == 2 && grid_.dims == 2 ? 3 : s.ncomp;
    Box b = s.box;
    b.centring = s.centring;
    const std::vector<std::uint8_t> blank = blanked_points(grid_, b, outside_, outside_box_);
    // A rank's part goes into the dataset of the whole grid's box, which the XDMF describes.
    Box whole = on_ranks_ ? grid_.box(s.centring) : Box{};
    whole.centring = s.centring;
    std::visit(
        [&](const auto& v) {
          using V = typename std::decay_t<decltype(v)>::value_type;
          buffers.emplace_back(written_values(v, b, s.ncomp, stored, blank));
          const auto& w = std::get<std::vector<V>>(buffers.back());
          sources.push_back(DatasetSource{s.name, w.data(), w.size(), sizeof(V) == 4, s.centring, b,
                                          whole, stored, s.ncomp});
          attributes.push_back(
              XdmfAttribute{s.name, int(sizeof(V)), s.centring, stored, on_ranks_ ? whole : b});
        },
        s.values);
  }
}

namespace {
void check_basename(const std::string& basename) {
  require(!basename.empty() && basename != "." && basename != ".." &&
              basename.find('/') == std::string::npos,
          fmt::format("output base name '{}' must be a plain file name without '/'", basename));
}
}  // namespace

FieldFilePaths FieldFileWriter::write(const std::string& dir, const std::string& basename,
                                      const std::string& run_id) const {
  check_basename(basename);
  require(!on_ranks_, "fields that are ranks' parts are written by stage_on_ranks on every rank");
  std::vector<Values> buffers;
  std::vector<DatasetSource> sources;
  std::vector<XdmfAttribute> attributes;
  collect(buffers, sources, attributes);
  create_output_directory(dir);
  const std::filesystem::path base = std::filesystem::path(dir) / basename;
  FieldFilePaths paths{base.string() + ".h5", base.string() + ".xdmf"};
  write_hdf5_file_atomically(paths.h5, grid_, sources, run_id);
  write_file_atomically(paths.xdmf, xdmf_text(basename + ".h5", grid_, attributes, run_id));
  return paths;
}

std::string hdf5_run_id(const std::string& h5_path) {
  skip_hdf5_exit_handler();
  const QuietHdf5Errors quiet;
  Hid file(H5Fopen(h5_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok() || H5Aexists(file.get(), "run_id") <= 0) return {};
  Hid attr(H5Aopen(file.get(), "run_id", H5P_DEFAULT), H5Aclose);
  Hid type(attr.ok() ? H5Aget_type(attr.get()) : -1, H5Tclose);
  if (!type.ok() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
    return {};
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) return {};
  value.resize(std::strlen(value.c_str()));
  return value;
}

std::string FieldFileWriter::stage_hdf5(ResultSet& set, const std::string& h5_name) const {
  require(!on_ranks_, "fields that are ranks' parts are written by stage_on_ranks on every rank");
  std::vector<Values> buffers;
  std::vector<DatasetSource> sources;
  std::vector<XdmfAttribute> attributes;
  collect(buffers, sources, attributes);
  const std::string path = set.path_of(h5_name);
  write_hdf5_file(set.stage(h5_name), path, grid_, sources, set.run_id());
  return path;
}

bool parallel_hdf5_available() {
#if GRIDSOLVE_HAVE_PARALLEL_HDF5
  return true;
#else
  return false;
#endif
}

FieldFilePaths FieldFileWriter::stage_on_ranks(ResultSet* set, const std::string& basename) const {
  check_basename(basename);
  const Communicator& comm = Communicator::world();
  require((set != nullptr) == comm.is_root(), "rank 0, and only rank 0, stages the file set");
  std::vector<Values> buffers;
  std::vector<DatasetSource> sources;
  std::vector<XdmfAttribute> attributes;
  collect(buffers, sources, attributes);
  const std::string h5 = basename + ".h5", xdmf = basename + ".xdmf";
  // Rank 0 names the temporary; every rank opens it and writes its part; HDF5's collective
  // close returns on rank 0 once every rank's data is in, and only then is it staged.
  std::string temp = set ? set->stage(h5) : std::string();
  std::string label = set ? set->path_of(h5) : std::string();
  std::string run_id = set ? set->run_id() : std::string();
  comm.broadcast(temp), comm.broadcast(label), comm.broadcast(run_id);
  write_hdf5_file(temp, label, grid_, sources, run_id, on_ranks_);
  if (!set) return {};
  set->stage_text(xdmf, xdmf_text(h5, grid_, attributes, run_id));
  return {set->path_of(h5), set->path_of(xdmf)};
}

FieldFilePaths FieldFileWriter::stage(ResultSet& set, const std::string& basename) const {
  check_basename(basename);
  require(!on_ranks_, "fields that are ranks' parts are written by stage_on_ranks on every rank");
  std::vector<Values> buffers;
  std::vector<DatasetSource> sources;
  std::vector<XdmfAttribute> attributes;
  collect(buffers, sources, attributes);
  const std::string h5 = basename + ".h5", xdmf = basename + ".xdmf";
  FieldFilePaths paths{set.path_of(h5), set.path_of(xdmf)};
  write_hdf5_file(set.stage(h5), paths.h5, grid_, sources, set.run_id());
  set.stage_text(xdmf, xdmf_text(h5, grid_, attributes, set.run_id()));
  return paths;
}

template void write_field_hdf5<float>(const std::string&, const std::string&, const Field<float>&,
                                      const Grid&);
template void write_field_hdf5<double>(const std::string&, const std::string&, const Field<double>&,
                                       const Grid&);
template FieldFileWriter& FieldFileWriter::add<float>(const std::string&, const Field<float>&);
template FieldFileWriter& FieldFileWriter::add<double>(const std::string&, const Field<double>&);

}  // namespace gridsolve
