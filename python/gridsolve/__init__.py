"""gridsolve from Python: Poisson problems on structured grids, solved by the C++ library.

    >>> import gridsolve
    >>> s = gridsolve.poisson(n=129, solver="mgcg")
    >>> s.report["iterations"], round(s.max_error, 7)
    (6, 5.6e-05)

Errors in the input raise ValueError with the command line's message.
"""
import json

import numpy as np

from . import _core

__all__ = ["Solution", "NotConverged", "Problem", "Solver", "poisson", "solve", "tridiag", "sort",
           "solvers", "cuda_available"]


class NotConverged(RuntimeError):
    """A solve stopped before its tolerance (raised when check=True)."""


class Solution:
    """A solve's result: u (node values, shape (ny, nx) or (nz, ny, nx)), the exact solution
    where the problem has one (else None), and the report (summary.json's keys: solver,
    iterations, relative_residual, converged, reason, seconds, ...)."""

    def __init__(self, u, exact, report):
        self.u = u
        self.exact = exact
        self.report = report

    @property
    def max_error(self):
        """The largest |u - exact| over the nodes of the domain, cut-outs left out (None
        without an exact solution)."""
        return self.report.get("max_error")

    def __repr__(self):
        r = self.report
        return (f"Solution({'x'.join(map(str, self.u.shape[::-1]))} nodes, {r['solver']}: "
                f"{r['reason']})")


def _finish(result, check):
    u, exact, report = result
    solution = Solution(u, exact, json.loads(report))
    if check and not solution.report["converged"]:
        raise NotConverged(solution.report["reason"])
    return solution


def poisson(n=129, dims=2, sides="dirichlet", mask="none", k="constant", rhs="manufactured",
            solver="mgcg", device="cpu", precision="double", tol=None, check=False):
    """The command's model problem (`gridsolve poisson`) with the same options: a
    manufactured solution on the unit square or cube, n nodes per side.

    sides: dirichlet | neumann | robin | periodic | periodic-all; mask: none | fixed | hole;
    k: constant | variable; rhs: manufactured | random. tol: the relative residual to reach
    (None: the solver's default). check: raise NotConverged when it is not reached."""
    return _finish(_core.model_poisson(n, dims, sides, mask, k, rhs, solver, device, precision,
                                       tol), check)


def _toml_value(v):
    """A number, string, boolean or list as TOML writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: the same escapes
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))


class Problem:
    """-div(k grad u) = f on a box, as a problem file states it (docs/config.md; the command
    `gridsolve solve FILE` reads the same text through the same reader, with the same
    checks and messages). From a file, from TOML text, or from keywords that write one:

        >>> p = gridsolve.Problem(nodes=(65, 65), f="2*pi^2*sin(pi*x)*sin(pi*y)",
        ...                       exact="sin(pi*x)*sin(pi*y)", solver={"name": "mgcg"})
        >>> s = gridsolve.solve(p); s.max_error

    nodes: per axis (x first), boundary nodes included; lo, hi: the box's corners (unit
    sides by default); f, k: numbers or formulas in x, y, z; boundary: {face: value} for
    Dirichlet data, or {face: (type, value)}, (type, value, alpha) for robin, type
    "periodic" alone on both faces of an axis; faces x_low, x_high, y_low, y_high, z_low,
    z_high, a face not named is Dirichlet 0; masks: dicts with the [[mask]] keys (kind, lo,
    hi, value); exact: the exact solution (number or formula); solver: a dict of [solver]
    keys; name: the problem's name in reports. `p.toml` is the text."""

    def __init__(self, nodes=None, lo=None, hi=None, f=0.0, k=1.0, boundary=None, masks=None,
                 exact=None, solver=None, name=None, toml=None, source="problem"):
        self.source = source
        if toml is not None:
            self.toml = toml
            return
        if nodes is None:
            raise ValueError("a Problem needs nodes (per axis, x first) or toml text")
        lines = []
        if name is not None:
            lines.append(f"name = {_toml_value(name)}")
        lines += ["[grid]", f"nodes = {_toml_value(list(nodes))}"]
        if lo is not None:
            lines.append(f"lo = {_toml_value(list(lo))}")
        if hi is not None:
            lines.append(f"hi = {_toml_value(list(hi))}")
        lines += ["[equation]", f"f = {_toml_value(f)}", f"k = {_toml_value(k)}"]
        for face, data in (boundary or {}).items():
            lines.append(f"[boundary.{face}]")
            if not isinstance(data, (tuple, list)):
                data = ("dirichlet", data)
            lines.append(f"type = {_toml_value(data[0])}")
            if len(data) > 1:
                lines.append(f"value = {_toml_value(data[1])}")
            if len(data) > 2:
                lines.append(f"alpha = {_toml_value(data[2])}")
        for mask in masks or []:
            lines.append("[[mask]]")
            lines += [f"{key} = {_toml_value(v)}" for key, v in mask.items()]
        if solver:
            lines.append("[solver]")
            lines += [f"{key} = {_toml_value(v)}" for key, v in solver.items()]
        if exact is not None:
            lines += ["[exact]", f"u = {_toml_value(exact)}"]
        self.toml = "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text, source="problem"):
        """A problem from TOML text (docs/config.md)."""
        return cls(toml=text, source=source)

    @classmethod
    def from_file(cls, path):
        """A problem file (docs/config.md), read as `gridsolve solve` reads it."""
        with open(path, encoding="utf-8") as f:
            return cls(toml=f.read(), source=str(path))

    def __repr__(self):
        return f"Problem({self.source!r})"


