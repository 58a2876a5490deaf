#!/usr/bin/env python3
"""The radius of a skyrmion in an OVF 2.0 state: where m_z changes sign along the +x and -x
half-lines and the +y and -y half-lines through the mesh centre (linear interpolation
between cells, averaged over the four), and the tilt of m at the disk's edge on +x.

    skyrmion_radius.py STATE.ovf [--cell NM] [--label TEXT]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ovf import read_ovf  # noqa: E402


def crossing(profile, cell):
    # profile[0] at the centre (half a cell out), outward
    for i in range(len(profile) - 1):
        a, b = profile[i], profile[i + 1]
        if (a > 0) != (b > 0) and a != b:
            return (i + 0.5 + a / (a - b)) * cell
    return float('nan')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('state')
    ap.add_argument('--cell', type=float, default=1.0, help='cell size in x and y, nm')
    ap.add_argument('--label', default='')
    a = ap.parse_args()
    m = read_ovf(a.state)  # (nz, ny, nx, 3)
    mz = m[0, :, :, 2]
    ny, nx = mz.shape
    cy, cx = ny // 2, nx // 2  # even counts: the centre lies between cx - 1 and cx
    arms = [mz[cy, cx:], mz[cy, cx - 1::-1], mz[cy:, cx], mz[cy - 1::-1, cx]]
    radii = [crossing(p, a.cell) for p in arms]
    row = m[0, cy, :, :]
    edge = row[np.nonzero(np.linalg.norm(row, axis=1))[0][-1]]
    tilt = np.degrees(np.arccos(np.clip(abs(edge[2]), 0, 1)))
    print(f"{a.label}radius (m_z = 0) {np.mean(radii):.3f} nm (arms {', '.join(f'{r:.3f}' for r in radii)}); "
          f"edge tilt on +x {tilt:.2f} deg")


if __name__ == '__main__':
    main()
