"""Paper 004 Fig. 8: TPC against TTIT per candidate tree at batch 1, one panel per model."""
from plotlib import OURS, PAPER, fnum, groups, plt, save, start

d, rows = start("eagle-fig8.csv")
models = groups(rows, "model")
fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4.5), squeeze=False)
for ax, (model, rs) in zip(axes[0], models):
    ax.scatter([fnum(r["ttit_ms"]) for r in rs], [fnum(r["tpc"]) for r in rs], s=14, color=OURS)
    for r in rs:
        ax.annotate(r["tree"], (fnum(r["ttit_ms"]), fnum(r["tpc"])), fontsize=6, xytext=(2, 2),
                    textcoords="offset points")
    for r in rs:
        if r["dispatcher_choice"] == "*":
            ax.plot([fnum(r["ttit_ms"])], [fnum(r["tpc"])], "*", ms=14, color=OURS, label="dispatcher: " + r["tree"])
        if r["paper_production_tree"] == "*":
            ax.plot([fnum(r["ttit_ms"])], [fnum(r["tpc"])], "o", ms=12, mfc="none", color=PAPER,
                    label="paper's production tree: " + r["tree"])
    ax.set_title(model)
    ax.set_xlabel("TTIT, one decode step (ms)")
    ax.set_ylabel("TPC (tokens per call)")
    ax.legend(fontsize=8)
fig.suptitle("Paper 004 Fig. 8 (reproduced): batch 1, 8x H100 tensor parallel")
save(fig, d + "/eagle_fig8.png")
