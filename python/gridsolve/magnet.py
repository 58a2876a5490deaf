"""The magnet design (`gridsolve magnet`) from Python:

    >>> from gridsolve import magnet
    >>> d = magnet.design(h=0.01)                     # the default magnet, 10 mm mesh
    >>> round(d.current), len(d.wires)                # amperes on the upper half, wires
    (4454, 10)
    >>> d.phi.shape                                   # (nz, nr) nodes of the potential

Every keyword is the command's option of the same name (lengths in metres, B in tesla);
errors in them raise ValueError with the command's message.
"""
import json

from . import _core

__all__ = ["Design", "design"]


class Design:
    """One design: summary (summary.json's keys), current (A, upper half), wires (list of
    dicts: index, surface, r, z, current), b0 (T at the centre), axis_ppm / sphere_ppm (the
    field's homogeneity), phi (the potential, shape (nz, nr)), and axis_z, axis_bz, axis_ppm
    (the wires' B_z along the axis)."""

    def __init__(self, summary, phi, axis_z, axis_bz, axis_ppm):
        self.summary = summary
        self.phi = phi
        self.axis_z, self.axis_bz, self.axis_ppm = axis_z, axis_bz, axis_ppm

    @property
    def converged(self):
        return bool(self.summary["solve"]["converged"])

    @property
    def current(self):
        return self.summary.get("total_current")

    @property
    def wires(self):
        return self.summary.get("wires", [])

    @property
    def b0(self):
        return self.summary.get("field", {}).get("b0")

    def __repr__(self):
        if not self.converged:
            return f"Design(not converged: {self.summary['solve']['reason']})"
        return (f"Design(I = {self.current:.2f} A, {len(self.wires)} wires, "
                f"B(0) = {self.b0 * 1e3:.4f} mT)")


def design(r0=0.25, z0=0.5, r1=2.0, z1=2.0, h=0.005, B=0.008, wires=10, axis_span=0.4,
           sphere_radius=0.1, solver=None, device="cpu", precision="double", tol=None):
    """Solves the magnet's scalar potential and places its wires, as the command does.

    r0, z0: the magnet's radius and half length; r1, z1: the outer box; h: the mesh
    spacing (must divide them); B: the field wanted at the centre; wires per half;
    axis_span and sphere_radius: where homogeneity is measured. solver: the command's
    default (mgcg) when None; tol: the source's rule (0.5e-6) when None."""
    summary, phi, z, bz, ppm = _core.magnet_design(
        r0, z0, r1, z1, h, B, int(wires), axis_span, sphere_radius, solver or "", device,
        precision, tol)
    return Design(json.loads(summary), phi, z, bz, ppm)
