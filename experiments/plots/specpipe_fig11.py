"""SpecPipe (paper 002) Figs. 11 / 13: average TBT per pipeline method, one panel per testbed."""
from plotlib import COLORS, fnum, groups, plt, save, start

d, rows = start("specpipe-fig11.csv")
systems = groups(rows, "system")
fig, axes = plt.subplots(1, len(systems), figsize=(5.5 * len(systems), 4.2), squeeze=False)
for col, (system, rs) in enumerate(systems):
    labels = [r["method"] + (" (%s)" % r["tree"] if r["tree"] else "") for r in rs]
    tbt = [fnum(r["tbt_mean_s"]) * 1e3 for r in rs]
    ax = axes[0][col]
    bars = ax.bar(range(len(rs)), tbt, color=[COLORS[i % len(COLORS)] for i in range(len(rs))])
    for b, v in zip(bars, tbt):
        ax.annotate("%.0f" % v, (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(rs)))
    ax.set_xticklabels(labels, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("average TBT (ms)")
    ax.set_title(system, fontsize=9)
fig.suptitle("Figs. 11 / 13: TBT per method, Llama-3.1-70B over 8 pipelined GPUs (SystemC GPU model)")
fig.tight_layout()
save(fig, d + "/specpipe_fig11.png")
