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

__all__ = ["Solution", "NotConverged", "Grid", "Problem", "Solver", "poisson", "solve",
           "tridiag", "sort", "solvers", "cuda_available"]


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


def _comm_handle(comm):
    """An mpi4py communicator as the core takes it (its MPI_Comm handle); None for none."""
    if comm is None:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise ValueError("comm must be an mpi4py communicator, and mpi4py is not installed")
    if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
        raise ValueError(f"comm must be an mpi4py communicator, got {type(comm).__name__}")
    ours, theirs = _core.mpi_library(), MPI.Get_library_version()
    if not theirs.startswith(ours):
        raise ValueError(f"mpi4py runs on {theirs.split(',')[0].strip()} and gridsolve on "
                         f"{ours}: they must share one MPI library")
    return MPI._handleof(comm)


def poisson(n=129, dims=2, sides="dirichlet", mask="none", k="constant", rhs="manufactured",
            solver="mgcg", device="cpu", precision="double", tol=None, check=False, comm=None):
    """The command's model problem (`gridsolve poisson`) with the same options: a
    manufactured solution on the unit square or cube, n nodes per side.

    sides: dirichlet | neumann | robin | periodic | periodic-all; mask: none | fixed | hole;
    k: constant | variable; rhs: manufactured | random. tol: the relative residual to reach
    (None: the solver's default). check: raise NotConverged when it is not reached.
    comm: an mpi4py communicator whose ranks all make the same call: solved by all of them
    as `mpirun gridsolve poisson` solves it, the whole solution on every rank."""
    return _finish(_core.model_poisson(n, dims, sides, mask, k, rhs, solver, device, precision,
                                       tol, _comm_handle(comm)), check)


