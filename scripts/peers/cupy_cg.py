#!/usr/bin/env python3
"""The peer a Python user would reach for: CuPy's sparse CG (cuSPARSE SpMV) on the same
2D Poisson problem gridsolve's `bench mg` solves (N x N unknowns, 5-point Laplacian scaled
by h^2, zero Dirichlet sides, random right-hand side, relative residual 1e-8).
Prints one line per size: unknowns, iterations, seconds (median of repeats, device-synchronized)."""
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as sp
import cupyx.scipy.sparse.linalg as spla


def laplacian(n):
    e = cp.ones(n)
    t = sp.diags([-e[:-1], 2 * e, -e[:-1]], [-1, 0, 1], format="csr")
    i = sp.identity(n, format="csr")
    return (sp.kron(t, i) + sp.kron(i, t)).tocsr()


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1023, 2047]
    for n in sizes:
        a = laplacian(n)
        rng = cp.random.default_rng(1)
        b = rng.uniform(-1.0, 1.0, n * n) / (n + 1) ** 2
        iterations = [0]

        def count(_):
            iterations[0] += 1

        times = []
        for repeat in range(3):
            iterations[0] = 0
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            try:  # CuPy 13 names the relative tolerance rtol; older releases call it tol
                x, info = spla.cg(a, b, rtol=1e-8, maxiter=20000, callback=count)
            except TypeError:
                x, info = spla.cg(a, b, tol=1e-8, maxiter=20000, callback=count)
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
        r = float(cp.linalg.norm(b - a @ x) / cp.linalg.norm(b))
        times.sort()
        print(f"cupy_cg unknowns={n} iterations={iterations[0]} seconds={times[1]:.4f} relres={r:.2e} info={info}")


if __name__ == "__main__":
    main()
