// Field output of every centring and of vectors: HDF5 values and attributes read back through
// the HDF5 C API, the XDMF description, and NaN at nodes outside the domain.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gridsolve/core/centring.hpp"
#include "gridsolve/exec/field.hpp"
#include "gridsolve/io/hdf5_writer.hpp"
#include "gridsolve/problem/assemble.hpp"
#include "gridsolve/problem/model_problems.hpp"
#include "output_test_support.hpp"

using namespace gridsolve;
using namespace gridsolve::output_testing;

namespace {

struct Dataset {
  std::vector<hsize_t> shape;
  std::vector<double> values;
  std::vector<double> origin, spacing;
  std::string centring;
  int components = 0;
};

std::vector<double> double_attribute(hid_t d, const char* name) {
  std::vector<double> v;
  const hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  if (a < 0) return v;
  const hid_t s = H5Aget_space(a);
  v.resize(std::size_t(H5Sget_simple_extent_npoints(s)));
  H5Aread(a, H5T_NATIVE_DOUBLE, v.data());
  H5Sclose(s);
  H5Aclose(a);
  return v;
}

Dataset read_dataset(const std::string& file, const std::string& name) {
  Dataset r;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  if (f < 0) return r;
  const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  if (d >= 0) {
    const hid_t s = H5Dget_space(d);
    r.shape.assign(std::size_t(H5Sget_simple_extent_ndims(s)), 0);
    H5Sget_simple_extent_dims(s, r.shape.data(), nullptr);
    r.values.resize(std::size_t(H5Sget_simple_extent_npoints(s)));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.values.data());
    H5Sclose(s);
    r.origin = double_attribute(d, "origin");
    r.spacing = double_attribute(d, "spacing");
    const hid_t c = H5Aopen(d, "centring", H5P_DEFAULT);
    if (c >= 0) {
      const hid_t t = H5Aget_type(c);
      std::string text(H5Tget_size(t), '\0');
      const hid_t m = H5Tcopy(H5T_C_S1);
      H5Tset_size(m, text.size());
      H5Aread(c, m, text.data());
      r.centring = text.c_str();
      H5Tclose(m);
      H5Tclose(t);
      H5Aclose(c);
    }
    const hid_t n = H5Aopen(d, "components", H5P_DEFAULT);
    if (n >= 0) {
      H5Aread(n, H5T_NATIVE_INT, &r.components);
      H5Aclose(n);
    }
    H5Dclose(d);
  }
  H5Fclose(f);
  return r;
}

// A value that differs in every index and component, so swapped axes cannot pass.
double pattern(int i, int j, int k, int c) {
  return 1000.0 * c + 100.0 * k + 10.0 * j + i + 0.25;
}

template <class T>
Field<T> filled(const Grid& g, Centring centring, int ncomp) {
  Field<T> f(g, centring, ncomp, 1, Device::cpu);
  const FieldView<T> v = f.view();
  const Box b = f.interior();
  for (int c = 0; c < ncomp; ++c)
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i) v(i, j, k, c) = T(pattern(i, j, k, c));
  return f;
}

// Checks a dataset against pattern() over box b with `stored` values per point.
void expect_pattern(const Dataset& d, const Box& b, int ncomp, int stored, int dims) {
  std::vector<hsize_t> shape;
  for (int a = dims - 1; a >= 0; --a) shape.push_back(hsize_t(b.extent(a)));
  if (stored > 1) shape.push_back(hsize_t(stored));
  ASSERT_EQ(d.shape, shape);
  std::size_t p = 0;
  for (int k = b.lo[2]; k <= b.hi[2]; ++k)
    for (int j = b.lo[1]; j <= b.hi[1]; ++j)
      for (int i = b.lo[0]; i <= b.hi[0]; ++i, ++p)
        for (int c = 0; c < stored; ++c)
          ASSERT_EQ(d.values[p * stored + c], c < ncomp ? pattern(i, j, k, c) : 0.0)
              << i << " " << j << " " << k << " " << c;
}

}  // namespace

