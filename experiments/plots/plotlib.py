"""Shared helpers for the specdse plot scripts (run by Debian's /usr/bin/python3 with matplotlib).

Every script is called as: SCRIPT OUT_DIR [ARGS...] and writes PNGs into OUT_DIR.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OURS = "#1f77b4"
PAPER = "#d62728"
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def out_dir():
    if len(sys.argv) < 2:
        sys.exit("usage: %s OUT_DIR [ARGS...]" % os.path.basename(sys.argv[0]))
    return sys.argv[1]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fnum(text):
    """Float of a CSV cell, None when empty."""
    text = (text or "").strip()
    return float(text) if text else None


def style():
    plt.rcParams.update({
        "figure.dpi": 110,
        "savefig.dpi": 150,
        "font.size": 10,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.frameon": False,
    })


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    print("wrote", path)
