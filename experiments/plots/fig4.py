"""Paper 000 Fig. 4: naive/original/best speedup (bars) and best x (line) per context and model."""
import numpy as np

from plotlib import PAPER, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
rows = read_csv(d + "/fig4.csv")
summary = read_csv(d + "/fig4_summary.csv")
style()
fig, axes = plt.subplots(2, 3, figsize=(15, 8))
for ax, s in zip(axes.flat, summary):
    rs = [r for r in rows if r["algorithm"] == s["algorithm"] and r["model"] == s["model"]]
    ctx = [r["context"] for r in rs]
    idx = np.arange(len(rs))
    w = 0.27
    ax.bar(idx - w, [fnum(r["naive_speedup"]) for r in rs], w, color="#bbbbbb", label="naive set")
    if any(r["original_speedup"] for r in rs):
        ax.bar(idx, [fnum(r["original_speedup"]) or 0 for r in rs], w, color="#ff7f0e", label="original set")
    ax.bar(idx + w, [fnum(r["speedup"]) for r in rs], w, color="#1f77b4", label="best set (specdse)")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    top = max(max(fnum(r["speedup"]), fnum(r["naive_speedup"]), fnum(r["original_speedup"]) or 0) for r in rs)
    ax.set_ylim(0, top * 1.5)  # room for the legend and the average box above the bars
    ax.set_xticks(idx)
    ax.set_xticklabels(ctx)
    ax.set_xlabel("context length L (tokens)")
    ax.set_ylabel("speedup over AD (×)")
    tx = ax.twinx()
    tx.plot(idx + w, [int(r["best_x"]) for r in rs], "-o", color="#2ca02c", label="best x")
    tx.set_ylabel("best verification length x (tokens)")
    tx.set_ylim(0, max(int(r["best_x"]) for r in rs) * 1.5)
    tx.grid(False)
    paper = fnum(s["paper_avg_speedup"])
    txt = "avg %.2f×" % fnum(s["avg_speedup"]) + ("\npaper %.2f×" % paper if paper else "")
    ax.text(0.98, 0.97, txt, transform=ax.transAxes, ha="right", va="top", fontsize=10,
            bbox=dict(facecolor="white", edgecolor=PAPER if paper else "k", alpha=0.9))
    ax.set_title("%s on %s" % ("LongSpec" if s["algorithm"].startswith("longspec") else "EAGLE-3", s["model"]))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = tx.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
fig.suptitle("Fig. 4: speedup and best verification length on V80 (measured AAT of paper 000 table 8)")
save(fig, d + "/fig4.png")
