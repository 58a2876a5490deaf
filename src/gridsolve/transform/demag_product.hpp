// The demag tensor times a magnetization's spectrum at one point: the product step shared
// by the one-process convolution and the convolution split over ranks.
#pragma once
#include <cstdint>

#include "gridsolve/core/hd.hpp"

namespace gridsolve::demag {

// H(k) = K(k) M(k) at entry s of the three components' interleaved complex spectra, in
// place. K is real and symmetric, stored for ky <= py/2 and kz <= pz/2 (tensor_spectrum):
// component c at K[c * comp + r]; fy / fz say the point lies in the other half along y / z,
// where the components odd along that axis change sign. A single layer (thin) couples z
// with neither x nor y.
template <class T>
GRIDSOLVE_HD inline void multiply_by_tensor(const T* K, std::int64_t comp, std::int64_t r,
                                            bool fy, bool fz, bool thin, T* sx, T* sy, T* sz,
                                            std::int64_t s) {
  const T kxx = K[r], kyy = K[comp + r], kzz = K[2 * comp + r];
  const T kxy = fy ? -K[3 * comp + r] : K[3 * comp + r];
  const T mxr = sx[s], mxi = sx[s + 1], myr = sy[s], myi = sy[s + 1];
  const T mzr = sz[s], mzi = sz[s + 1];
  if (thin) {
    sx[s] = kxx * mxr + kxy * myr;
    sx[s + 1] = kxx * mxi + kxy * myi;
    sy[s] = kxy * mxr + kyy * myr;
    sy[s + 1] = kxy * mxi + kyy * myi;
    sz[s] = kzz * mzr;
    sz[s + 1] = kzz * mzi;
    return;
  }
  const T kxz = fz ? -K[4 * comp + r] : K[4 * comp + r];
  const T kyz = (fy != fz) ? -K[5 * comp + r] : K[5 * comp + r];
  sx[s] = kxx * mxr + kxy * myr + kxz * mzr;
  sx[s + 1] = kxx * mxi + kxy * myi + kxz * mzi;
  sy[s] = kxy * mxr + kyy * myr + kyz * mzr;
  sy[s + 1] = kxy * mxi + kyy * myi + kyz * mzi;
  sz[s] = kxz * mxr + kyz * myr + kzz * mzr;
  sz[s + 1] = kxz * mxi + kyz * myi + kzz * mzi;
}

}  // namespace gridsolve::demag
