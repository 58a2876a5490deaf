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


def poisson_sources(n, dtype=np.float64):
    x = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(x, x)
    return (2 * np.pi**2 * np.sin(np.pi * X) * np.sin(np.pi * Y) + 3 * X * Y).astype(dtype)


def test_a_cupy_source_is_solved_on_its_gpu_in_place():
    n = 129
    f = poisson_sources(n)
    s = gridsolve.Solver((n, n), device="cuda", solver="mgcg", tol=1e-10)
    gf = cp.asarray(f)
    x = cp.full((n, n), 7.0)
    pointers = gf.data.ptr, x.data.ptr
    pool = cp.get_default_memory_pool()
    used = pool.used_bytes()
    sol = s.solve(gf, x, check=True)
    assert sol.u is x and (gf.data.ptr, x.data.ptr) == pointers
    assert sol.report["arrays_copied"] == 0 and sol.report["device"] == "cuda"
    assert pool.used_bytes() == used  # CuPy made no copy either
    # The same solver on host arrays (copied in and out): the same iterates, value for value.
    np.testing.assert_array_equal(cp.asnumpy(x), s.solve(f).u)
    # Against the CPU's solve of the same problem: both to 1e-10 of the residual.
    cpu = gridsolve.Solver((n, n), solver="mgcg", tol=1e-10).solve(f).u
    np.testing.assert_allclose(cp.asnumpy(x), cpu, rtol=0, atol=1e-9 * np.abs(cpu).max())
    assert np.abs(cpu).max() > 0.5


def test_gpu_sources_in_float_and_from_a_stream_and_torch():
    n = 65
    f = poisson_sources(n, np.float32)
    s = gridsolve.Solver((n, n), device="cuda", precision="float", solver="mgcg")
    want = s.solve(f).u
    assert want.dtype == np.float32
    with cp.cuda.Stream(non_blocking=True):  # f written on another stream just before
        gf = cp.asarray(f) * 2.0
        u = s.solve(gf).u
    assert isinstance(u, cp.ndarray) and u.dtype == cp.float32
    np.testing.assert_allclose(cp.asnumpy(u), 2.0 * want, rtol=0, atol=1e-5 * np.abs(want).max())
    torch = pytest.importorskip("torch")
    tf = torch.as_tensor(f, device="cuda")
    tu = s.solve(tf).u
    assert isinstance(tu, torch.Tensor) and tu.is_cuda and tu.dtype == torch.float32
    np.testing.assert_array_equal(tu.cpu().numpy(), want)


def test_solve_takes_a_cupy_source_and_returns_a_cupy_solution():
    n = 65
    f = poisson_sources(n)
    u = gridsolve.solve(cp.asarray(f), solver="mgcg", tol=1e-10).u
    assert isinstance(u, cp.ndarray)
    cpu = gridsolve.solve(f, solver="mgcg", tol=1e-10).u
    np.testing.assert_allclose(cp.asnumpy(u), cpu, rtol=0, atol=1e-9 * np.abs(cpu).max())


def test_gpu_sources_errors():
    n = 17
    gf = cp.ones((n, n))
    with pytest.raises(ValueError, match="set it up with device='cuda'"):
        gridsolve.Solver((n, n)).solve(gf)
    with pytest.raises(ValueError, match="zero data on every side"):
        gridsolve.solve(gf, boundary={"x_low": 1.0})
    s = gridsolve.Solver((n, n), device="cuda")
    with pytest.raises(ValueError, match="float64 array of shape"):
        s.solve(gf, cp.empty((n, n), cp.float32))
    bad = cp.ones((n, n))
    bad[4, 4] = cp.nan
    with pytest.raises(ValueError, match="not finite"):
        s.solve(bad)
