"""Incompressible flow (`gridsolve cavity | channel | flow`) from Python, without files:

    >>> from gridsolve import flow
    >>> r = flow.cavity(re=100, n=64)                    # SIMPLEC to steady state
    >>> r.summary["psi_min"], r.summary["ghia_mean_deviation"]
    >>> r.u.shape                                         # (ny, nx): cell-centred velocity
    >>> r = flow.channel("dfg-2d-1", cpd=8, coupling="piso", t_end=1.0)
    >>> r.forces["t"], r.forces["c_d"]                    # the drag coefficient in time
    >>> r = flow.run("case.toml")                        # a case file (path or text)

Method settings go by their case-file names ([method]: coupling, convection, time,
relax_u, relax_p, tolerance, max_iterations, t_end, cfl, dt, correctors, momentum_sweeps,
pressure_tolerance, pressure_solver, ...). Bad input raises ValueError with the command's
message; Ctrl-C stops a run between steps.
"""
import json
import os

from . import _core

__all__ = ["Run", "run", "cavity", "channel"]

HISTORY = ["step", "time", "dt", "continuity", "change", "divergence", "pressure_iterations"]
WORDS = ("coupling", "convection", "time", "pressure_solver", "momentum_solver")


class Run:
    """A run's results: summary (summary.json's keys), history (a dict of arrays,
    history.csv's columns), forces (t, c_d, c_l over time where the case has bodies), the
    final cell-centred fields u, v (w) and p, shaped (ny, nx) or (nz, ny, nx), and frames:
    a list of dicts (t, u, v, (w), p) at the times the command's frame series would hold
    (frames=N of a transient run: every t_end / N)."""

    def __init__(self, summary, history, forces, velocity, p, frames=()):
        self.summary = summary
        self.history = {name: history[:, i].copy() for i, name in enumerate(HISTORY)}
        self.forces = {name: forces[:, i].copy() for i, name in enumerate(("t", "c_d", "c_l"))}
        self.u, self.v = velocity[0], velocity[1]
        self.w = velocity[2] if len(velocity) > 2 else None
        self.p = p
        self.frames = []
        for t, fv, fp in frames:
            frame = {"t": t, "u": fv[0], "v": fv[1], "p": fp}
            if len(fv) > 2:
                frame["w"] = fv[2]
            self.frames.append(frame)

    def __repr__(self):
        s = self.summary
        return f"Run({s.get('case')}, {s.get('reason', '')})"


def _every(checkpoint, checkpoint_every, stop_after=0):
    """The steps between checkpoints: a checkpoint file without a count is written at the
    end only."""
    if (checkpoint_every or stop_after) and not checkpoint:
        raise ValueError("checkpoint_every and stop_after need checkpoint, the file to write")
    return int(checkpoint_every) if checkpoint_every else (2**31 - 1 if checkpoint else 0)


def _run(kind, text="", source="", re=100.0, n=64, which="dfg-2d-1", cpd=8, device=None,
         method=None, frames=0, checkpoint=None, checkpoint_every=0, restart=None,
         stop_after=0):
    numbers, words = {}, {}
    for key, value in (method or {}).items():
        if key in WORDS:
            words[key] = str(value)
        else:
            numbers[key] = float(value)
    summary, history, forces, velocity, p, kept = _core.flow_run(
        kind, text, source, float(re), int(n), which, int(cpd), numbers, words, device or "",
        int(frames), _every(checkpoint, checkpoint_every, stop_after), str(checkpoint or ""),
        str(restart or ""), int(stop_after))
    return Run(json.loads(summary), history, forces, velocity, p, kept)


def run(config, device=None, frames=0, checkpoint=None, checkpoint_every=0, restart=None,
        stop_after=0, **method):
    """Runs a flow case file (a TOML path, or the text itself) and returns a Run; frames:
    keep the fields this many times over a transient run (Run.frames). checkpoint: a file
    the whole state goes to, every checkpoint_every steps and at the end (at the end only
    without a count); restart: a checkpoint to continue from: the run goes on as if it had
    never stopped; stop_after: stop after this many steps of this call, with a checkpoint
    (the command's --checkpoint, --checkpoint-every, --restart and --stop-after)."""
    if "\n" not in config and os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            text, source = f.read(), config
    else:
        text, source = config, "<config>"
    return _run("file", text, source, device=device, method=method, frames=frames,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, restart=restart,
                stop_after=stop_after)


def cavity(re=100.0, n=64, device="cpu", frames=0, checkpoint=None, checkpoint_every=0,
           restart=None, stop_after=0, **method):
    """The lid-driven cavity (`gridsolve cavity`): unit square, n cells per side, Reynolds
    number re; steady SIMPLEC unless coupling="piso" (then t_end, cfl or dt; frames and
    checkpoints as for run)."""
    return _run("cavity", re=re, n=n, device=device, method=method, frames=frames,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, restart=restart,
                stop_after=stop_after)


def channel(case="dfg-2d-1", cpd=8, device="cpu", frames=0, checkpoint=None,
            checkpoint_every=0, restart=None, stop_after=0, **method):
    """A DFG benchmark (`gridsolve channel`): dfg-2d-1, dfg-2d-2, dfg-2d-3 or dfg-3d-1z (the
    3D channel, Re 20), cpd cells per cylinder diameter (frames and checkpoints as for run)."""
    return _run("channel", which=case, cpd=cpd, device=device, method=method, frames=frames,
                checkpoint=checkpoint, checkpoint_every=checkpoint_every, restart=restart,
                stop_after=stop_after)
