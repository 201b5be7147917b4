"""Paper 000 Table II: best vs unified speedup per task, ours beside the paper's."""
import numpy as np

from plotlib import OURS, PAPER, fnum, plt, save, start

d, rows = start("table2.csv")
tasks = [r["task"] for r in rows]
idx = np.arange(len(tasks))
fig, ax = plt.subplots(figsize=(8, 4))
w = 0.2
series = [("best_speedup", "best x (specdse)", OURS, None),
          ("unified_speedup", "unified x (specdse)", OURS, "//"),
          ("paper_best_speedup", "best x (paper)", PAPER, None),
          ("paper_unified_speedup", "unified x (paper)", PAPER, "//")]
for i, (col, label, color, hatch) in enumerate(series):
    vals = [fnum(r[col]) or 0 for r in rows]
    ax.bar(idx + (i - 1.5) * w, vals, w, label=label, color=color, alpha=0.85 if hatch is None else 0.45,
           hatch=hatch, edgecolor=color)
for i, r in enumerate(rows):
    ax.annotate("x=%s/%s" % (r["best_x"], r["unified_x"]), (idx[i] - 2 * w, fnum(r["best_speedup"])),
                textcoords="offset points", xytext=(0, 3), fontsize=7)
ax.axhline(1.0, color="k", lw=0.8, ls="--")
ax.set_xticks(idx)
ax.set_xticklabels(tasks)
ax.set_xlabel("task (LongSpec, Llama-3.1-8B-Instruct, V80, context 1024)")
ax.set_ylabel("speedup over AD (×)")
ax.set_title("Table II: task-specific vs unified verification length")
ax.legend(ncol=2, fontsize=8, loc="lower right")
save(fig, d + "/table2.png")
