"""gridsolve.Problem: problems with formulas, boundary data, masks and an exact solution,
written as a problem file and solved as `gridsolve solve` solves it."""
import json
import os
import subprocess

import numpy as np
import pytest

import gridsolve

SOURCE_DIR = os.path.join(os.path.dirname(__file__), "..", "..")


def cli_solve(tmp_path, path, *args):
    out = tmp_path / "out"
    subprocess.run([os.environ["GRIDSOLVE_CLI"], "solve", str(path), "--device", "cpu",
                    "--out", str(out), *args], check=True, capture_output=True)
    return json.loads((out / "summary.json").read_text())


def sine(n, **kw):
    return gridsolve.Problem(nodes=(n, n), f="2*pi^2*sin(pi*x)*sin(pi*y)",
                             exact="sin(pi*x)*sin(pi*y)", **kw)


def test_formulas_converge_at_second_order():
    errors = [gridsolve.solve(sine(n), solver="mgcg", device="cpu").max_error
              for n in (33, 65, 129)]
    orders = [np.log2(a / b) for a, b in zip(errors, errors[1:])]
    assert all(abs(p - 2) < 0.05 for p in orders), (errors, orders)


def test_boundary_data_as_formulas_exact_for_quadratics():
    # u = x^2 + 2 y^2 - x y: -div(grad u) = -6, second-order differences are exact for it.
    u = "x^2 + 2*y^2 - x*y"
    faces = {face: u for face in ("x_low", "x_high", "y_low", "y_high")}
    s = gridsolve.solve(gridsolve.Problem(nodes=(41, 33), hi=(2.0, 1.5), f=-6, boundary=faces,
                                          exact=u), solver="mgcg", device="cpu", tol=1e-12)
    assert s.max_error < 1e-9
    assert s.u.shape == (33, 41)
    x = np.linspace(0, 2, 41)
    assert s.u[0] == pytest.approx(x ** 2, abs=1e-12)  # the y_low side holds its data


def test_neumann_and_robin_faces():
    # u = cos(x) e^y on [0, 1]^2: harmonic; du/dn on x_high = -sin(1) e^y, and on y_high
    # du/dn + 2 u = 3 cos(x) e.
    p = lambda n: gridsolve.Problem(
        nodes=(n, n), f=0,
        boundary={"x_low": "cos(x)*exp(y)", "y_low": "cos(x)*exp(y)",
                  "x_high": ("neumann", "-sin(1)*exp(y)"),
                  "y_high": ("robin", "3*cos(x)*exp(1)", 2.0)},
        exact="cos(x)*exp(y)")
    e = [gridsolve.solve(p(n), solver="pcg", device="cpu", tol=1e-12).max_error
         for n in (33, 65)]
    assert np.log2(e[0] / e[1]) > 1.8, e


def test_a_fixed_mask_holds_its_value():
    p = gridsolve.Problem(nodes=(33, 33), masks=[{"kind": "fixed", "lo": [0.25, 0.25],
                                                  "hi": [0.5, 0.5], "value": 7.5}])
    s = gridsolve.solve(p, solver="mgcg", device="cpu")
    assert s.u[12, 12] == 7.5 and s.u[8, 16] == 7.5  # nodes (0.375, 0.375), (0.5, 0.25)
    assert 0 < s.u[20, 20] < 7.5


def test_equal_to_the_command_on_the_same_text(tmp_path):
    p = sine(65, solver={"name": "mgcg", "tolerance": 1e-10})
    path = tmp_path / "sine.toml"
    path.write_text(p.toml)
    summary = cli_solve(tmp_path, path)
    s = gridsolve.solve(p, device="cpu")
    assert s.report["iterations"] == summary["iterations"]
    assert s.max_error == pytest.approx(summary["max_error"], rel=1e-12)


def test_a_shipped_file_equals_the_command(tmp_path):
    path = os.path.join(SOURCE_DIR, "examples", "heated_l_plate.toml")
    summary = cli_solve(tmp_path, path, "--solver", "mgcg")
    s = gridsolve.solve(gridsolve.Problem.from_file(path), solver="mgcg", device="cpu")
    assert s.report["iterations"] == summary["iterations"]
    assert s.report["relative_residual"] == pytest.approx(summary["relative_residual"],
                                                          rel=1e-12)
    assert s.u.shape == (161, 161)


def test_problem_errors_carry_the_readers_messages():
    with pytest.raises(ValueError, match="malformed formula"):
        gridsolve.solve(gridsolve.Problem(nodes=(9, 9), f="sin(pi*x"))
    with pytest.raises(ValueError, match="did you mean 'x_low'"):
        gridsolve.solve(gridsolve.Problem(nodes=(9, 9), boundary={"x_lo": 1.0}))
    with pytest.raises(ValueError, match="needs nodes"):
        gridsolve.Problem(f=1.0)
    with pytest.raises(ValueError, match="omega applies to sor only"):
        gridsolve.solve(gridsolve.Problem(nodes=(9, 9), solver={"name": "sor", "omega": 1.5}),
                        solver="cg")