TEST(OutputFields, NodeCellFaceAndVectorFieldsReadBack) {
  Scratch dir;
  // Unequal counts, spacings and origins.
  const Grid g = Grid::box(3, {6, 5, 4}, {-1.0, 0.5, 2.0}, {2.0, 1.5, 5.0});
  FieldFileWriter w(g);
  w.add("p", filled<double>(g, Centring::node(), 1))
      .add("rho", filled<float>(g, Centring::cell(), 1))
      .add("u", filled<double>(g, Centring::face(0), 1))
      .add("m", filled<double>(g, Centring::cell(), 3));
  const FieldFilePaths paths = w.write(dir.path().string(), "fields");

  const Dataset p = read_dataset(paths.h5, "p");
  expect_pattern(p, g.box(Centring::node()), 1, 1, 3);
  EXPECT_EQ(p.centring, "node");
  EXPECT_EQ(p.components, 1);
  EXPECT_EQ(p.origin, (std::vector<double>{-1.0, 0.5, 2.0}));
  EXPECT_EQ(p.spacing, (std::vector<double>{0.6, 0.25, 1.0}));

  const Dataset rho = read_dataset(paths.h5, "rho");
  expect_pattern(rho, g.box(Centring::cell()), 1, 1, 3);
  EXPECT_EQ(rho.centring, "cell");
  ASSERT_EQ(rho.origin.size(), 3u);
  EXPECT_DOUBLE_EQ(rho.origin[0], -0.7);  // first cell centre
  EXPECT_DOUBLE_EQ(rho.origin[1], 0.625);
  EXPECT_DOUBLE_EQ(rho.origin[2], 2.5);

  const Dataset u = read_dataset(paths.h5, "u");
  expect_pattern(u, g.box(Centring::face(0)), 1, 1, 3);
  EXPECT_EQ(u.centring, "face-x");
  EXPECT_DOUBLE_EQ(u.origin[0], -1.0);  // node in x, cell centre in y and z
  EXPECT_DOUBLE_EQ(u.origin[1], 0.625);
  EXPECT_DOUBLE_EQ(u.origin[2], 2.5);

  const Dataset m = read_dataset(paths.h5, "m");
  expect_pattern(m, g.box(Centring::cell()), 3, 3, 3);
  EXPECT_EQ(m.components, 3);

  const std::string x = read_text(paths.xdmf);
  EXPECT_TRUE(contains(x, "<Attribute Name=\"p\" AttributeType=\"Scalar\" Center=\"Node\">")) << x;
  EXPECT_TRUE(contains(x, "<Attribute Name=\"rho\" AttributeType=\"Scalar\" Center=\"Cell\">"))
      << x;
  EXPECT_TRUE(contains(x,
                       "Dimensions=\"3 4 5\" NumberType=\"Float\" Precision=\"4\" "
                       "Format=\"HDF\">fields.h5:/rho<"))
      << x;
  EXPECT_TRUE(contains(x, "<Attribute Name=\"m\" AttributeType=\"Vector\" Center=\"Cell\">")) << x;
  EXPECT_TRUE(contains(x,
                       "Dimensions=\"3 4 5 3\" NumberType=\"Float\" Precision=\"8\" "
                       "Format=\"HDF\">fields.h5:/m<"))
      << x;
  // The face field lives on its own mesh of face centres, in a spatial collection.
  EXPECT_TRUE(contains(x, "GridType=\"Collection\" CollectionType=\"Spatial\"")) << x;
  EXPECT_TRUE(contains(x, "<Grid Name=\"face-x\" GridType=\"Uniform\">")) << x;
  EXPECT_TRUE(contains(x, "TopologyType=\"3DCoRectMesh\" Dimensions=\"3 4 6\"")) << x;
  EXPECT_TRUE(contains(x, ">2.5 0.625 -1</DataItem>")) << x;
  EXPECT_TRUE(contains(x, "<Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">")) << x;
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(OutputFields, PlaneVectorsGetAZeroThirdComponent) {
  Scratch dir;
  const Grid g = Grid::box(2, {7, 5, 1}, {-1.0, 0.5, 0}, {2.0, 1.5, 0});
  FieldFileWriter w(g);
  w.add("v", filled<double>(g, Centring::node(), 2));
  const FieldFilePaths paths = w.write(dir.path().string(), "plane");
  const Dataset v = read_dataset(paths.h5, "v");
  expect_pattern(v, g.box(Centring::node()), 2, 3, 2);
  EXPECT_EQ(v.components, 2);
  const std::string x = read_text(paths.xdmf);
  EXPECT_TRUE(contains(x, "<Attribute Name=\"v\" AttributeType=\"Vector\" Center=\"Node\">")) << x;
  EXPECT_TRUE(contains(x, "Dimensions=\"5 7 3\"")) << x;
}

TEST(OutputFields, OutsideNodesAreNaNInEveryField) {
  Scratch dir;
  const Grid g = Grid::box(2, {5, 4, 1}, {0, 0, 0}, {1, 1, 0});
  std::vector<std::uint8_t> outside(20, 0);
  // Nodes (3..4, 2..3) are outside: one whole cell (3, 2) has all its corners outside.
  for (int j = 2; j < 4; ++j)
    for (int i = 3; i < 5; ++i) outside[i + 5 * j] = 1;
  FieldFileWriter w(g);
  w.add("u", filled<double>(g, Centring::node(), 1))
      .add("c", filled<float>(g, Centring::cell(), 1));
  w.blank_outside(outside);
  w.add("v", filled<double>(g, Centring::node(), 3));  // added after: blanked too
  const FieldFilePaths paths = w.write(dir.path().string(), "cut");
  const Dataset u = read_dataset(paths.h5, "u"), c = read_dataset(paths.h5, "c"),
                v = read_dataset(paths.h5, "v");
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 5; ++i) {
      const std::size_t n = std::size_t(i + 5 * j);
      EXPECT_EQ(std::isnan(u.values[n]), outside[n] != 0) << i << " " << j;
      if (!outside[n]) {
        EXPECT_EQ(u.values[n], pattern(i, j, 0, 0));
      }
      for (int k = 0; k < 3; ++k) EXPECT_EQ(std::isnan(v.values[3 * n + k]), outside[n] != 0);
    }
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(std::isnan(c.values[std::size_t(i + 4 * j)]), i == 3 && j == 2) << i << " " << j;
}

TEST(OutputFields, SolveWithCutOutWritesNaNOutsideInSolutionAndError) {
  Scratch dir;
  const Outcome o =
      shell("$GS poisson --n 33 --mask hole --device cpu -q --out " + dir.path().string());
  ASSERT_EQ(o.code, 0) << o.output;
  ModelProblem m;
  m.n = 33;
  m.mask = "hole";
  const Discretization<double> d = assemble<double>(make_model_problem(m), Device::cpu);
  const std::vector<std::uint8_t> kinds = d.op.mask.to_vector();
  ASSERT_EQ(kinds.size(), 33u * 33u);
  const Dataset u = read_dataset(dir / "solution.h5", "u"),
                e = read_dataset(dir / "solution.h5", "error");
  ASSERT_EQ(u.values.size(), kinds.size());
  ASSERT_EQ(e.values.size(), kinds.size());
  std::size_t outside = 0;
  for (std::size_t n = 0; n < kinds.size(); ++n) {
    const bool out = kinds[n] == std::uint8_t(NodeKind::outside);
    outside += out;
    EXPECT_EQ(std::isnan(u.values[n]), out) << n;
    EXPECT_EQ(std::isnan(e.values[n]), out) << n;
  }
  EXPECT_GT(outside, 100u);
}
