"""Paper 003 Fig. 4: time per iteration (target forward, draft, communication) and tokens per
iteration of AD, SpS and DuoDecoding."""
import numpy as np

from plotlib import COLORS, fnum, plt, save, start

d, rows = start("duo-fig4.csv")
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
idx = np.arange(len(rows))
w = 0.27
parts = [("target_forward_s", "target forward (GPU)"), ("draft_s", "draft (CPU)"), ("comm_s", "communication (PCIe)")]
for k, (col, label) in enumerate(parts):
    ax.bar(idx + (k - 1) * w, [1e3 * fnum(r[col]) for r in rows], w, color=COLORS[k], label=label)
ax.plot(idx, [1e3 * fnum(r["iteration_s"]) for r in rows], "k_", ms=40, mew=2, label="iteration (wall)")
ax.set_xticks(idx)
ax.set_xticklabels([r["method"].replace(" (draft", "\n(draft") + " [%s]" % r["budget"] for r in rows])
ax.set_ylabel("ms per iteration")
ax.set_title("time per iteration (draft overlaps the target in DuoDecoding)")
ax.legend(fontsize=8)
ax2.bar(idx - w / 2, [fnum(r["processed_tokens_per_iteration"]) for r in rows], w, color=COLORS[0],
        label="processed by the target (x)")
ax2.bar(idx + w / 2, [fnum(r["tokens_per_iteration"]) for r in rows], w, color=COLORS[2], label="appended")
ax2.plot(idx, [fnum(r["paper_processed_tokens_per_iteration"]) for r in rows], "r*", ms=10,
         label="paper 003: processed")
ax2.set_xticks(idx)
ax2.set_xticklabels([r["method"].replace(" (draft", "\n(draft") for r in rows])
ax2.set_ylabel("tokens per iteration")
ax2.set_title("tokens per iteration")
ax2.legend(fontsize=8)
save(fig, d + "/duo-fig4.png")
