"""Solver: one operator set up once, many sources; coefficients as arrays; refreshed in place."""
import numpy as np
import pytest

import gridsolve


def grid(n):
    x = np.linspace(0.0, 1.0, n)
    return np.meshgrid(x, x)


def test_a_solver_set_up_once_gives_each_sources_answer():
    n = 97
    X, Y = grid(n)
    s = gridsolve.Solver((n, n), solver="mgcg", tol=1e-10)
    assert s.setup_seconds > 0
    for m in (1, 2, 3):
        f = np.sin(m * np.pi * X) * np.sin((m + 1) * np.pi * Y) + 0.1 * X
        once = s.solve(f, check=True)
        alone = gridsolve.solve(f, solver="mgcg", tol=1e-10)
        assert once.report["iterations"] == alone.report["iterations"]
        np.testing.assert_array_equal(once.u, alone.u)
        assert np.abs(once.u).max() > 1e-3  # a solution worth comparing


def test_new_coefficients_refresh_the_solver():
    n = 65
    X, Y = grid(n)
    f = np.cos(3 * X) * np.sin(np.pi * Y) + 1.0
    s = gridsolve.Solver((n, n), k=1.0, solver="mgcg", tol=1e-10)
    before = s.solve(f).u
    k = 1.0 + 4.0 * X * Y
    s.update(k)
    after = s.solve(f)
    fresh = gridsolve.solve(f, k=k, solver="mgcg", tol=1e-10)
    np.testing.assert_allclose(after.u, fresh.u, rtol=0, atol=1e-12)
    assert np.abs(after.u - before).max() > 1e-3  # the coefficients did change the answer


def test_coefficient_arrays_converge_at_second_order():
    # u = sin(pi x) sin(pi y), k = 1 + x y: f = -div(k grad u) with zero sides.
    errors = []
    for n in (33, 65):
        X, Y = grid(n)
        k = 1.0 + X * Y
        u = np.sin(np.pi * X) * np.sin(np.pi * Y)
        ux = np.pi * np.cos(np.pi * X) * np.sin(np.pi * Y)
        uy = np.pi * np.sin(np.pi * X) * np.cos(np.pi * Y)
        f = -(Y * ux + X * uy) + 2 * np.pi**2 * k * u
        s = gridsolve.solve(f, k=k, solver="pcg", tol=1e-12)
        errors.append(np.abs(s.u - u).max())
    order = np.log2(errors[0] / errors[1])
    assert 1.8 < order < 2.2, errors


@pytest.mark.parametrize("bad, message", [
    (dict(shape=(5,)), "shape must be"),
    (dict(shape=(9, 9), solver="nosuch"), "unknown solver"),
    (dict(shape=(9, 9), sides="sticky"), "dirichlet, neumann, robin or periodic"),
    (dict(shape=(9, 9), k=np.ones((8, 9))), "k must have the solver's shape"),
])
def test_bad_settings_are_value_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        gridsolve.Solver(**bad)


def test_sources_and_coefficients_of_another_shape_are_refused():
    s = gridsolve.Solver((9, 9))
    with pytest.raises(ValueError, match="f must have the solver's shape"):
        s.solve(np.ones((9, 8)))
    with pytest.raises(ValueError, match="k must have the solver's shape"):
        s.update(np.ones((3, 3)))


def test_float_precision_and_three_dimensions():
    n = 17
    x = np.linspace(0.0, 1.0, n)
    Z, Y, X = np.meshgrid(x, x, x, indexing="ij")
    f = 3 * np.pi**2 * np.sin(np.pi * X) * np.sin(np.pi * Y) * np.sin(np.pi * Z)
    s = gridsolve.Solver((n, n, n), precision="float", solver="mgcg")
    u = s.solve(f, check=True).u
    assert u.shape == (n, n, n)
    exact = np.sin(np.pi * X) * np.sin(np.pi * Y) * np.sin(np.pi * Z)
    assert np.abs(u - exact).max() < 1e-2


def test_the_compiled_core_has_type_stubs():
    from pathlib import Path
    here = Path(gridsolve.__file__).parent
    stub = (here / "_core.pyi").read_text()
    assert "class PoissonSolver" in stub and "def model_poisson" in stub
    assert (here / "py.typed").exists()