def _toml_value(v):
    """A number, string, boolean or list as TOML writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: the same escapes
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))


class Grid:
    """The nodes of a box: `nodes` per axis (x first, the sides' nodes included), the box
    [lo, hi] (unit sides by default). Arrays of node values are shaped as the library holds
    them, x fastest: `shape` is (ny, nx) or (nz, ny, nx).

        >>> g = gridsolve.Grid((129, 65), hi=(2.0, 1.0))
        >>> X, Y = g.mesh()                   # node coordinates, each of shape g.shape
        >>> f = np.sin(np.pi * X) * Y
        >>> s = gridsolve.Solver(g)           # a Solver on its box (lo at the origin)
        >>> p = gridsolve.Problem(grid=g, f="x*y")"""

    def __init__(self, nodes, lo=None, hi=None):
        self.nodes = tuple(int(n) for n in nodes)
        if len(self.nodes) not in (2, 3) or min(self.nodes) < 2:
            raise ValueError(f"a grid has 2 or 3 axes of at least 2 nodes each, got {nodes}")
        self.dims = len(self.nodes)
        self.lo = tuple(float(v) for v in (lo if lo is not None else [0.0] * self.dims))
        self.hi = tuple(float(v) for v in (hi if hi is not None else [1.0] * self.dims))
        if len(self.lo) != self.dims or len(self.hi) != self.dims:
            raise ValueError(f"lo and hi must give {self.dims} coordinates, one per axis")
        if any(h <= l for l, h in zip(self.lo, self.hi)):
            raise ValueError(f"the box must have hi > lo on every axis, got lo {self.lo}, "
                             f"hi {self.hi}")

    @property
    def shape(self):
        """The shape of an array of node values: (ny, nx) or (nz, ny, nx)."""
        return self.nodes[::-1]

    @property
    def lengths(self):
        return tuple(h - l for l, h in zip(self.lo, self.hi))

    @property
    def spacing(self):
        return tuple(L / (n - 1) for L, n in zip(self.lengths, self.nodes))

    def axis(self, a):
        """The node coordinates along axis a (0 = x)."""
        return np.linspace(self.lo[a], self.hi[a], self.nodes[a])

    def mesh(self):
        """The node coordinates (X, Y) or (X, Y, Z), each an array of shape `shape`."""
        grids = np.meshgrid(*[self.axis(a) for a in reversed(range(self.dims))], indexing="ij")
        return tuple(reversed(grids))

    def __repr__(self):
        return f"Grid({'x'.join(map(str, self.nodes))} nodes on {list(self.lo)} .. {list(self.hi)})"


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
                 exact=None, solver=None, name=None, toml=None, source="problem", grid=None):
        self.source = source
        if toml is not None:
            self.toml = toml
            return
        if grid is not None:
            nodes, lo, hi = grid.nodes, grid.lo, grid.hi
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
          precision=None, tol=None, check=False, boundary=None, comm=None):
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
    [solver] table where given (lengths, sides and k are the Problem's then).

    f may be a GPU array (CuPy, PyTorch; zero data on every side): solved on its GPU
    (device defaults to cuda there) by a Solver set up for it, read and written in place,
    u returned as an array of f's library on that GPU.

    comm: an mpi4py communicator (the same MPI library as gridsolve's) whose ranks all make
    the same call with the same data: the problem is solved by all of them, each rank its
    part (on its GPU with device="cuda": rank i of a machine takes GPU i), as the command
    runs under mpirun; the whole solution comes back on every rank. Host arrays only."""
    handle = _comm_handle(comm)
    if isinstance(f, Problem):
        return _finish(_core.config_poisson(f.toml, f.source, solver, device, precision, tol,
                                            handle), check)
    if _on_gpu(f):  # solved on its GPU, read and written there in place (Solver.solve)
        if handle is not None:
            raise ValueError("comm takes host arrays; a GPU array f is solved on its GPU alone")
        if boundary:
            raise ValueError("boundary data come with a host array f; a GPU array f is solved "
                             "with zero data on every side")
        s = Solver(tuple(f.shape), lengths, sides, _host(k), solver or "mgcg", device or "cuda",
                   precision or "double", tol)
        return s.solve(f, check=check)
    f = np.ascontiguousarray(f, dtype=np.float64)
    kc, kn = _coefficient(k)
    return _finish(_core.array_poisson(f, list(lengths or []), sides, kc, kn, _faces(boundary),
                                       solver or "mgcg", device or "cpu", precision or "double",
                                       tol, handle), check)


class Solver:
    """One operator, its solver set up once, solved for many sources:

        >>> s = gridsolve.Solver((129, 129), k=1.0, solver="mgcg")
        >>> u1 = s.solve(f1).u; u2 = s.solve(f2).u     # the hierarchy is built once
        >>> s.update(k=k_new)                           # new coefficients, refreshed in place

    shape: the nodes, (ny, nx) or (nz, ny, nx), or a Grid (its shape and lengths); lengths,
    sides, k, solver, device, precision and tol as for solve(). setup_seconds: what the last
    set-up (or update) took.

    Each source's right-hand side is written in one pass over the grid from the same
    assembly (the operator is not assembled again). With device="cuda", GPU arrays (CuPy,
    PyTorch) are read and written in place on the GPU: see solve()."""

    def __init__(self, shape, lengths=None, sides="dirichlet", k=1.0, solver="mgcg",
                 device="cpu", precision="double", tol=None):
        if isinstance(shape, Grid):
            shape, lengths = shape.shape, shape.lengths
        kc, kn = _coefficient(k)
        self.shape = tuple(int(n) for n in shape)
        self._core = _core.PoissonSolver(list(self.shape), list(lengths or []), sides, kc, kn,
                                         solver, device, precision, tol)
        self.dtype = np.dtype(np.float32 if self._core.single_precision else np.float64)
        self._device = self._core.device

    @property
    def device(self):
        """Where it solves: cpu or cuda."""
        return self._device

    def solve(self, f, x=None, check=False):
        """The Solution for sources f (node values of the solver's shape).

        f: a NumPy array, or a GPU array (CuPy, PyTorch) when the solver runs on cuda. An
        array that is C-contiguous and of the solver's dtype (float64, or float32 in single
        precision) is read where it lies, without a copy; others are converted first (GPU
        arrays by their own library, on their GPU).
        x: where the solution goes (an array of the solver's shape and dtype, C-contiguous,
        on the host or, on cuda, on the GPU), written in place and returned as Solution.u;
        its values are not read. None: a new array beside f (NumPy for a host f; for a
        GPU f, one of its library on its GPU)."""
        on_gpu = _on_gpu(f)
        if on_gpu and self._device != "cuda":
            raise ValueError("f is a GPU array and this Solver runs on the CPU: set it up with "
                             "device='cuda', or pass a host array")
        if on_gpu:
            f = _gpu_contiguous(f, self.dtype)
        else:
            f = np.ascontiguousarray(f, dtype=self.dtype)
        if x is None:
            x = _gpu_empty_like(f) if on_gpu else np.empty(f.shape, dtype=self.dtype)
        else:
            if _on_gpu(x) and self._device != "cuda":
                raise ValueError("x is a GPU array and this Solver runs on the CPU: set it up "
                                 "with device='cuda', or pass a host array")
            _check_target(x, self.shape, self.dtype)
        report = self._core.solve(f, x)
        solution = Solution(x, None, json.loads(report))
        if check and not solution.report["converged"]:
            raise NotConverged(solution.report["reason"])
        return solution

    def update(self, k):
        """New coefficients (node values of the solver's shape), the same structure: the
        solver's set-up is refreshed, not rebuilt."""
        self._core.update(np.ascontiguousarray(_host(k), dtype=np.float64))

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


def _gpu_contiguous(x, dtype):
    """x as a C-contiguous GPU array of its own library and the given dtype (x itself where
    it already is one)."""
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        if x.dtype == dtype and x.flags.c_contiguous:
            return x  # the common case, without a call into CuPy
        import cupy
        return cupy.ascontiguousarray(x, dtype=dtype)
    if module == "torch":
        import torch
        if not isinstance(dtype, torch.dtype):
            dtype = getattr(torch, np.dtype(dtype).name)
        return x.to(dtype=dtype).contiguous()
    raise TypeError(f"GPU arrays from CuPy or PyTorch are taken, got {type(x).__name__}")


def _check_target(x, shape, dtype):
    """x must take a solution in place: the solver's shape and dtype, C-contiguous."""
    kind = str(getattr(x, "dtype", type(x).__name__)).replace("torch.", "")
    flags = getattr(x, "flags", None)
    contiguous = flags.c_contiguous if flags is not None else x.is_contiguous()
    if tuple(x.shape) != shape or kind != dtype.name or not contiguous:
        raise ValueError(f"x must be a C-contiguous {dtype.name} array of shape {shape} (it is "
                         f"written in place), got {kind} of shape {tuple(x.shape)}"
                         f"{'' if contiguous else ', not C-contiguous'}")


def _gpu_empty_like(x):
    """A new array of x's library, shape and dtype on x's GPU."""
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        import cupy
        return cupy.empty_like(x)
    import torch
    return torch.empty_like(x)


def _host(x):
    """x as a host array (a GPU array copied to the host by its own library)."""
    if not _on_gpu(x):
        return x
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        import cupy
        return cupy.asnumpy(x)
    return x.cpu().numpy()


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
        if not all(_on_gpu(v) for v in (a, b, c)):
            raise ValueError("a, b, c and d must all be host arrays or all GPU arrays")
        a, b, c = (_gpu_contiguous(v, x.dtype) for v in (a, b, c))
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
