"""The magnet design from Python against the command on the same design."""
import json
import os
import subprocess

import numpy as np
import pytest

from gridsolve import magnet


def test_the_design_is_the_commands(tmp_path):
    d = magnet.design(h=0.01, wires=8)
    out = tmp_path / "out"
    subprocess.run([os.environ["GRIDSOLVE_CLI"], "magnet", "--h", "0.01", "--wires", "8",
                    "--device", "cpu", "--no-plots", "--out", str(out)],
                   check=True, capture_output=True)
    summary = json.loads((out / "summary.json").read_text())
    assert d.converged
    assert d.current == pytest.approx(summary["total_current"], rel=1e-12)
    assert len(d.wires) == 8
    for mine, theirs in zip(d.wires, summary["wires"]):
        assert mine["r"] == pytest.approx(theirs["r"], abs=1e-12)
        assert mine["z"] == pytest.approx(theirs["z"], abs=1e-12)
    assert d.b0 == pytest.approx(summary["field"]["b0"], rel=1e-12)
    # The potential on the (r, z) nodes, the axis profile of the wires' field.
    assert d.phi.shape == (201, 201)
    assert np.isfinite(d.phi).all() and np.abs(d.phi).max() > 0
    assert d.axis_z.shape == d.axis_bz.shape == d.axis_ppm.shape
    assert d.axis_bz[len(d.axis_bz) // 2] == pytest.approx(d.b0, rel=1e-6)


def test_bad_designs_are_value_errors():
    with pytest.raises(ValueError, match="h|spacing|divide|whole"):
        magnet.design(h=0.0033)
    with pytest.raises(ValueError, match="unknown solver"):
        magnet.design(h=0.01, solver="nosuch")


def test_the_study_example_runs():
    # examples/python/magnet_study.py, as docs/python.md shows it (without the plot).
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).parents[2] / "examples" / "python" / "magnet_study.py"
    out = subprocess.run([sys.executable, str(script), "--h", "0.025"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 6
    sphere = [float(r.split("|")[3]) for r in rows]
    assert sphere == sorted(sphere, reverse=True)  # more wires, a more homogeneous field
