"""Micromagnetics (`gridsolve micromag`) from Python, without files:

    >>> from gridsolve import micromag
    >>> r = micromag.run("examples/micromag/sp4_field1.toml")
    >>> r.table["t"], r.table["mx"]          # <m>(t), as table.csv holds it
    >>> r.m.shape                             # (3, nz, ny, nx): the final magnetization
    >>> r.snapshots["m_stage1_relax"]         # m at each stage's end, and every
                                              # output.snapshot_interval: m000000, ...

The configuration is the command's TOML (a path, or the text itself); `device` and
`precision` override its [solver] keys. Errors in it raise ValueError with the command's
message; Ctrl-C stops a run between steps.
"""
import json
import os

from . import _core

__all__ = ["Run", "run"]

COLUMNS = ["t", "mx", "my", "mz", "E_total", "E_exchange", "E_anisotropy", "E_zeeman",
           "E_demag", "E_dmi", "max_torque", "dt"]


class Run:
    """A run's results: table (a dict of arrays, table.csv's columns: t in s, mx, my, mz,
    the energies in J, max_torque in T, dt in s), summary (summary.json's keys), m (the final
    magnetization, shape (3, nz, ny, nx)), snapshots (a dict, in the order taken, of the
    states the command would write as files: m_stage1_relax, ... at each stage's end, and
    m000000, ... every output.snapshot_interval of run stages) and exit_code (0, or 3 when a
    stage did not converge or its condition did not hold)."""

    def __init__(self, code, summary, table, m, snapshots):
        self.exit_code = code
        self.summary = summary
        self.table = {name: table[:, i].copy() for i, name in enumerate(COLUMNS)}
        self.m = m
        self.snapshots = dict(snapshots)

    def __repr__(self):
        t = self.table["t"]
        end = f"t = {t[-1] * 1e9:.4f} ns" if len(t) else "no rows"
        return f"Run({len(t)} rows, {end}, exit code {self.exit_code})"


def run(config, device=None, precision=None):
    """Runs every stage of a configuration (a TOML path or text) and returns a Run."""
    if "\n" not in config and os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            text, source = f.read(), config
    else:
        text, source = config, "<config>"
    code, summary, table, m, snapshots = _core.micromag_run(text, source, device or "",
                                                            precision or "")
    return Run(code, json.loads(summary), table, m, snapshots)
