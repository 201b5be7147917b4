"""Shared helpers for the specdse plot scripts (run by Debian's /usr/bin/python3 with matplotlib).

Every script is called as: SCRIPT OUT_DIR [ARGS...] and writes each figure into OUT_DIR as a PNG
and, beside it, a PDF of the same name (vector, for papers). Both are byte-for-byte repeatable:
no creation dates, no software versions in the metadata, fixed hash salt for SVG/PDF ids, so
regenerating a figure from the same CSV leaves git clean.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "specdse"  # deterministic ids in vector output
import matplotlib.pyplot as plt  # noqa: E402

OURS = "#1f77b4"
PAPER = "#d62728"
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def out_dir():
    if len(sys.argv) < 2:
        sys.exit("usage: %s OUT_DIR [ARGS...]" % os.path.basename(sys.argv[0]))
    return sys.argv[1]


def read_csv(path):
    # A command's CSV may start with '# key: value' lines (its footer's fields): skipped.
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("# ")))


def start(csv_name):
    """How every script begins: the output folder, the rows of its CSV `csv_name` and the shared style."""
    d = out_dir()
    rows = read_csv(d + "/" + csv_name)
    style()
    return d, rows


def distinct(rows, column):
    """The values of `column` in first-seen order: the lines, bar sets or panels of a figure."""
    return list(dict.fromkeys(r[column] for r in rows))


def groups(rows, column):
    """(value, its rows) for each distinct value of `column`, in first-seen order."""
    return [(v, [r for r in rows if r[column] == v]) for v in distinct(rows, column)]


# Paper 003's four tasks: each one's column (relative to a reference row) and its legend label.
PAPER003_TASKS = [("paper_mt_relative", "MT"), ("paper_trans_relative", "Trans"),
                  ("paper_math_relative", "Math"), ("paper_code_relative", "Code")]


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


# Metadata written into every figure: a fixed creator and no dates or versions (matplotlib
# writes CreationDate and its own version otherwise, which changes the bytes on every run).
PNG_METADATA = {"Software": None}
PDF_METADATA = {"Creator": "specdse", "Producer": None, "CreationDate": None, "ModDate": None}


def save(fig, path):
    """Writes `path` (a .png) and the same figure as a .pdf beside it."""
    fig.tight_layout()
    stem = os.path.splitext(path)[0]
    fig.savefig(stem + ".png", bbox_inches="tight", metadata=PNG_METADATA)
    fig.savefig(stem + ".pdf", bbox_inches="tight", metadata=PDF_METADATA)
    plt.close(fig)
    print("wrote", stem + ".png", "and", stem + ".pdf")
