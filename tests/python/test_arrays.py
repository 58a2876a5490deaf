"""The tridiagonal solvers and the sorting networks on NumPy arrays."""
import numpy as np
import pytest

import gridsolve


def poisson_rows(count, n, rng):
    a = -1.0 - rng.random((count, n))
    c = -1.0 - rng.random((count, n))
    b = 4.5 + rng.random((count, n))  # diagonally dominant
    d = rng.standard_normal((count, n))
    return a, b, c, d


def dense_solve(a, b, c, d):
    n = len(b)
    m = np.diag(b) + np.diag(a[1:], -1) + np.diag(c[:-1], 1)
    return np.linalg.solve(m, d)


@pytest.mark.parametrize("method", ["automatic", "thomas", "cr", "pcr", "partitioned"])
def test_batched_tridiagonal_systems_match_a_dense_solve(method):
    rng = np.random.default_rng(3)
    a, b, c, d = poisson_rows(5, 37, rng)
    x = gridsolve.tridiag(a, b, c, d, method=method)
    for s in range(5):
        np.testing.assert_allclose(x[s], dense_solve(a[s], b[s], c[s], d[s]), rtol=1e-12,
                                   atol=1e-12)
    assert not np.shares_memory(x, d)


def test_one_system_in_float():
    rng = np.random.default_rng(4)
    a, b, c, d = (v[0].astype(np.float32) for v in poisson_rows(1, 100, rng))
    x = gridsolve.tridiag(a, b, c, d)
    assert x.dtype == np.float32 and x.shape == (100,)
    np.testing.assert_allclose(x, dense_solve(a, b, c, d), rtol=1e-4, atol=1e-5)


def test_tridiagonal_errors():
    with pytest.raises(ValueError, match="tridiagonal method"):
        gridsolve.tridiag(np.ones(4), 4 * np.ones(4), np.ones(4), np.ones(4), method="lu")
    with pytest.raises(ValueError, match="same shape"):
        gridsolve.tridiag(np.ones(3), 4 * np.ones(4), np.ones(4), np.ones(4))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32])
@pytest.mark.parametrize("network", ["butterfly", "bitonic"])
def test_sorts_equal_numpys(dtype, network):
    rng = np.random.default_rng(5)
    keys = (rng.standard_normal(1000) * 1000).astype(dtype) if dtype in (np.float32, np.float64) \
        else rng.integers(0, 2**31 - 1, 1000).astype(dtype)
    out = gridsolve.sort(keys, network=network)
    np.testing.assert_array_equal(out, np.sort(keys))
    down = gridsolve.sort(keys, network=network, order="descending")
    np.testing.assert_array_equal(down, np.sort(keys)[::-1])


def test_batched_rows_and_nan_last():
    rng = np.random.default_rng(6)
    rows = rng.standard_normal((64, 100))
    rows[3, 7] = np.nan
    out = gridsolve.sort(rows)
    expected = np.sort(rows, axis=1)  # NumPy puts NaN last too
    np.testing.assert_array_equal(out, expected)


def test_sort_refuses_other_key_types():
    with pytest.raises(TypeError, match="float32, float64, int32 or uint32"):
        gridsolve.sort(np.arange(5, dtype=np.int64))
    with pytest.raises(ValueError, match="network"):
        gridsolve.sort(np.ones(4), network="quick")
