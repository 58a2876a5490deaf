// Field output for ParaView: HDF5 datasets of interior nodes and their XDMF description.
#include "gridsolve/io/hdf5_writer.hpp"

#include <hdf5.h>

#include <array>
#include <cctype>
#include <filesystem>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "gridsolve/core/error.hpp"
#include "gridsolve/io/atomic_file.hpp"

namespace gridsolve {

namespace {

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

struct DatasetSource {
  std::string name;
  const void* data = nullptr;
  std::size_t count = 0;
  bool single = false;  // float rather than double
};

void check_dataset_name(const std::string& name) {
  bool ok = !name.empty() && (std::isalnum((unsigned char)name[0]) || name[0] == '_');
  for (char c : name)
    ok = ok && (std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.');
  require(ok, fmt::format("field name '{}' is not usable as a dataset name; use letters, digits, "
                          "'_', '-' and '.', starting with a letter, digit or '_'",
                          name));
}

template <class T>
void check_field_matches_grid(const Field<T>& f, const Grid& g, const std::string& name) {
  require(!f.empty(), fmt::format("field '{}' is empty; nothing to write", name));
  const auto& n = f.layout().n;
  require(f.dims() == g.dims && n == g.n,
          fmt::format("field '{}' has {}D shape {} x {} x {}, the grid is {}D {} x {} x {}", name,
                      f.dims(), n[0], n[1], n[2], g.dims, g.n[0], g.n[1], g.n[2]));
}

// HDF5 and XDMF list axes slowest first; memory is x fastest, so the shape is reversed.
std::vector<hsize_t> dataset_shape(const Grid& g) {
  std::vector<hsize_t> shape;
  for (int a = g.dims - 1; a >= 0; --a) shape.push_back(hsize_t(g.n[a]));
  return shape;
}

void write_double_attribute(hid_t object, const char* attr_name, const double* values, int count,
                            const std::string& where) {
  const hsize_t len = hsize_t(count);
  Hid space(H5Screate_simple(1, &len, nullptr), H5Sclose);
  if (!space.ok())
    throw Error(fmt::format("cannot write '{}': HDF5 dataspace failed", where),
                Error::Kind::runtime);
  Hid attr(H5Acreate2(object, attr_name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
           H5Aclose);
  if (!attr.ok() || H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values) < 0)
    throw Error(fmt::format("cannot write attribute '{}' in '{}'", attr_name, where),
                Error::Kind::runtime);
}

void write_hdf5_file(const std::string& h5_path, const Grid& g,
                     const std::vector<DatasetSource>& sources) {
  const std::size_t expected = std::size_t(g.node_count());
  for (const DatasetSource& s : sources)
    require(s.count == expected, fmt::format("field '{}' has {} values, the grid has {} nodes",
                                             s.name, s.count, expected));
  AtomicOutput out(h5_path);
  {
    const QuietHdf5Errors quiet;
    Hid file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.ok())
      throw Error(
          fmt::format("cannot create HDF5 file '{}' (writing '{}')", out.temp_path(), h5_path),
          Error::Kind::runtime);
    const std::vector<hsize_t> shape = dataset_shape(g);
    for (const DatasetSource& s : sources) {
      const std::string where = fmt::format("{}:/{}", h5_path, s.name);
      Hid space(H5Screate_simple(int(shape.size()), shape.data(), nullptr), H5Sclose);
      if (!space.ok())
        throw Error(fmt::format("cannot write '{}': HDF5 dataspace failed", where),
                    Error::Kind::runtime);
      const hid_t file_type = s.single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
      const hid_t mem_type = s.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      Hid dset(H5Dcreate2(file.get(), s.name.c_str(), file_type, space.get(), H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
      if (!dset.ok() || H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data) < 0)
        throw Error(fmt::format("cannot write dataset '{}'", where), Error::Kind::runtime);
      write_double_attribute(dset.get(), "origin", g.origin.data(), g.dims, where);
      write_double_attribute(dset.get(), "spacing", g.spacing.data(), g.dims, where);
    }
    if (!file.close())
      throw Error(
          fmt::format("cannot write '{}': closing the HDF5 file failed (disk full?)", h5_path));
  }
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

}  // namespace

template <class T>
void write_field_hdf5(const std::string& h5_path, const std::string& dataset, const Field<T>& f,
                      const Grid& g) {
  check_dataset_name(dataset);
  check_field_matches_grid(f, g, dataset);
  const std::vector<T> values = f.to_vector();
  write_hdf5_file(h5_path, g,
                  {DatasetSource{dataset, values.data(), values.size(), sizeof(T) == 4}});
}

void write_xdmf(const std::string& xdmf_path, const std::string& h5_reference, const Grid& g,
                const std::vector<XdmfAttribute>& attributes) {
  require(g.dims == 2 || g.dims == 3,
          fmt::format("XDMF output needs a 2D or 3D grid, got {}D", g.dims));
  std::string dims_text;
  for (int a = g.dims - 1; a >= 0; --a)
    dims_text += fmt::format("{}{}", a == g.dims - 1 ? "" : " ", g.n[a]);
  const bool three = g.dims == 3;
  std::string x = fmt::format(
      "<?xml version=\"1.0\" ?>\n"
      "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"grid\" GridType=\"Uniform\">\n"
      "      <Topology TopologyType=\"{}\" Dimensions=\"{}\"/>\n"
      "      <Geometry GeometryType=\"{}\">\n"
      "        <DataItem Name=\"Origin\" Dimensions=\"{}\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{}</DataItem>\n"
      "        <DataItem Name=\"Spacing\" Dimensions=\"{}\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{}</DataItem>\n"
      "      </Geometry>\n",
      three ? "3DCoRectMesh" : "2DCoRectMesh", dims_text, three ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY",
      g.dims, reversed(g.origin, g.dims), g.dims, reversed(g.spacing, g.dims));
  for (const XdmfAttribute& a : attributes) {
    check_dataset_name(a.name);
    require(a.precision_bytes == 4 || a.precision_bytes == 8,
            fmt::format("XDMF precision must be 4 or 8 bytes, got {} for '{}'", a.precision_bytes,
                        a.name));
    x += fmt::format(
        "      <Attribute Name=\"{0}\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "        <DataItem Dimensions=\"{1}\" NumberType=\"Float\" Precision=\"{2}\" "
        "Format=\"HDF\">{3}:/{0}</DataItem>\n"
        "      </Attribute>\n",
        xml_escape(a.name), dims_text, a.precision_bytes, xml_escape(h5_reference));
  }
  x += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  write_file_atomically(xdmf_path, x);
}

template <class T>
FieldFileWriter& FieldFileWriter::add(const std::string& name, const Field<T>& f) {
  check_dataset_name(name);
  for (const Stored& s : fields_)
    require(s.name != name, fmt::format("field '{}' was added twice to one output file", name));
  check_field_matches_grid(f, grid_, name);
  fields_.push_back(Stored{name, f.to_vector()});
  return *this;
}

FieldFilePaths FieldFileWriter::write(const std::string& dir, const std::string& basename) const {
  require(!basename.empty() && basename != "." && basename != ".." &&
              basename.find('/') == std::string::npos,
          fmt::format("output base name '{}' must be a plain file name without '/'", basename));
  require(!fields_.empty(), "no fields were added to the output file");
  create_output_directory(dir);
  const std::filesystem::path base = std::filesystem::path(dir) / basename;
  FieldFilePaths paths{base.string() + ".h5", base.string() + ".xdmf"};

  std::vector<DatasetSource> sources;
  std::vector<XdmfAttribute> attributes;
  for (const Stored& s : fields_) {
    std::visit(
        [&](const auto& v) {
          using V = typename std::decay_t<decltype(v)>::value_type;
          sources.push_back(DatasetSource{s.name, v.data(), v.size(), sizeof(V) == 4});
          attributes.push_back(XdmfAttribute{s.name, int(sizeof(V))});
        },
        s.values);
  }
  write_hdf5_file(paths.h5, grid_, sources);
  write_xdmf(paths.xdmf, basename + ".h5", grid_, attributes);
  return paths;
}

template void write_field_hdf5<float>(const std::string&, const std::string&, const Field<float>&,
                                      const Grid&);
template void write_field_hdf5<double>(const std::string&, const std::string&, const Field<double>&,
                                       const Grid&);
template FieldFileWriter& FieldFileWriter::add<float>(const std::string&, const Field<float>&);
template FieldFileWriter& FieldFileWriter::add<double>(const std::string&, const Field<double>&);

template <class T>
FieldFilePaths write_cell_vector_fields(const std::string& dir, const std::string& basename,
                                        const CellVectorMesh& mesh,
                                        const std::vector<NamedCellVectors<T>>& fields) {
  require(!basename.empty() && basename.find('/') == std::string::npos,
          fmt::format("output base name '{}' must be a plain file name without '/'", basename));
  require(!fields.empty(), "no fields were given for the output file");
  const std::size_t cells = std::size_t(mesh.cells[0]) * mesh.cells[1] * mesh.cells[2];
  for (const auto& f : fields) {
    check_dataset_name(f.name);
    for (const auto& c : *f.components)
      require(c.size() == cells, fmt::format("field '{}' has {} values per component for {} cells",
                                             f.name, c.size(), cells));
  }
  create_output_directory(dir);
  const std::filesystem::path base = std::filesystem::path(dir) / basename;
  FieldFilePaths paths{base.string() + ".h5", base.string() + ".xdmf"};
  {
    AtomicOutput out(paths.h5);
    const QuietHdf5Errors quiet;
    Hid file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.ok())
      throw Error(fmt::format("cannot create HDF5 file '{}'", paths.h5), Error::Kind::runtime);
    const hsize_t shape[4] = {hsize_t(mesh.cells[2]), hsize_t(mesh.cells[1]),
                              hsize_t(mesh.cells[0]), 3};
    for (const auto& f : fields) {
      std::vector<T> inter(3 * cells);
      for (std::size_t q = 0; q < cells; ++q)
        for (int c = 0; c < 3; ++c) inter[3 * q + c] = (*f.components)[c][q];
      const std::string where = fmt::format("{}:/{}", paths.h5, f.name);
      Hid space(H5Screate_simple(4, shape, nullptr), H5Sclose);
      const hid_t file_type = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
      const hid_t mem_type = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      Hid dset(H5Dcreate2(file.get(), f.name.c_str(), file_type, space.get(), H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
      if (!space.ok() || !dset.ok() ||
          H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, inter.data()) < 0)
        throw Error(fmt::format("cannot write dataset '{}'", where), Error::Kind::runtime);
      write_double_attribute(dset.get(), "origin", mesh.origin.data(), 3, where);
      write_double_attribute(dset.get(), "spacing", mesh.spacing.data(), 3, where);
    }
    if (!file.close())
      throw Error(fmt::format("cannot write '{}': closing the HDF5 file failed (disk full?)",
                              paths.h5));
    out.commit();
  }
  const std::string nodes = fmt::format("{} {} {}", mesh.cells[2] + 1, mesh.cells[1] + 1,
                                        mesh.cells[0] + 1);
  std::string x = fmt::format(
      "<?xml version=\"1.0\" ?>\n"
      "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"cells\" GridType=\"Uniform\">\n"
      "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n"
      "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      "        <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{}</DataItem>\n"
      "        <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{}</DataItem>\n"
      "      </Geometry>\n",
      nodes, reversed(mesh.origin, 3), reversed(mesh.spacing, 3));
  for (const auto& f : fields)
    x += fmt::format(
        "      <Attribute Name=\"{0}\" AttributeType=\"Vector\" Center=\"Cell\">\n"
        "        <DataItem Dimensions=\"{1} {2} {3} 3\" NumberType=\"Float\" Precision=\"{4}\" "
        "Format=\"HDF\">{5}:/{0}</DataItem>\n"
        "      </Attribute>\n",
        xml_escape(f.name), mesh.cells[2], mesh.cells[1], mesh.cells[0], sizeof(T),
        xml_escape(basename + ".h5"));
  x += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  write_file_atomically(paths.xdmf, x);
  return paths;
}

template FieldFilePaths write_cell_vector_fields<float>(const std::string&, const std::string&,
                                                        const CellVectorMesh&,
                                                        const std::vector<NamedCellVectors<float>>&);
template FieldFilePaths write_cell_vector_fields<double>(
    const std::string&, const std::string&, const CellVectorMesh&,
    const std::vector<NamedCellVectors<double>>&);

}  // namespace gridsolve
