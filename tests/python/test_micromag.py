"""Micromagnetics from Python: the command's run, in memory."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gridsolve import micromag

FILM = (Path(__file__).parent.parent / "data" / "micromag_film.toml").read_text()
# The same with snapshots every 10 ps besides the stage's end.
FILM_SNAPSHOTS = FILM.replace("plots = false", "plots = false\nsnapshot_interval = 1e-11")


def test_a_run_is_the_commands_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = micromag.run(FILM_SNAPSHOTS)
    assert list(tmp_path.iterdir()) == []  # no result file
    config = tmp_path / "film.toml"
    config.write_text(FILM_SNAPSHOTS)
    subprocess.run([os.environ["GRIDSOLVE_CLI"], "micromag", str(config), "--out",
                    str(tmp_path / "out")], check=True, capture_output=True)
    rows = np.loadtxt(tmp_path / "out" / "table.csv", delimiter=",", skiprows=1,
                      usecols=range(len(micromag.COLUMNS)))
    assert r.exit_code == 0
    assert len(r.table["t"]) == len(rows)
    for i, name in enumerate(micromag.COLUMNS):
        # table.csv keeps 10 significant digits (7 for max_torque and dt)
        digits = 1e-6 if name in ("max_torque", "dt") else 1e-9
        scale = np.abs(rows[:, i]).max()
        np.testing.assert_allclose(r.table[name], rows[:, i], rtol=0, atol=digits * scale,
                                   err_msg=name)
    assert r.m.shape == (3, 1, 12, 32)
    norm = np.sqrt((r.m ** 2).sum(axis=0))
    np.testing.assert_allclose(norm, 1.0, rtol=1e-12)
    assert r.table["mx"][-1] == pytest.approx(r.m[0].mean(), rel=1e-12)
    # The snapshots are the states the command wrote as files, in order; the last is m.
    written = sorted(p.stem for p in (tmp_path / "out").glob("m*.ovf"))
    assert sorted(r.snapshots) == written and len(written) >= 4, written
    last = list(r.snapshots.values())[-1]
    assert last.shape == r.m.shape
    np.testing.assert_array_equal(last, r.m)


def test_a_path_and_overrides(tmp_path):
    config = tmp_path / "film.toml"
    config.write_text(FILM)
    r = micromag.run(str(config), precision="float")
    assert r.summary["precision"] == "float"
    assert len(r.table["t"]) > 3


def test_bad_configurations_are_value_errors():
    with pytest.raises(ValueError, match="cells"):
        micromag.run(FILM.replace("cells = [32, 12, 1]", "cells = [32, 0, 1]"))
    with pytest.raises(ValueError):
        micromag.run(FILM.replace('kind = "run"', 'kind = "sprint"'))
