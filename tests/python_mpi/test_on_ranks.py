"""The module on an mpi4py communicator's ranks (run by mpiexec, every rank running these
tests alike): the same answers as this process alone, the whole solution on every rank."""
import numpy as np
import pytest

import gridsolve

MPI = pytest.importorskip("mpi4py.MPI")
comm = MPI.COMM_WORLD


def same_on_every_rank(u):
    """Rank 0's array, as every rank sees it: every rank must hold the same values."""
    theirs = comm.bcast(u if comm.rank == 0 else None, root=0)
    np.testing.assert_array_equal(u, theirs)


def test_the_model_problem_on_ranks_equals_one_process():
    alone = gridsolve.poisson(n=65, k="variable", solver="mgcg", tol=1e-11)
    together = gridsolve.poisson(n=65, k="variable", solver="mgcg", tol=1e-11, comm=comm)
    assert alone.report["ranks"] == 1
    assert together.report["ranks"] == comm.size
    assert together.report["converged"]
    np.testing.assert_allclose(together.u, alone.u, rtol=0, atol=1e-9)
    assert abs(together.max_error - alone.max_error) < 1e-9
    same_on_every_rank(together.u)


def test_an_array_source_and_a_problem_on_ranks():
    n = 49
    x = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(x, x)
    f = np.cos(np.pi * X) * np.cos(2 * np.pi * Y) + X - 0.5  # no net source: Neumann sides
    k = 1.0 + X * X
    alone = gridsolve.solve(f, k=k, sides="neumann", solver="mgcg", tol=1e-11)
    together = gridsolve.solve(f, k=k, sides="neumann", solver="mgcg", tol=1e-11, comm=comm)
    assert together.report["ranks"] == comm.size
    np.testing.assert_allclose(together.u, alone.u, rtol=0, atol=1e-9)
    same_on_every_rank(together.u)
    p = gridsolve.Problem(nodes=(33, 33, 33), f="3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)",
                          exact="sin(pi*x)*sin(pi*y)*sin(pi*z)", solver={"name": "pcg"})
    one, many = gridsolve.solve(p), gridsolve.solve(p, comm=comm)
    assert many.report["ranks"] == comm.size
    np.testing.assert_allclose(many.u, one.u, rtol=0, atol=1e-8)
    assert many.max_error < 2e-3


def test_bad_communicators_are_refused():
    with pytest.raises(ValueError, match="mpi4py communicator"):
        gridsolve.poisson(n=9, comm="world")
    if comm.size > 1:  # another set of ranks than the first communicator's
        part = comm.Split(comm.rank % 2, comm.rank)
        with pytest.raises(ValueError, match="one set of ranks"):
            gridsolve.poisson(n=9, comm=part)
        part.Free()
    # The one set of ranks stays usable afterwards.
    assert gridsolve.poisson(n=17, comm=comm).report["ranks"] == comm.size


@pytest.mark.skipif(not gridsolve.cuda_available(), reason="no usable CUDA GPU")
def test_on_the_gpus_of_the_ranks():
    alone = gridsolve.poisson(n=129, solver="mgcg", tol=1e-11)
    together = gridsolve.poisson(n=129, solver="mgcg", tol=1e-11, device="cuda", comm=comm)
    assert together.report["ranks"] == comm.size and together.report["device"] == "cuda"
    assert comm.size == 1 or "cuda:" in together.report["ranks_used"]
    np.testing.assert_allclose(together.u, alone.u, rtol=0, atol=1e-9)
    same_on_every_rank(together.u)
