#!/usr/bin/env python3
"""A magnet study from Python: the field's homogeneity against the number of wires, each
design solved in memory (gridsolve.magnet.design, the command's `gridsolve magnet`), and
the plot a study ends in.

    PYTHONPATH=build/python python3 examples/python/magnet_study.py [--plot study.png]
"""
import argparse

from gridsolve import magnet


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--h", type=float, default=0.0125, help="mesh spacing (m)")
    p.add_argument("--plot", help="write the plot here (needs matplotlib)")
    a = p.parse_args()
    wires = [4, 6, 8, 10, 12, 16]
    designs = [magnet.design(h=a.h, wires=n) for n in wires]
    sphere = [d.summary["field"]["sphere_peak_to_peak_ppm"] for d in designs]
    axis = [d.summary["field"]["axis_peak_to_peak_ppm"] for d in designs]
    print("| wires | current (A) | sphere r = 0.1: peak to peak (ppm) | axis (ppm) |")
    print("|---|---|---|---|")
    for n, d, s, x in zip(wires, designs, sphere, axis):
        print(f"| {n} | {d.current:.2f} | {s:.0f} | {x:.0f} |")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        left.semilogy(wires, sphere, "o-", label="sphere r = 0.1")
        left.semilogy(wires, axis, "s-", label="axis")
        left.set_xlabel("wires per half")
        left.set_ylabel("peak to peak (ppm of B(0))")
        left.set_title("homogeneity against the wires")
        left.legend()
        best = designs[-1]
        right.plot(best.axis_z, best.axis_ppm)
        right.set_xlabel("z (m)")
        right.set_ylabel("B_z - B(0) (ppm)")
        right.set_title(f"{wires[-1]} wires: the field along the axis")
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
        print(f"plot: {a.plot}")


if __name__ == "__main__":
    main()
