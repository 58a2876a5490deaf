// AxisTransforms on the GPU: FFTW's real-to-real kinds built from cuFFT real/complex
// transforms of extended lines (odd / even extensions, twiddles, halfcomplex packing).
#include <cuda_runtime.h>
#include <cufft.h>
#include <fmt/format.h>

#include <vector>

#include "gridsolve/core/error.hpp"
#include "gridsolve/exec/cuda_check.hpp"
#include "gridsolve/exec/memory.hpp"
#include "gridsolve/solve/fast_poisson/axis_transforms.hpp"

namespace gridsolve::fast_poisson {

namespace {

void check_fft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(fmt::format("cuFFT {} failed (error {})", what, int(r)), Error::Kind::runtime);
}

// The eight transforms, each computed as pre-processing, one cuFFT call, post-processing.
enum class Op { rodft00, redft00, redft10, rodft10, redft01, rodft01, r2hc, hc2r };

template <class T>
struct Complex;
template <>
struct Complex<double> {
  using type = cufftDoubleComplex;
};
template <>
struct Complex<float> {
  using type = cufftComplex;
};

// Where line l's element n lives in the extension buffers: lines of an x transform
// are contiguous; other axes keep lines interleaved (adjacent threads, adjacent lines).
struct Lines {
  std::int64_t count;  // lines = outer * inner
  std::int64_t inner;  // stride of the axis in the data
  int m;               // data length
  int len;             // real extension length L
  int clen;            // complex length L / 2 + 1
  __host__ __device__ std::int64_t data(std::int64_t l, int j) const {
    const std::int64_t o = l / inner, i = l % inner;
    return (o * m + j) * inner + i;
  }
  __host__ __device__ std::int64_t ext(std::int64_t l, int n, int length) const {
    return inner == 1 ? l * length + n : std::int64_t(n) * count + l;
  }
  // Thread t -> (line, index) so that consecutive threads touch consecutive addresses.
  __host__ __device__ void split(std::int64_t t, int length, std::int64_t& l, int& n) const {
    if (inner == 1)
      l = t / length, n = int(t % length);
    else
      n = int(t / count), l = t % count;
  }
};

template <class T>
__global__ void pre_real(Op op, Lines ln, const T* x, T* z) {
  const std::int64_t total = ln.count * ln.len;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t l;
    int n;
    ln.split(t, ln.len, l, n);
    const int m = ln.m, L = ln.len;
    T v = 0;
    switch (op) {
      case Op::rodft00:  // odd extension about nodes -1 and m
        if (n >= 1 && n <= m)
          v = x[ln.data(l, n - 1)];
        else if (n >= m + 2)
          v = -x[ln.data(l, L - n - 1)];
        break;
      case Op::redft00:  // even extension about nodes 0 and m - 1
        v = x[ln.data(l, n < m ? n : L - n)];
        break;
      case Op::redft10:  // even extension about half-nodes
        v = x[ln.data(l, n < m ? n : L - 1 - n)];
        break;
      case Op::rodft10: {  // DST-II(x)_k = DCT-II((-1)^j x_j)_{m-1-k}
        const int j = n < m ? n : L - 1 - n;
        v = (j & 1) ? -x[ln.data(l, j)] : x[ln.data(l, j)];
        break;
      }
      default:  // r2hc
        v = x[ln.data(l, n)];
    }
    z[ln.ext(l, n, L)] = v;
  }
}

template <class T, class C>
__global__ void post_complex(Op op, Lines ln, const C* f, T* x) {
  const std::int64_t total = ln.count * ln.m;
  const double pi = 3.14159265358979323846;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t l;
    int k;
    ln.split(t, ln.m, l, k);
    const int m = ln.m, Lc = ln.clen;
    T y = 0;
    switch (op) {
      case Op::rodft00:
        y = -f[ln.ext(l, k + 1, Lc)].y;
        break;
      case Op::redft00:
        y = f[ln.ext(l, k, Lc)].x;
        break;
      case Op::redft10:
      case Op::rodft10: {
        const int q = op == Op::redft10 ? k : m - 1 - k;
        const C v = f[ln.ext(l, q, Lc)];
        double s, c;
        sincospi(double(q) / (2.0 * m), &s, &c);
        y = T(v.x * c + v.y * s);
        (void)pi;
        break;
      }
      default: {  // r2hc: r0 .. r_{m/2}, then i_{(m+1)/2-1} .. i_1
        if (k <= m / 2)
          y = f[ln.ext(l, k, Lc)].x;
        else
          y = f[ln.ext(l, m - k, Lc)].y;
      }
    }
    x[ln.data(l, k)] = y;
  }
}

