"""Incompressible flow from Python: the commands' runs, in memory."""
import json
import os
import subprocess

import numpy as np
import pytest

from gridsolve import flow


def cli(*args):
    subprocess.run([os.environ["GRIDSOLVE_CLI"], *args], check=True, capture_output=True)


def test_the_cavity_is_the_commands_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = flow.cavity(re=100, n=24)
    assert list(tmp_path.iterdir()) == []  # no result file
    cli("cavity", "--re", "100", "--n", "24", "--device", "cpu", "--no-plots", "--out",
        str(tmp_path / "out"))
    want = json.loads((tmp_path / "out" / "summary.json").read_text())
    for key in ("psi_min", "vortex_centre", "iterations", "converged", "max_divergence"):
        assert r.summary[key] == want[key], key
    # The fields: cell-centred, (ny, nx); the lid drags the top row along +x.
    assert r.u.shape == r.v.shape == r.p.shape == (24, 24)
    assert r.w is None
    assert r.u[-1].mean() > 0.3 and abs(r.u[0].mean()) < 0.1
    # Continuity, discretely: the cell-centred field of a divergence-free face field.
    assert r.summary["max_divergence"] < 1e-6
    assert len(r.history["step"]) >= 2 and r.history["change"][-1] < 1e-6


def test_the_channel_in_time_and_its_forces(tmp_path):
    r = flow.channel("dfg-2d-1", cpd=4, coupling="piso", t_end=0.2)
    cli("channel", "--case", "dfg-2d-1", "--cpd", "4", "--device", "cpu", "--no-plots",
        "--coupling", "piso", "--t-end", "0.2", "--frames", "0", "--out", str(tmp_path / "out"))
    want = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert r.summary["c_d_final"] == want["c_d_final"]
    assert r.forces["t"][-1] == pytest.approx(0.2)
    assert r.forces["c_d"][-1] == pytest.approx(want["c_d_final"], rel=1e-12)
    assert np.all(np.diff(r.history["time"]) > 0)


def test_frames_of_a_transient_run():
    # The frames the command's series would hold (every t_end / 4), kept in memory; keeping
    # them changes nothing in the run.
    r = flow.cavity(re=100, n=16, coupling="piso", t_end=0.4, frames=4)
    plain = flow.cavity(re=100, n=16, coupling="piso", t_end=0.4)
    assert [round(f["t"] / 0.1) for f in r.frames] == [1, 2, 3, 4]
    dt = r.history["dt"].max()
    for k, f in enumerate(r.frames):
        assert 0.1 * (k + 1) - 1e-12 <= f["t"] < 0.1 * (k + 1) + dt
        assert f["u"].shape == (16, 16) and f["p"].shape == (16, 16) and "w" not in f
    np.testing.assert_array_equal(r.frames[-1]["u"], r.u)  # the last frame is at t_end
    assert np.abs(r.frames[0]["u"] - r.u).max() > 1e-3     # the flow still develops
    np.testing.assert_array_equal(r.u, plain.u)
    assert plain.frames == []


def test_checkpoint_and_restart(tmp_path):
    # A run stopped after 10 steps with a checkpoint; the restart to t_end equals the run
    # that never stopped, bit for bit, and so does its history.
    ck = tmp_path / "cavity.gsflow"
    whole = flow.cavity(re=100, n=16, coupling="piso", t_end=1.0)
    first = flow.cavity(re=100, n=16, coupling="piso", t_end=1.0, checkpoint=str(ck),
                        stop_after=10)
    assert ck.exists() and 0 < first.summary["time"] < 0.5
    rest = flow.cavity(re=100, n=16, coupling="piso", t_end=1.0, restart=str(ck))
    np.testing.assert_array_equal(rest.u, whole.u)
    np.testing.assert_array_equal(rest.p, whole.p)
    np.testing.assert_array_equal(rest.history["time"], whole.history["time"])
    with pytest.raises(ValueError, match="need checkpoint, the file"):
        flow.cavity(n=8, checkpoint_every=5)
    with pytest.raises(ValueError, match="checkpoint"):
        flow.cavity(re=100, n=16, coupling="piso", t_end=1.0, restart=str(tmp_path / "none"))


def test_a_case_file_and_its_settings(tmp_path):
    case = tmp_path / "box.toml"
    case.write_text('[flow]\ncells = [16, 12]\nhi = [1.5, 1]\nnu = 0.05\n'
                    '[boundary.y_high]\ntype = "wall"\nvelocity = [1, 0]\n'
                    '[method]\ncoupling = "piso"\nt_end = 0.3\n')
    r = flow.run(str(case))
    assert r.u.shape == (12, 16)
    assert r.summary["time_scheme"] == "bdf2"
    euler = flow.run(case.read_text(), time="euler", cfl=0.4)
    assert euler.summary["time_scheme"] == "euler"
    assert not np.array_equal(euler.u, r.u)


def test_bad_settings_are_value_errors():
    with pytest.raises(ValueError, match="relax_q"):
        flow.cavity(n=16, relax_q=0.5)
    with pytest.raises(ValueError, match="coupling"):
        flow.cavity(n=16, coupling="simplest")
    with pytest.raises(ValueError):
        flow.channel("dfg-9d", cpd=4)
    with pytest.raises(ValueError):
        flow.run("[flow]\ncells = [0, 4]\n")
    with pytest.raises(ValueError, match="frames must be in"):
        flow.cavity(n=16, coupling="piso", t_end=0.1, frames=-1)
    with pytest.raises(ValueError, match="must not be negative"):
        flow.cavity(n=16, coupling="piso", t_end=0.1, checkpoint="x.gsflow", stop_after=-2)


def test_the_projection_scheme(tmp_path):
    # The shipped example (rk3 stages, the pressure by transforms) equals the command's run;
    # the coupling's word alone brings its time scheme along.
    example = os.path.join(os.environ.get("GRIDSOLVE_SOURCE_DIR", "."),
                           "examples/flow/taylor_green_projection.toml")
    if not os.path.exists(example):
        example = os.path.join(os.path.dirname(__file__), "../../examples/flow/"
                               "taylor_green_projection.toml")
    r = flow.run(example, frames=0)
    cli("flow", example, "--device", "cpu", "--no-plots", "--frames", "0", "--out",
        str(tmp_path / "out"))
    want = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert r.summary["time_scheme"] == "rk3" and r.summary["psi_min"] == want["psi_min"]
    assert r.summary["max_divergence"] < 1e-12  # the transform solve is exact
    cavity = flow.cavity(re=100, n=16, coupling="projection", t_end=0.3)
    assert cavity.summary["time_scheme"] == "rk3"
    with pytest.raises(ValueError, match="rk3"):
        flow.cavity(n=16, coupling="projection", time="bdf2", t_end=0.1)
