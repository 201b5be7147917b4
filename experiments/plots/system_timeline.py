"""Gantt chart of a `specdse system --trace` timeline (Chrome trace-event JSON).

Usage: system_timeline.py OUT_DIR TRACE_JSON PNG_NAME [TITLE]
One row per resource (device streams, link lanes), one bar per task, coloured by category.
"""
import json
import os
import sys

from plotlib import COLORS, out_dir, save, style

import matplotlib.pyplot as plt  # noqa: E402


def main():
    out = out_dir()
    trace_path, png = sys.argv[2], sys.argv[3]
    title = sys.argv[4] if len(sys.argv) > 4 else os.path.basename(trace_path)
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    bars = [e for e in events if e["ph"] == "X"]
    rows = sorted({(e["pid"], e["tid"]) for e in bars})
    row_of = {r: i for i, r in enumerate(rows)}
    cats = sorted({e["cat"] for e in bars})
    color = {c: COLORS[i % len(COLORS)] for i, c in enumerate(cats)}
    # Microsecond transfers beside millisecond compute: draw every bar at least 0.3 % of the span wide.
    span = max((e["ts"] + e["dur"]) / 1e3 for e in bars) if bars else 1.0
    min_w = span * 0.003
    style()
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(rows) + 1.5))
    for c in cats:
        segs = [(e["ts"] / 1e3, max(e["dur"] / 1e3, min_w), row_of[(e["pid"], e["tid"])]) for e in bars if e["cat"] == c]
        for i, (x, w, y) in enumerate(segs):
            ax.barh(y, w, left=x, height=0.7, color=color[c], label=c if i == 0 else None)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([names.get(r, str(r)) for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8)
    save(fig, os.path.join(out, png))


if __name__ == "__main__":
    main()
