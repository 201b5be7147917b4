"""SpecPipe (paper 002) Fig. 10: average TBT and hit rate vs tree width w, one line per k."""
from plotlib import COLORS, fnum, groups, plt, read_csv, save, start

d, rows = start("specpipe-fig10.csv")
base = read_csv(d + "/specpipe-fig10_baselines.csv")
curves = groups(rows, "hit_curve")
fig, axes = plt.subplots(2, len(curves), figsize=(5.5 * len(curves), 7), squeeze=False)
for col, (curve, rs) in enumerate(curves):
    for i, (k, kr) in enumerate(groups(rs, "k")):
        kr = sorted(kr, key=lambda r: int(r["w"]))
        w = [int(r["w"]) for r in kr]
        axes[0][col].plot(w, [fnum(r["tbt_mean_s"]) * 1e3 for r in kr], "o-", ms=3, color=COLORS[i], label="k=%s" % k)
        axes[1][col].plot(w, [fnum(r["hit_rate"]) for r in kr], "o-", ms=3, color=COLORS[i], label="k=%s" % k)
    for b in base:
        if b["hit_curve"] == curve:
            axes[0][col].axhline(fnum(b["tbt_mean_s"]) * 1e3, ls="--", lw=0.9, color="0.5")
            axes[0][col].annotate(b["method"], (128, fnum(b["tbt_mean_s"]) * 1e3), fontsize=7, ha="right", va="bottom")
    best = [r for r in rs if r["best"] == "*"]
    if best:
        axes[0][col].plot([int(best[0]["w"])], [fnum(best[0]["tbt_mean_s"]) * 1e3], "k*", ms=12, label="best")
    axes[0][col].set_title("hit curve: %s draft" % curve)
    axes[0][col].set_ylabel("average TBT (ms)")
    axes[1][col].set_ylabel("hit rate (levels holding the target token)")
    axes[1][col].set_xlabel("tree width w")
    axes[0][col].legend(fontsize=7)
fig.suptitle("Fig. 10: SpecPipe on 8x RTX 3090 (Llama-3.1-70B, Llama-3.2-1B draft on L40)")
save(fig, d + "/specpipe_fig10.png")
