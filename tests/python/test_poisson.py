"""The Python module against the command line and against exact solutions."""
import _thread
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import gridsolve


def cli_summary(tmp_path, *args):
    out = tmp_path / "out"
    subprocess.run([os.environ["GRIDSOLVE_CLI"], "poisson", *args, "--out", str(out)],
                   check=True, capture_output=True)
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("args", [
    dict(n=65, sides="neumann", k="variable", solver="pcg"),
    dict(n=50, sides="periodic", mask="hole", solver="mgcg"),
    dict(n=17, dims=3, sides="robin", solver="cg"),
])
def test_model_problems_match_the_command(tmp_path, args):
    s = gridsolve.poisson(tol=1e-10, **args)
    argv = []
    for key, value in args.items():
        argv += [f"--{key}", str(value)]
    summary = cli_summary(tmp_path, *argv, "--tol", "1e-10", "--device", "cpu")
    assert s.report["converged"]
    assert s.report["iterations"] == summary["iterations"]
    assert s.max_error == pytest.approx(summary["max_error"], rel=1e-9)
    assert s.u.shape == tuple([args["n"]] * args.get("dims", 2))
    assert s.u.dtype == np.float64


def sine_problem(n, dims=2):
    x = np.linspace(0.0, 1.0, n)
    grids = np.meshgrid(*([x] * dims), indexing="ij")
    exact = np.ones_like(grids[0])
    for g in grids:
        exact = exact * np.sin(np.pi * g)
    return dims * np.pi**2 * exact, exact


def test_array_sources_converge_at_second_order():
    errors = []
    for n in (33, 65, 129):
        f, exact = sine_problem(n)
        s = gridsolve.solve(f, solver="mgcg", tol=1e-12, check=True)
        errors.append(np.max(np.abs(s.u - exact)))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2) < 0.1), orders


def test_array_shapes_are_z_y_x_and_lengths_scale_the_box():
    f = np.ones((9, 11, 13))  # nz, ny, nx
    s = gridsolve.solve(f, lengths=[2.0, 1.0, 0.5], solver="cg", tol=1e-10, check=True)
    assert s.u.shape == (9, 11, 13)
    assert s.exact is None and s.max_error is None
    assert np.all(s.u[1:-1, 1:-1, 1:-1] > 0)  # a positive source, zero sides
    assert np.all(s.u[0] == 0) and np.all(s.u[:, :, -1] == 0)
    # The same source on a transposed box: the solution transposes with it.
    t = gridsolve.solve(np.ones((13, 11, 9)), lengths=[0.5, 1.0, 2.0], solver="cg", tol=1e-10)
    assert np.allclose(t.u, np.transpose(s.u, (2, 1, 0)), atol=1e-8 * np.max(s.u))


def test_single_precision_and_direct_solvers():
    f, exact = sine_problem(65)
    double = gridsolve.solve(f, solver="fft")
    single = gridsolve.solve(f, solver="fft", precision="float")
    assert double.report["iterations"] == 1
    assert single.report["precision"] == "float"
    assert np.max(np.abs(single.u - double.u)) < 1e-4  # float rounding through the transforms
    assert np.max(np.abs(double.u - exact)) < 1e-3


def test_bad_input_raises_value_error_with_the_command_message():
    with pytest.raises(ValueError, match="unknown solver 'mgpcg2'"):
        gridsolve.poisson(n=17, solver="mgpcg2")
    with pytest.raises(ValueError, match="2D .* or 3D"):
        gridsolve.solve(np.ones(10))
    with pytest.raises(ValueError):
        gridsolve.poisson(n=17, sides="sideways")
    with pytest.raises(ValueError, match="lengths"):
        gridsolve.solve(np.ones((5, 5)), lengths=[1.0])
    assert "mgcg" in gridsolve.solvers() and "fft" in gridsolve.solvers()


def test_the_interpreter_runs_other_threads_during_a_solve():
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.01)
    before = ticks
    start = time.perf_counter()
    gridsolve.poisson(n=257, solver="sor", tol=1e-8)
    seconds = time.perf_counter() - start
    during = ticks - before
    stop.set()
    thread.join()
    # With the lock held the counter could not move while the solve ran.
    assert seconds > 0.05
    assert during > 0.3 * seconds / 0.002, (during, seconds)


def test_ctrl_c_stops_a_long_solve_within_seconds():
    # Jacobi to 1e-12 on 1025^2 would take many minutes; Ctrl-C half a second in ends it.
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        gridsolve.poisson(n=1025, solver="jacobi", tol=1e-12)
    timer.join()
    assert time.perf_counter() - start < 5
    # The module still works afterwards.
    assert gridsolve.poisson(n=17, solver="cg").report["converged"]
