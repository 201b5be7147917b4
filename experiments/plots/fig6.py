"""Paper 000 Fig. 6: AAT vs x for the prior-score search and the width-/depth-first baselines."""
from plotlib import COLORS, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
rows = read_csv(d + "/fig6_curves.csv")
summary = {r["method"]: r for r in read_csv(d + "/fig6.csv")}
style()
fig, ax = plt.subplots(figsize=(7.5, 4.8))
for i, (method, s) in enumerate(summary.items()):
    rs = sorted([r for r in rows if r["method"] == method], key=lambda r: int(r["x"]))
    x = [int(r["x"]) for r in rs]
    label = "%s (mean AAT %.2f" % (method, fnum(s["mean_aat"]))
    if fnum(s["paper_prior_score_aat_advantage"]) is not None:
        label += "; prior-score +%.2f, paper +%.2f" % (fnum(s["prior_score_aat_advantage"]),
                                                      fnum(s["paper_prior_score_aat_advantage"]))
    label += ")"
    ax.plot(x, [fnum(r["aat"]) for r in rs], "o", ms=4, color=COLORS[i], label=label)
    ax.plot(x, [fnum(r["aat_fit"]) for r in rs], "-", lw=1, color=COLORS[i])
ax.set_xlabel("verification length x (tokens)")
ax.set_ylabel("AAT (tokens per iteration)")
ax.set_title("Fig. 6: AAT per tree-construction method (LongSpec, Llama-3.1-8B-Instruct, L = 1024)\n"
             "points: measured; lines: fitted A + B ln(x − C)", fontsize=10)
ax.legend(fontsize=8, loc="lower right")
save(fig, d + "/fig6.png")
