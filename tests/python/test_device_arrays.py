"""The tridiagonal solvers and the sorting networks on GPU arrays (CuPy, PyTorch), solved
in the GPU's memory: in place by device pointer, no pass through the host. Skipped where
no GPU or no CuPy is (CI); run on the GPU machines."""
import numpy as np
import pytest

import gridsolve
from gridsolve import _core

cp = pytest.importorskip("cupy")
if not gridsolve.cuda_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)


def rows(count, n, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = -1.0 - rng.random((count, n))
    c = -1.0 - rng.random((count, n))
    b = 4.5 + rng.random((count, n))  # diagonally dominant
    d = rng.standard_normal((count, n))
    return tuple(v.astype(dtype) for v in (a, b, c, d))


def dense_solve(a, b, c, d):
    m = np.diag(b.astype(np.float64)) + np.diag(a[1:], -1) + np.diag(c[:-1], 1)
    return np.linalg.solve(m, d)


@pytest.mark.parametrize("method", ["automatic", "thomas", "pcr", "partitioned"])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_cupy_batch_matches_a_dense_solve(method, dtype, tol):
    a, b, c, d = rows(64, 129, 5, dtype)
    ga, gb, gc, gd = (cp.asarray(v) for v in (a, b, c, d))
    x = gridsolve.tridiag(ga, gb, gc, gd, method=method)
    assert isinstance(x, cp.ndarray) and x.dtype == dtype and x.shape == d.shape
    got = cp.asnumpy(x)
    for s in range(0, 64, 7):
        np.testing.assert_allclose(got[s], dense_solve(a[s], b[s], c[s], d[s]), rtol=tol,
                                   atol=tol)
    np.testing.assert_array_equal(cp.asnumpy(gd), d)  # the inputs are left alone


def test_cupy_arrays_are_solved_in_place_by_device_pointer():
    a, b, c, d = rows(8, 1000, 6)
    ga, gb, gc, gd = (cp.asarray(v) for v in (a, b, c, d))
    pointer = gd.data.ptr
    _core.tridiag(ga, gb, gc, gd, "thomas", "cuda")  # the library's call, on the array itself
    assert gd.data.ptr == pointer
    np.testing.assert_allclose(cp.asnumpy(gd)[3], dense_solve(a[3], b[3], c[3], d[3]),
                               rtol=1e-12, atol=1e-12)


def test_work_queued_on_a_cupy_stream_is_waited_for():
    # d is produced on a non-default stream just before the call: the library must see it.
    a, b, c, d = rows(256, 4096, 7)
    ga, gb, gc = (cp.asarray(v) for v in (a, b, c))
    with cp.cuda.Stream(non_blocking=True):
        gd = cp.asarray(d) * 3.0
        x = gridsolve.tridiag(ga, gb, gc, gd)
    np.testing.assert_allclose(cp.asnumpy(x)[100], dense_solve(a[100], b[100], c[100],
                                                               3.0 * d[100]), rtol=1e-11)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32])
def test_cupy_keys_sort_like_cupy(dtype):
    rng = np.random.default_rng(8)
    keys = cp.asarray((rng.standard_normal((32, 1000)) * 1000).astype(dtype))
    out = gridsolve.sort(keys)
    assert isinstance(out, cp.ndarray)
    cp.testing.assert_array_equal(out, cp.sort(keys, axis=1))
    pointer = keys.data.ptr
    _core.sort(keys, "bitonic", "descending", "cuda")
    assert keys.data.ptr == pointer
    cp.testing.assert_array_equal(keys, cp.sort(out, axis=1)[:, ::-1])


def test_torch_tensors_too():
    torch = pytest.importorskip("torch")
    a, b, c, d = rows(16, 200, 9)
    ta, tb, tc, td = (torch.as_tensor(v, device="cuda") for v in (a, b, c, d))
    x = gridsolve.tridiag(ta, tb, tc, td)
    assert isinstance(x, torch.Tensor) and x.is_cuda
    np.testing.assert_allclose(x.cpu().numpy()[5], dense_solve(a[5], b[5], c[5], d[5]),
                               rtol=1e-12, atol=1e-12)


def test_device_arrays_errors():
    a, b, c, d = rows(2, 10, 10)
    ga, gb, gc, gd = (cp.asarray(v) for v in (a, b, c, d))
    with pytest.raises(ValueError, match="device must be 'cuda' or 'auto'"):
        gridsolve.tridiag(ga, gb, gc, gd, device="cpu")
    with pytest.raises(ValueError, match="must all be host arrays or all GPU arrays"):
        gridsolve.tridiag(a, gb, gc, gd)