def _coefficient(k):
    """k as the core takes it: a constant, or a C-contiguous float64 array of node values."""
    if np.ndim(k) == 0:
        return float(k), None
    return 1.0, np.ascontiguousarray(k, dtype=np.float64)


def _faces(boundary):
    """boundary={face: data} as the core takes it: (face, type, value, formula, node values,
    alpha); data a value, a formula, the face's node values, or a tuple (type, data[,
    alpha])."""
    faces = []
    for face, data in (boundary or {}).items():
        if not isinstance(data, tuple):
            data = ("dirichlet", data)
        kind, value = data[0], (data[1] if len(data) > 1 else 0.0)
        alpha = float(data[2]) if len(data) > 2 else 0.0
        if isinstance(value, str):
            faces.append((face, kind, 0.0, value, None, alpha))
        elif np.ndim(value) == 0:
            faces.append((face, kind, float(value), "", None, alpha))
        else:
            faces.append((face, kind, 0.0, "", np.ascontiguousarray(value, dtype=np.float64),
                           alpha))
    return faces


def solve(f, lengths=None, sides="dirichlet", k=1.0, solver=None, device=None,
          precision=None, tol=None, check=False, boundary=None):
    """-div(k grad u) = f on the box [0, lengths] (default: unit sides), f given at the nodes
    as a float64 array of shape (ny, nx) or (nz, ny, nx); every side of the kind `sides`
    with zero data. k: a constant, or an array of node values of f's shape (the faces take
    the harmonic mean of their two nodes). A C-contiguous float64 array is passed without
    a conversion (the library copies it into its problem); others are converted first.
    solver, device, precision default to mgcg, cpu, double. boundary: data for some faces
    (x_low, x_high, y_low, y_high, z_low, z_high), each a value, a formula in x, y, z or an
    array of the face's node values (f's shape without the face's axis: (ny,) for x_low in
    2D, (nz, nx) for y_low in 3D), or a tuple (type, data) / ("robin", data, alpha); the
    other faces are `sides` with zero data.

    f may be a Problem instead (formulas, boundary data, masks, an exact solution): solved
    as `gridsolve solve` solves its file, solver, device, precision and tol overriding its
    [solver] table where given (lengths, sides and k are the Problem's then)."""
    if isinstance(f, Problem):
        return _finish(_core.config_poisson(f.toml, f.source, solver, device, precision, tol),
                       check)
    f = np.ascontiguousarray(f, dtype=np.float64)
    kc, kn = _coefficient(k)
    return _finish(_core.array_poisson(f, list(lengths or []), sides, kc, kn, _faces(boundary),
                                       solver or "mgcg", device or "cpu", precision or "double",
                                       tol), check)