template <class T, class C>
__global__ void pre_complex(Op op, Lines ln, const T* x, C* v) {
  const std::int64_t total = ln.count * ln.clen;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t l;
    int j;
    ln.split(t, ln.clen, l, j);
    const int m = ln.m;
    C out;
    out.x = 0, out.y = 0;
    switch (op) {
      case Op::redft01:
      case Op::rodft01:  // DST-III(x)_k = (-1)^k DCT-III(reversed x)_k
        if (j < m) {
          const T xv = x[ln.data(l, op == Op::redft01 ? j : m - 1 - j)];
          double s, c;
          sincospi(double(j) / (2.0 * m), &s, &c);
          out.x = T(xv * c), out.y = T(xv * s);
        }
        break;
      default:  // hc2r
        if (j == 0)
          out.x = x[ln.data(l, 0)];
        else if (2 * j == m)
          out.x = x[ln.data(l, j)];
        else if (2 * j < m)
          out.x = x[ln.data(l, j)], out.y = x[ln.data(l, m - j)];
    }
    v[ln.ext(l, j, ln.clen)] = out;
  }
}

template <class T>
__global__ void post_real(Op op, Lines ln, const T* z, T* x) {
  const std::int64_t total = ln.count * ln.m;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t l;
    int n;
    ln.split(t, ln.m, l, n);
    T v = z[ln.ext(l, n, ln.len)];
    if (op == Op::rodft01 && (n & 1)) v = -v;
    x[ln.data(l, n)] = v;
  }
}

unsigned blocks_for(std::int64_t total) {
  return unsigned(std::min<std::int64_t>((total + 255) / 256, 65535 * 8));
}

template <class T>
class CufftTransforms final : public AxisTransforms<T> {
  using C = typename Complex<T>::type;
  struct Axis {
    AxisKind kind;
    Lines lines_r2c{}, lines_c2r{};
    cufftHandle r2c = 0, c2r = 0;
    bool has_r2c = false, has_c2r = false;
  };

 public:
  explicit CufftTransforms(const TransformShape& s) {
    std::size_t real_need = 0, cplx_need = 0;
    for (int a = 0; a < 3; ++a) {
      if (!s.transformed[a]) continue;
      Axis ax;
      ax.kind = s.kind[a];
      std::int64_t inner = 1, outer = 1;
      for (int b = 0; b < a; ++b) inner *= s.m[b];
      for (int b = a + 1; b < 3; ++b) outer *= s.m[b];
      const int m = s.m[a];
      const Op f = forward_op(ax.kind), b = backward_op(ax.kind);
      for (Op op : {f, b}) {
        const bool r2c = uses_r2c(op);
        const int L = extension(op, m);
        Lines ln{outer * inner, inner, m, L, L / 2 + 1};
        real_need = std::max(real_need, std::size_t(ln.count) * L);
        cplx_need = std::max(cplx_need, std::size_t(ln.count) * ln.clen);
        if (r2c && !ax.has_r2c) {
          ax.r2c = plan(ln, true);
          ax.lines_r2c = ln;
          ax.has_r2c = true;
        } else if (!r2c && !ax.has_c2r) {
          ax.c2r = plan(ln, false);
          ax.lines_c2r = ln;
          ax.has_c2r = true;
        }
      }
      axes_.push_back(ax);
    }
    real_ = Buffer<T>(Device::cuda, real_need);
    cplx_ = Buffer<C>(Device::cuda, cplx_need);
  }
  ~CufftTransforms() override {
    for (Axis& a : axes_) {
      if (a.has_r2c) cufftDestroy(a.r2c);
      if (a.has_c2r) cufftDestroy(a.c2r);
    }
  }
  void forward(T* data) override {
    for (Axis& a : axes_) apply(a, forward_op(a.kind), data);
  }
  void backward(T* data) override {
    for (Axis& a : axes_) apply(a, backward_op(a.kind), data);
  }
  const char* backend() const override { return "cufft"; }

