#!/usr/bin/env python3
"""Compares two OVF 2.0 vector fields of the same mesh cell by cell.

    compare_ovf.py A.ovf B.ovf [--label NAME] [--csv FILE]

Prints one line: the largest and the RMS difference |A - B| over the cells where either
field is non-zero, relative to the largest |B|, and the same split by where the cells sit:
corners (a cell at the ends of both x and y), edges (the other cells of the outer ring in
x-y) and the interior. With --csv the line is appended to FILE (a header first if it is
new). Reads binary 4, binary 8 and text data (gridsolve and mumax3 write these); numpy is
the only requirement.
"""
import argparse
import csv
import os
import re
import sys

import numpy as np


def read_ovf(path):
    raw = open(path, "rb").read()
    head_end = raw.find(b"# Begin: Data")
    if head_end < 0:
        sys.exit(f"compare_ovf: {path} has no '# Begin: Data' line: not an OVF 2.0 file")
    header = raw[:head_end].decode("ascii", "replace")
    n = []
    for axis in "xyz":
        m = re.search(rf"#\s*{axis}nodes:\s*(\d+)", header)
        if not m:
            sys.exit(f"compare_ovf: {path} names no {axis}nodes")
        n.append(int(m.group(1)))
    count = n[0] * n[1] * n[2] * 3
    line_end = raw.index(b"\n", head_end)
    kind = raw[head_end:line_end].decode().split()
    start = line_end + 1
    if kind[3] == "Binary":
        size = int(kind[4])
        dtype = np.dtype("<f4") if size == 4 else np.dtype("<f8")
        check = np.frombuffer(raw, dtype=dtype, count=1, offset=start)[0]
        expected = 1234567.0 if size == 4 else 123456789012345.0
        if check != expected:
            sys.exit(f"compare_ovf: {path}: check value {check}, expected {expected}")
        data = np.frombuffer(raw, dtype=dtype, count=count, offset=start + size)
    else:
        end = raw.find(b"# End: Data", start)
        data = np.array(raw[start:end].split(), dtype=np.float64)[:count]
    if data.size != count:
        sys.exit(f"compare_ovf: {path} holds {data.size} values, its header promises {count}")
    return data.astype(np.float64).reshape(n[2], n[1], n[0], 3)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b", help="the reference: differences are relative to its largest |B|")
    p.add_argument("--label", default="")
    p.add_argument("--csv")
    o = p.parse_args()
    a, b = read_ovf(o.a), read_ovf(o.b)
    if a.shape != b.shape:
        sys.exit(f"compare_ovf: meshes differ: {a.shape[:3][::-1]} and {b.shape[:3][::-1]}")
    nz, ny, nx, _ = a.shape
    diff = np.linalg.norm(a - b, axis=3)
    scale = np.linalg.norm(b, axis=3).max()
    scale = scale if scale > 0 else 1.0
    used = (np.linalg.norm(a, axis=3) > 0) | (np.linalg.norm(b, axis=3) > 0)
    j, i = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    end_x, end_y = (i == 0) | (i == nx - 1), (j == 0) | (j == ny - 1)
    where = {
        "corners": np.broadcast_to(end_x & end_y, diff.shape),
        "edges": np.broadcast_to((end_x | end_y) & ~(end_x & end_y), diff.shape),
        "interior": np.broadcast_to(~(end_x | end_y), diff.shape),
    }
    row = {"label": o.label or os.path.basename(o.a), "max_abs_b": scale}

    def stats(mask):
        d = diff[mask & used]
        if d.size == 0:
            return float("nan"), float("nan")
        return d.max() / scale, np.sqrt(np.mean(d**2)) / scale

    row["max_rel"], row["rms_rel"] = stats(np.ones_like(used))
    for name, mask in where.items():
        row[f"{name}_max_rel"], row[f"{name}_rms_rel"] = stats(mask)
    worst = np.unravel_index(np.argmax(np.where(used, diff, -1)), diff.shape)
    row["worst_cell"] = f"{worst[2]}:{worst[1]}:{worst[0]}"
    print(
        f"{row['label']}: max |B| {scale:.5g}; |A - B| / max |B|: max {row['max_rel']:.3e} "
        f"rms {row['rms_rel']:.3e} (at cell {row['worst_cell']}); corners max "
        f"{row['corners_max_rel']:.3e}, edges max {row['edges_max_rel']:.3e} rms "
        f"{row['edges_rms_rel']:.3e}, interior max {row['interior_max_rel']:.3e} rms "
        f"{row['interior_rms_rel']:.3e}"
    )
    if o.csv:
        new = not os.path.exists(o.csv)
        with open(o.csv, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)


if __name__ == "__main__":
    main()
