"""SpecPipe (paper 002) Fig. 10: average TBT and hit rate vs tree width w, one line per k."""
from plotlib import COLORS, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
rows = read_csv(d + "/specpipe-fig10.csv")
base = read_csv(d + "/specpipe-fig10_baselines.csv")
style()
curves = list(dict.fromkeys(r["hit_curve"] for r in rows))
fig, axes = plt.subplots(2, len(curves), figsize=(5.5 * len(curves), 7), squeeze=False)
for col, curve in enumerate(curves):
    rs = [r for r in rows if r["hit_curve"] == curve]
    ks = list(dict.fromkeys(r["k"] for r in rs))
    for i, k in enumerate(ks):
        kr = sorted([r for r in rs if r["k"] == k], key=lambda r: int(r["w"]))
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