def test_array_sources_with_boundary_data_as_arrays_formulas_and_values():
    # u = x^2 + 2 y^2 - x y on [0, 2] x [0, 1.5]: every face's data given a different way;
    # second-order differences are exact for it.
    x, y = np.linspace(0, 2, 41), np.linspace(0, 1.5, 33)
    exact = lambda X, Y: X ** 2 + 2 * Y ** 2 - X * Y
    X, Y = np.meshgrid(x, y)
    boundary = {"x_low": exact(0 * y, y), "x_high": exact(2 + 0 * y, y),
                "y_low": ("dirichlet", exact(x, 0 * x)), "y_high": "x^2 + 4.5 - 1.5*x"}
    s = gridsolve.solve(np.full((33, 41), -6.0), lengths=[2, 1.5], boundary=boundary, tol=1e-12)
    assert np.abs(s.u - exact(X, Y)).max() < 1e-10
    # The same problem as a Problem with formulas: the same solution.
    p = gridsolve.Problem(nodes=(41, 33), hi=(2, 1.5), f=-6,
                          boundary={f: "x^2 + 2*y^2 - x*y" for f in boundary})
    np.testing.assert_allclose(s.u, gridsolve.solve(p, solver="mgcg", device="cpu",
                                                    tol=1e-12).u, atol=1e-11)


def test_neumann_and_robin_data_as_arrays_in_3d():
    # u = x + 2 y + 3 z (harmonic) on the unit cube: Neumann du/dn = -1 on x_low and Robin
    # du/dn + u = 3 + x + 2 y + 3 = ... on z_high as node arrays, Dirichlet data elsewhere.
    n = 17
    t = np.linspace(0, 1, n)
    Z, Y, X = np.meshgrid(t, t, t, indexing="ij")
    u = X + 2 * Y + 3 * Z
    zy = np.meshgrid(t, t, indexing="ij")  # (nz, ny) for x faces
    yx = np.meshgrid(t, t, indexing="ij")  # (ny, nx) for z faces
    boundary = {
        "x_low": ("neumann", -np.ones((n, n))),
        "x_high": 1 + 2 * zy[1] + 3 * zy[0],
        "z_high": ("robin", 3 + (yx[1] + 2 * yx[0] + 3), 1.0),
        "y_low": "x + 3*z", "y_high": "x + 2 + 3*z", "z_low": "x + 2*y",
    }
    s = gridsolve.solve(np.zeros((n, n, n)), boundary=boundary, solver="pcg", tol=1e-12)
    assert np.abs(s.u - u).max() < 1e-9


def test_boundary_data_errors():
    f = np.zeros((9, 9))
    with pytest.raises(ValueError, match="must have the face's node counts"):
        gridsolve.solve(f, boundary={"x_low": np.zeros(8)})
    with pytest.raises(ValueError, match="must be a 1D array of the face's node values"):
        gridsolve.solve(f, boundary={"x_low": np.zeros((9, 9))})
    with pytest.raises(ValueError, match="is not one of a 2D box's"):
        gridsolve.solve(f, boundary={"z_low": 1.0})
    with pytest.raises(ValueError, match="alpha is robin's"):
        gridsolve.solve(f, boundary={"x_low": ("robin", 1.0)})
    with pytest.raises(ValueError, match="malformed formula"):
        gridsolve.solve(f, boundary={"x_low": "sin(x"})


def test_a_grid_gives_node_coordinates_in_the_librarys_layout():
    g = gridsolve.Grid((33, 17), hi=(2.0, 1.0))
    assert g.shape == (17, 33) and g.lengths == (2.0, 1.0) and g.spacing == (2.0 / 32, 1.0 / 16)
    X, Y = g.mesh()
    assert X.shape == Y.shape == (17, 33)
    assert X[0, -1] == 2.0 and Y[-1, 0] == 1.0  # x along the last index, y along the first
    # -div grad u = f for u = sin(pi x / 2) sin(pi y): on the Grid's box, by a Solver set up
    # from it and by a Problem on it, alike.
    f = (np.pi**2 / 4 + np.pi**2) * np.sin(np.pi * X / 2) * np.sin(np.pi * Y)
    exact = np.sin(np.pi * X / 2) * np.sin(np.pi * Y)
    u = gridsolve.Solver(g, solver="mgcg", tol=1e-11).solve(f).u
    assert np.abs(u - exact).max() < 5e-3
    p = gridsolve.Problem(grid=g, f="(pi^2/4 + pi^2)*sin(pi*x/2)*sin(pi*y)",
                          solver={"name": "mgcg", "tolerance": 1e-11})
    np.testing.assert_allclose(gridsolve.solve(p).u, u, rtol=0, atol=1e-9)
    Z3 = gridsolve.Grid((5, 6, 7)).mesh()[2]
    assert Z3.shape == (7, 6, 5) and Z3[-1, 0, 0] == 1.0


@pytest.mark.parametrize("bad, message", [
    (dict(nodes=(5,)), "2 or 3 axes"),
    (dict(nodes=(5, 1)), "at least 2 nodes"),
    (dict(nodes=(5, 5), hi=(1.0,)), "one per axis"),
    (dict(nodes=(5, 5), lo=(0, 1), hi=(1, 1)), "hi > lo"),
])
def test_bad_grids_are_value_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        gridsolve.Grid(**bad)