 private:
  static Op forward_op(AxisKind k) {
    switch (k) {
      case AxisKind::dd:
        return Op::rodft00;
      case AxisKind::nn:
        return Op::redft00;
      case AxisKind::nd:
        return Op::redft01;
      case AxisKind::dn:
        return Op::rodft01;
      default:
        return Op::r2hc;
    }
  }
  static Op backward_op(AxisKind k) {
    switch (k) {
      case AxisKind::dd:
        return Op::rodft00;
      case AxisKind::nn:
        return Op::redft00;
      case AxisKind::nd:
        return Op::redft10;
      case AxisKind::dn:
        return Op::rodft10;
      default:
        return Op::hc2r;
    }
  }
  static bool uses_r2c(Op op) { return op != Op::redft01 && op != Op::rodft01 && op != Op::hc2r; }
  static int extension(Op op, int m) {
    switch (op) {
      case Op::rodft00:
        return 2 * (m + 1);
      case Op::redft00:
        return 2 * (m - 1);
      case Op::r2hc:
      case Op::hc2r:
        return m;
      default:
        return 2 * m;
    }
  }
  static cufftHandle plan(const Lines& ln, bool r2c) {
    cufftHandle h = 0;
    int len = ln.len;
    int rembed = ln.len, cembed = ln.clen;
    const bool contiguous = ln.inner == 1;
    const int stride = contiguous ? 1 : int(ln.count);
    const int rdist = contiguous ? ln.len : 1, cdist = contiguous ? ln.clen : 1;
    const bool dbl = sizeof(T) == 8;
    const cufftType type = r2c ? (dbl ? CUFFT_D2Z : CUFFT_R2C) : (dbl ? CUFFT_Z2D : CUFFT_C2R);
    check_fft(r2c ? cufftPlanMany(&h, 1, &len, &rembed, stride, rdist, &cembed, stride, cdist, type,
                                  int(ln.count))
                  : cufftPlanMany(&h, 1, &len, &cembed, stride, cdist, &rembed, stride, rdist, type,
                                  int(ln.count)),
              "plan");
    return h;
  }
  void apply(Axis& a, Op op, T* data) {
    const int threads = 256;
    if (uses_r2c(op)) {
      const Lines& ln = a.lines_r2c;
      pre_real<T><<<blocks_for(ln.count * ln.len), threads>>>(op, ln, data, real_.data());
      cuda::check_launch("transform pre-processing");
      if constexpr (sizeof(T) == 8)
        check_fft(cufftExecD2Z(a.r2c, reinterpret_cast<cufftDoubleReal*>(real_.data()),
                               reinterpret_cast<cufftDoubleComplex*>(cplx_.data())),
                  "D2Z");
      else
        check_fft(cufftExecR2C(a.r2c, reinterpret_cast<cufftReal*>(real_.data()),
                               reinterpret_cast<cufftComplex*>(cplx_.data())),
                  "R2C");
      post_complex<T, C><<<blocks_for(ln.count * ln.m), threads>>>(op, ln, cplx_.data(), data);
      cuda::check_launch("transform post-processing");
    } else {
      const Lines& ln = a.lines_c2r;
      pre_complex<T, C><<<blocks_for(ln.count * ln.clen), threads>>>(op, ln, data, cplx_.data());
      cuda::check_launch("transform pre-processing");
      if constexpr (sizeof(T) == 8)
        check_fft(cufftExecZ2D(a.c2r, reinterpret_cast<cufftDoubleComplex*>(cplx_.data()),
                               reinterpret_cast<cufftDoubleReal*>(real_.data())),
                  "Z2D");
      else
        check_fft(cufftExecC2R(a.c2r, reinterpret_cast<cufftComplex*>(cplx_.data()),
                               reinterpret_cast<cufftReal*>(real_.data())),
                  "C2R");
      post_real<T><<<blocks_for(ln.count * ln.m), threads>>>(op, ln, real_.data(), data);
      cuda::check_launch("transform post-processing");
    }
  }

  std::vector<Axis> axes_;
  Buffer<T> real_;
  Buffer<C> cplx_;
};

}  // namespace

template <class T>
std::unique_ptr<AxisTransforms<T>> make_cufft_transforms(const TransformShape& shape) {
  return std::make_unique<CufftTransforms<T>>(shape);
}

template std::unique_ptr<AxisTransforms<float>> make_cufft_transforms<float>(const TransformShape&);
template std::unique_ptr<AxisTransforms<double>> make_cufft_transforms<double>(
    const TransformShape&);

}  // namespace gridsolve::fast_poisson
