#!/usr/bin/env python3
"""<m>(t) of a gridsolve run (table.csv) beside mumax3's (table.txt) of the same problem.

Both tables count time from the stage being compared: gridsolve's from its last row at t = 0
(after a relax), mumax3's from its first row. gridsolve's rows (written finely) are read at
mumax3's row times by linear interpolation. Prints <m> at the end of each, their largest
difference, the largest difference of the curves and the first zero crossing of <m_x>.

Usage: compare_tables.py GRIDSOLVE_TABLE_CSV MUMAX3_TABLE_TXT [--label TEXT]
       [--check MX MY MZ] (reference values of <m> at the end, printed beside ours)
"""
import argparse


def rows(path):
    out = []
    for line in open(path):
        if line.startswith('#') or not line.strip() or line[0].isalpha():
            continue
        out.append([float(v) for v in line.replace(',', ' ').split()[:4]])
    return out


def crossing(table):
    for a, b in zip(table, table[1:]):
        if b[0] > a[0] and abs(a[1]) >= 1e-3 and (a[1] > 0) != (b[1] > 0):
            return a[0] + (b[0] - a[0]) * a[1] / (a[1] - b[1])
    return float('nan')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ours')
    ap.add_argument('mumax3')
    ap.add_argument('--label', default='gridsolve')
    ap.add_argument('--check', nargs=3, type=float)
    a = ap.parse_args()
    gs, mx = rows(a.ours), rows(a.mumax3)
    if len(gs) < 2 or len(mx) < 2:
        print(f"{a.label}: a table is empty ({len(gs)} and {len(mx)} rows)")
        return 1
    gs = gs[[i for i, r in enumerate(gs) if r[0] == 0][-1]:]
    t0 = mx[0][0]
    mx = [[r[0] - t0] + r[1:] for r in mx]
    worst, j = 0.0, 0
    for r in mx:
        while j + 2 < len(gs) and gs[j + 1][0] < r[0]:
            j += 1
        p, q = gs[j], gs[j + 1]
        w = min(max((r[0] - p[0]) / (q[0] - p[0]), 0.0), 1.0)
        worst = max(worst, max(abs(p[k] + w * (q[k] - p[k]) - r[k]) for k in (1, 2, 3)))
    end, mend = gs[-1], mx[-1]
    fmt = lambda v: f"({v[1]:.5f}, {v[2]:.5f}, {v[3]:.5f})"
    print(f"{a.label}: <m>(end) {fmt(end)}, mumax3 {fmt(mend)}, differ by "
          f"{max(abs(end[k] - mend[k]) for k in (1, 2, 3)):.2e}; the <m>(t) curves by at most "
          f"{worst:.2e}; <m_x> first crosses zero at {crossing(gs) * 1e9:.4f} ns "
          f"(mumax3 {crossing(mx) * 1e9:.4f} ns)")
    if a.check:
        print(f"{a.label}: <m>(end) against the check values ({a.check[0]:.5f}, {a.check[1]:.5f}, "
              f"{a.check[2]:.5f}): {max(abs(end[k + 1] - a.check[k]) for k in range(3)):.2e}, "
              f"mumax3's {max(abs(mend[k + 1] - a.check[k]) for k in range(3)):.2e}")
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