class Solver:
    """One operator, its solver set up once, solved for many sources:

        >>> s = gridsolve.Solver((129, 129), k=1.0, solver="mgcg")
        >>> u1 = s.solve(f1).u; u2 = s.solve(f2).u     # the hierarchy is built once
        >>> s.update(k=k_new)                           # new coefficients, refreshed in place

    shape: the nodes, (ny, nx) or (nz, ny, nx); lengths, sides, k, solver, device, precision
    and tol as for solve(). setup_seconds: what the last set-up (or update) took."""

    def __init__(self, shape, lengths=None, sides="dirichlet", k=1.0, solver="mgcg",
                 device="cpu", precision="double", tol=None):
        kc, kn = _coefficient(k)
        self.shape = tuple(int(n) for n in shape)
        self._core = _core.PoissonSolver(list(self.shape), list(lengths or []), sides, kc, kn,
                                         solver, device, precision, tol)

    def solve(self, f, check=False):
        """The Solution for sources f (node values of the solver's shape)."""
        f = np.ascontiguousarray(f, dtype=np.float64)
        u, report = self._core.solve(f)
        solution = Solution(u, None, json.loads(report))
        if check and not solution.report["converged"]:
            raise NotConverged(solution.report["reason"])
        return solution

    def update(self, k):
        """New coefficients (node values of the solver's shape), the same structure: the
        solver's set-up is refreshed, not rebuilt."""
        self._core.update(np.ascontiguousarray(k, dtype=np.float64))

    @property
    def setup_seconds(self):
        return self._core.setup_seconds


def _on_gpu(x):
    """Whether x is an array in a CUDA GPU's memory (CuPy, PyTorch: DLPack device 2)."""
    device = getattr(x, "__dlpack_device__", None)
    return device is not None and device()[0] == 2


def _gpu_copy(x, dtype=None):
    """A C-contiguous copy of a GPU array, in its own library (CuPy or PyTorch), on its GPU."""
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        import cupy
        return cupy.array(x, dtype=dtype or x.dtype, order="C", copy=True)
    if module == "torch":
        import torch
        return x.to(dtype=dtype or x.dtype, copy=True).contiguous()
    raise TypeError(f"GPU arrays from CuPy or PyTorch are taken, got {type(x).__name__}")


def _gpu_contiguous(x, like):
    """x as a C-contiguous GPU array of like's type (a view where it already is one)."""
    module = type(like).__module__.split(".")[0]
    if not _on_gpu(x):
        raise ValueError("a, b, c and d must all be host arrays or all GPU arrays")
    if module == "cupy":
        import cupy
        return cupy.ascontiguousarray(x, dtype=like.dtype)
    return x.to(dtype=like.dtype).contiguous()


def _device_for(x, device):
    """The device a call runs on: the one asked for; by default the GPU of GPU arrays."""
    if device is not None:
        return device
    return "cuda" if _on_gpu(x) else "cpu"


def tridiag(a, b, c, d, method="automatic", device=None):
    """Solves a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i for one system (arrays of shape (n,))
    or a batch (shape (count, n), one system per row); a[..., 0] and c[..., -1] are not
    read. float64 or float32 (all four alike). Returns x; the inputs are left alone.
    method: automatic | thomas | cr | pcr | cr-pcr | partitioned (the
    command's names); no pivoting (diagonally dominant or positive definite systems).
    device: cpu | cuda | auto; None runs host arrays on the CPU and GPU arrays (CuPy,
    PyTorch) on their GPU, where x comes back as an array of the same library, solved in
    the GPU's memory without passing through the host."""
    device = _device_for(d, device)
    if _on_gpu(d):
        x = _gpu_copy(d)
        a, b, c = (_gpu_contiguous(v, x) for v in (a, b, c))
        _core.tridiag(a, b, c, x, method, device)
        return x
    d = np.array(d, order="C", copy=True)
    if d.dtype not in (np.float32, np.float64):
        d = d.astype(np.float64)
    a, b, c = (np.ascontiguousarray(v, dtype=d.dtype) for v in (a, b, c))
    _core.tridiag(a, b, c, d, method, device)
    return d


def sort(keys, network="butterfly", order="ascending", device=None):
    """The sorting networks: a sorted copy of keys (shape (n,), or (count, length) to sort
    every row); float32, float64, int32 or uint32 keys (others are refused). network:
    butterfly | bitonic; order: ascending | descending (NaN sorts last ascending).
    device as for tridiag: GPU keys (CuPy, PyTorch) are sorted on their GPU, the copy made
    there."""
    device = _device_for(keys, device)
    out = _gpu_copy(keys) if _on_gpu(keys) else np.array(keys, order="C", copy=True)
    if str(out.dtype).replace("torch.", "") not in ("float32", "float64", "int32", "uint32"):
        raise TypeError(f"keys must be float32, float64, int32 or uint32, got {out.dtype}")
    _core.sort(out, network, order, device)
    return out


def solvers():
    """Every solver name the library has."""
    return list(_core.solver_names())


def cuda_available():
    """Whether a CUDA GPU can be used."""
    return bool(_core.cuda_available())