def test_a_thousand_solves_leak_nothing():
    import resource
    import tracemalloc
    # 65^2 nodes: a solution kept by mistake would grow the process by 34 KB a solve,
    # 68 MB over the loop, well past the bound below.
    n = 65
    X, Y = grid(n)
    f = np.sin(np.pi * X) * np.sin(np.pi * Y)
    s = gridsolve.Solver((n, n), solver="mgcg")
    for _ in range(50):  # warm up: allocator pools and first-time caches
        s.solve(f)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    tracemalloc.start()
    first, _ = tracemalloc.get_traced_memory()
    for _ in range(1000):
        u = s.solve(f).u
        gridsolve.solve(f, solver="mgcg")
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert u.shape == (n, n)
    assert current - first < 200_000             # Python objects: nothing kept per solve
    assert rss_after - rss_before < 20_000        # the process: under 20 MB for 2000 solves


def test_the_solution_is_written_in_place_into_x():
    n = 65
    X, Y = grid(n)
    f = np.sin(np.pi * X) * np.cos(2 * Y) + X
    s = gridsolve.Solver((n, n), solver="mgcg", tol=1e-10)
    x = np.full((n, n), 7.0)
    pointer = x.ctypes.data
    sol = s.solve(f, x)
    assert sol.u is x and x.ctypes.data == pointer
    assert sol.report["arrays_copied"] == 0  # f read and u written where they lie
    np.testing.assert_array_equal(x, gridsolve.solve(f, solver="mgcg", tol=1e-10).u)
    for bad, message in [(np.empty((n, n - 1)), "shape"), (np.empty((n, n), np.float32), "float64"),
                         (np.empty((n, 2 * n))[:, ::2], "not C-contiguous")]:
        with pytest.raises(ValueError, match=message):
            s.solve(f, bad)


@pytest.mark.parametrize("sides, variable_k", [("neumann", False), ("periodic", False),
                                               ("dirichlet", True)])
def test_a_set_up_solver_equals_a_fresh_assembly_on_every_side_kind(sides, variable_k):
    # The set-up solver writes each right-hand side from one assembly's map; a fresh solve
    # assembles the source: the two agree (the singular all-Neumann and periodic operators'
    # net source removed alike).
    n = 49
    X, Y = grid(n)
    f = np.cos(2 * np.pi * X) * np.cos(2 * np.pi * Y) + 0.3 * np.sin(2 * np.pi * X)
    k = 1.0 + X * Y if variable_k else 2.0
    s = gridsolve.Solver((n, n), sides=sides, k=k, solver="mgcg", tol=1e-11)
    got = s.solve(f, check=True).u
    want = gridsolve.solve(f, sides=sides, k=k, solver="mgcg", tol=1e-11, check=True).u
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * np.abs(want).max())
    assert np.abs(want).max() > 1e-3


def test_sources_that_are_not_finite_or_have_no_solution_are_refused():
    n = 17
    s = gridsolve.Solver((n, n))
    f = np.ones((n, n))
    f[0, 0] = np.nan  # a Dirichlet node: not read
    assert s.solve(f).report["converged"]
    f[5, 6] = np.inf
    with pytest.raises(ValueError, match="not finite"):
        s.solve(f)
    singular = gridsolve.Solver((n, n), sides="neumann")
    with pytest.raises(ValueError, match="no solution exists"):
        singular.solve(np.ones((n, n)))


def test_single_precision_takes_and_gives_float32():
    n = 33
    X, Y = grid(n)
    f = 2 * np.pi**2 * np.sin(np.pi * X) * np.sin(np.pi * Y)
    s = gridsolve.Solver((n, n), precision="float", solver="mgcg")
    assert s.dtype == np.float32
    u = s.solve(f, check=True).u  # float64 sources converted
    assert u.dtype == np.float32
    assert np.abs(u - np.sin(np.pi * X) * np.sin(np.pi * Y)).max() < 2e-3
    x = np.empty((n, n), np.float32)
    assert s.solve(f.astype(np.float32), x).u is x
