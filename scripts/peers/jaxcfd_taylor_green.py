#!/usr/bin/env python3
"""jax-cfd on the case `gridsolve bench flow` steps: the Taylor-Green vortex on the periodic
box [0, 2 pi]^2, nu = 0.01, from t = 0 to t = 2, fp64, on the GPU JAX finds.

jax-cfd's own scheme (its implicit_diffusion_navier_stokes): explicit van Leer convection,
the pressure and the diffusion by FFT, first order in time, the step from CFL 0.5 at the
largest speed (1), shortened to land on t = 2. The steps run as one compiled loop
(funcutils.repeated); it is compiled and run once before the timed run.

Prints one JSON object per size: n, steps, seconds (to t = 2), ms_per_step, error (the
largest |u - exact| and |v - exact| over the faces at t = 2) and amplitude_error (the
amplitude of the vortex's shape fitted to u and v by least squares, against exp(-2 nu t)).

Needs jax with a GPU, jax-cfd 0.2.1 and tree-math (wheels: pip install --no-deps).
Usage: jaxcfd_taylor_green.py [N ...]   (default 64 256 1024)
"""
import json
import math
import sys
import time

import jax

# jax-cfd 0.2.1 calls jax.tree_map, which current JAX removed.
if not hasattr(jax, "tree_map"):
    jax.tree_map = jax.tree_util.tree_map
jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import jax_cfd.base as cfd  # noqa: E402
from jax_cfd.base import validation_problems  # noqa: E402

NU = 0.01
T_END = 2.0
CFL = 0.5


def run(n):
    problem = validation_problems.TaylorGreen(shape=(n, n), density=1.0, viscosity=NU)
    grid = problem.grid
    v0 = problem.velocity(0.0)
    dt0 = cfd.equations.stable_time_step(1.0, CFL, NU, grid, implicit_diffusion=True)
    steps = int(math.ceil(T_END / dt0))
    dt = T_END / steps
    step = cfd.equations.implicit_diffusion_navier_stokes(
        density=1.0, viscosity=NU, dt=dt, grid=grid)
    advance = jax.jit(cfd.funcutils.repeated(step, steps))
    jax.block_until_ready(advance(v0))  # compile, and one run to warm up
    t0 = time.perf_counter()
    v = jax.block_until_ready(advance(v0))
    seconds = time.perf_counter() - t0
    exact = problem.velocity(T_END)
    error = max(float(jnp.max(jnp.abs(a.data - b.data))) for a, b in zip(v, exact))
    # The amplitude of the vortex's shape that fits u and v best, against exp(-2 nu t).
    shape = problem.velocity(0.0)
    fit = sum(float(jnp.sum(a.data * s.data)) for a, s in zip(v, shape))
    norm = sum(float(jnp.sum(s.data * s.data)) for s in shape)
    amplitude_error = abs(fit / norm - math.exp(-2 * NU * T_END))
    return {"n": n, "steps": steps, "seconds": seconds, "ms_per_step": 1e3 * seconds / steps,
            "error": error, "amplitude_error": amplitude_error, "device": str(jax.devices()[0])}


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [64, 256, 1024]
    for n in sizes:
        print(json.dumps(run(n)), flush=True)


if __name__ == "__main__":
    main()
