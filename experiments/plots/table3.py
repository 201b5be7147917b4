"""Paper 000 Table III: throughput of the best set per tree-construction method."""
import numpy as np

from plotlib import OURS, PAPER, fnum, plt, save, start

d, rows = start("table3.csv")
idx = np.arange(len(rows))
fig, ax = plt.subplots(figsize=(7, 4))
w = 0.38
ours = [fnum(r["tokens_per_s"]) for r in rows]
paper = [fnum(r["paper_tokens_per_s"]) or 0 for r in rows]
b1 = ax.bar(idx - w / 2, ours, w, color=OURS, label="specdse")
b2 = ax.bar(idx + w / 2, paper, w, color=PAPER, alpha=0.7, label="paper 000")
for i, r in enumerate(rows):
    ax.annotate("x=%s\n%.2f×" % (r["best_x"], fnum(r["speedup"])), (idx[i] - w / 2, ours[i]),
                textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
    if r["paper_best_x"]:
        ax.annotate("x=%s\n%.2f×" % (r["paper_best_x"], fnum(r["paper_speedup"])), (idx[i] + w / 2, paper[i]),
                    textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8, color=PAPER)
ax.set_xticks(idx)
ax.set_xticklabels([r["method"] for r in rows])
ax.set_ylabel("effective performance P_eff (tokens/s)")
ax.set_xlabel("token-tree construction (LongSpec, Llama-3.1-8B-Instruct, V80, context 1024)")
ax.set_title("Table III: best set per tree-construction method")
ax.set_ylim(0, max(ours + paper) * 1.25)
ax.legend(loc="upper left")
save(fig, d + "/table3.png")
