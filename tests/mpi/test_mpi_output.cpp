// One HDF5 file from every rank: each rank's part of each field written into the whole
// grid's dataset (parallel HDF5) gives the file one process writes from the whole fields,
// value for value (cut-outs blanked alike, vectors padded alike), and the same XDMF.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gridsolve/exec/communicator.hpp"
#include "gridsolve/exec/decomposition.hpp"
#include "gridsolve/exec/field_part.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/io/result_set.hpp"
#include "gridsolve/problem/problem_spec.hpp"

namespace gridsolve {
namespace {

// A folder every rank sees, made by rank 0.
std::string shared_folder(const std::string& tag) {
  std::string dir;
  if (Communicator::world().is_root()) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("gridsolve-" + tag + "-XXXXXX")).string();
    dir = ::mkdtemp(pattern.data()) ? pattern : std::string();
  }
  Communicator::world().broadcast(dir);
  return dir;
}

// The bytes of a dataset and its shape (empty when missing).
struct Stored {
  std::vector<hsize_t> shape;
  std::vector<unsigned char> bytes;
  std::vector<double> origin, spacing;
};

std::vector<double> attribute(hid_t d, const char* name) {
  const hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  if (a < 0) return {};
  const hid_t space = H5Aget_space(a);
  std::vector<double> v(std::size_t(H5Sget_simple_extent_npoints(space)));
  H5Aread(a, H5T_NATIVE_DOUBLE, v.data());
  H5Sclose(space);
  H5Aclose(a);
  return v;
}

Stored read_back(const std::string& file, const std::string& name) {
  Stored s;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return s;
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  if (d >= 0) {
    const hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    s.shape.assign(std::size_t(H5Sget_simple_extent_ndims(space)), 0);
    H5Sget_simple_extent_dims(space, s.shape.data(), nullptr);
    s.bytes.resize(std::size_t(H5Sget_simple_extent_npoints(space)) * H5Tget_size(type));
    H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.bytes.data());
    s.origin = attribute(d, "origin");
    s.spacing = attribute(d, "spacing");
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return s;
}

std::string text_without_run_id(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  std::string line;
  while (std::getline(in, line))
    if (line.find("run_id") == std::string::npos) all << line << '\n';
  return all.str();
}

// Writes a scalar node field (double), a vector node field (float) and a scalar cell field
// whole from rank 0 and as parts from every rank, and compares the two files on rank 0.
void expect_same_files(const Grid& g, std::array<int, 3> process_grid) {
  const Communicator& comm = Communicator::world();
  if (!parallel_hdf5_available()) GTEST_SKIP() << "this build's HDF5 has no MPI";
  const auto parts = std::make_shared<const Decomposition>(g.box(Centring::node()), g.dims,
                                                           comm.size(), std::array<bool, 3>{},
                                                           process_grid);
  const int rank = comm.rank();
  Field<double> u(g, Device::cpu);
  Field<float> v(g, Centring::node(), 2, 1, Device::cpu);
  Field<std::uint8_t> kinds(g, Device::cpu);
  {
    const FieldView<double> uv = u.view();
    const FieldView<float> vv = v.view();
    const FieldView<std::uint8_t> kv = kinds.view();
    const Box b = u.interior();
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) {
          uv(i, j, k) = std::sin(0.3 * i + 0.7 * j) + 0.01 * k + 1e-9 * (i * j);
          vv(i, j, k, 0) = float(i - j), vv(i, j, k, 1) = float(0.5 * k + j);
          // A cut-out in one corner, crossing the ranks' faces.
          const bool out = i < g.n[0] / 2 && j > g.n[1] / 3;
          kv(i, j, k) = std::uint8_t(out ? NodeKind::outside : NodeKind::free);
        }
  }
  std::vector<std::uint8_t> outside_all = kinds.to_vector();
  for (std::uint8_t& o : outside_all) o = o == std::uint8_t(NodeKind::outside);
  const std::string one = shared_folder("one"), many = shared_folder("many");
  ASSERT_FALSE(one.empty() || many.empty());
  if (comm.is_root()) {
    FieldFileWriter w(g);
    w.blank_outside(outside_all).add("u", u).add("velocity", v);
    w.write(one, "solution");
  }
  {
    const Field<std::uint8_t> my_kinds = field_part(kinds, parts, rank);
    std::vector<std::uint8_t> outside = my_kinds.to_vector();
    for (std::uint8_t& o : outside) o = o == std::uint8_t(NodeKind::outside);
    FieldFileWriter w(g);
    w.blank_outside(outside, my_kinds.interior())
        .add("u", field_part(u, parts, rank))
        .add("velocity", field_part(v, parts, rank));
    std::unique_ptr<ResultSet> set;
    if (comm.is_root()) set = std::make_unique<ResultSet>(many);
    w.stage_on_ranks(set.get(), "solution");
    if (set) set->commit("solution.xdmf");
  }
  comm.barrier();
  if (comm.is_root()) {
    const std::string what = "on a " + parts->describe() + " grid";
    for (const char* name : {"u", "velocity"}) {
      const Stored a = read_back(one + "/solution.h5", name);
      const Stored b = read_back(many + "/solution.h5", name);
      ASSERT_FALSE(a.bytes.empty()) << name;
      EXPECT_EQ(a.shape, b.shape) << name << " " << what;
      EXPECT_EQ(a.origin, b.origin) << name;
      EXPECT_EQ(a.spacing, b.spacing) << name;
      // Byte for byte, the NaNs of the cut-out included.
      EXPECT_TRUE(a.bytes == b.bytes) << name << " differs " << what;
    }
    EXPECT_EQ(text_without_run_id(one + "/solution.xdmf"),
              text_without_run_id(many + "/solution.xdmf"));
    EXPECT_FALSE(hdf5_run_id(many + "/solution.h5").empty());
  }
  comm.barrier();
  if (comm.is_root()) {
    std::filesystem::remove_all(one);
    std::filesystem::remove_all(many);
  }
}

TEST(MpiOutput, OneFileFromEveryRank2D) {
  expect_same_files(Grid::box(2, {37, 29, 1}, {0, 0, 0}, {1.0, 0.75, 0}), {0, 0, 0});
}

TEST(MpiOutput, OneFileFromEveryRank3D) {
  const int n = Communicator::world().size();
  expect_same_files(Grid::box(3, {13, 11, 9}, {0.5, 0, -1}, {1.5, 1.0, 0}), {1, 1, n});
}

}  // namespace
}  // namespace gridsolve
