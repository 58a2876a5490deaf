#!/usr/bin/env python3
"""What a call from Python costs beyond the library's: a set-up Solver's solve of a 65^2 (or
--n) Poisson problem, timed from Python (wall, median of --repeat) against what the report
says the same call took in C++: the whole call ("call_seconds": the source written, the
solve, the solution packed, the GPU waited for) and the solver alone ("seconds").
Host arrays on the CPU; with --device cuda also CuPy arrays on the GPU, solved in place.

    PYTHONPATH=build/python python3 scripts/python_overhead.py [--device cuda] [--n 65]
"""
import argparse
import statistics
import time

import numpy as np

import gridsolve


def measure(solver, f, x, repeat, sync):
    walls, calls, solves = [], [], []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        report = solver.solve(f, x).report
        sync()
        walls.append(time.perf_counter() - t0)
        calls.append(report["call_seconds"])
        solves.append(report["seconds"])
    return [statistics.median(v) for v in (walls, calls, solves)] + [report]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=65)
    p.add_argument("--solver", default="mgcg")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--repeat", type=int, default=200)
    a = p.parse_args()
    x = np.linspace(0.0, 1.0, a.n)
    X, Y = np.meshgrid(x, x)
    f = 2 * np.pi**2 * np.sin(np.pi * X) * np.sin(np.pi * Y) + X * Y
    s = gridsolve.Solver((a.n, a.n), solver=a.solver, device=a.device)
    cases = [("NumPy arrays", f, np.empty_like(f), lambda: None)]
    if a.device == "cuda":
        import cupy as cp
        cases.append(("CuPy arrays, in place", cp.asarray(f), cp.empty((a.n, a.n)),
                      cp.cuda.Device().synchronize))
    print(f"{a.n}^2 nodes, {a.solver} on {a.device}, median of {a.repeat} solves")
    print("| arrays | Python wall (ms) | C++ call (ms) | solver (ms) | over the call | over the "
          "solver | arrays copied |")
    print("|---|---|---|---|---|---|---|")
    for name, fa, xa, sync in cases:
        for _ in range(20):  # warm up: allocator pools, first launches
            s.solve(fa, xa)
        wall, call, solve, report = measure(s, fa, xa, a.repeat, sync)
        print(f"| {name} | {wall * 1e3:.3f} | {call * 1e3:.3f} | {solve * 1e3:.3f} | "
              f"{100 * (wall / call - 1):.1f}% | {100 * (wall / solve - 1):.1f}% | "
              f"{report['arrays_copied']} |")


if __name__ == "__main__":
    main()
