"""Paper 000 Table IV: AD and best-set throughput and speedup per board and context."""
from matplotlib.lines import Line2D

from plotlib import COLORS, PAPER, fnum, plt, save, start

d, rows = start("table4.csv")
boards = []
for r in rows:
    if r["board"] not in boards:
        boards.append(r["board"])
fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(14, 4.2))
for i, b in enumerate(boards):
    rs = [r for r in rows if r["board"] == b]
    ctx = [int(r["context"]) for r in rs]
    c = [k for k in COLORS if k != PAPER][i % (len(COLORS) - 1)]  # red is the paper's
    label = "%s (%.1f TFLOP/s, %.0f GB/s)" % (b, fnum(rs[0]["peak_tflops"]), fnum(rs[0]["bandwidth_gbs"]))
    ax1.plot(ctx, [fnum(r["best_tokens_per_s"]) for r in rs], "-o", color=c, label=label)
    ax1.plot(ctx, [fnum(r["ar_tokens_per_s"]) for r in rs], ":", color=c)
    ax2.plot(ctx, [fnum(r["speedup"]) for r in rs], "-o", color=c, label=label)
    ax3.plot(ctx, [int(r["best_x"]) for r in rs], "-o", color=c, label=label)
    paper = [(int(r["context"]), r) for r in rs if r["paper_speedup"]]
    if paper:
        pc = [p[0] for p in paper]
        ax1.plot(pc, [fnum(p[1]["paper_best_tokens_per_s"]) for p in paper], "*", ms=12, color=PAPER,
                 label="paper 000 (%s): best set" % b)
        ax1.plot(pc, [fnum(p[1]["paper_ar_tokens_per_s"]) for p in paper], "x", ms=9, color=PAPER,
                 label="paper 000 (%s): AD" % b)
        ax2.plot(pc, [fnum(p[1]["paper_speedup"]) for p in paper], "*", ms=12, color=PAPER)
        ax3.plot(pc, [fnum(p[1]["paper_best_x"]) for p in paper], "*", ms=12, color=PAPER)
for ax in (ax1, ax2, ax3):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("context length L (tokens)")
ax1.set_ylabel("throughput (tokens/s)")
ax1.set_yscale("log")
ax2.set_ylabel("best-set speedup over AD (×)")
ax3.set_ylabel("best verification length x (tokens)")
ax1.set_title("AD and best-set performance")
ax2.set_title("speedup")
ax3.set_title("best x")
# One legend for the three panels, below them, so no panel's curves sit under a legend box.
handles, labels = ax1.get_legend_handles_labels()
handles.append(Line2D([], [], ls=":", color="k"))
labels.append("dotted: AD (x = 1) on the board of that colour; solid: best set")
fig.legend(handles, labels, fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, 0.0))
fig.suptitle("Table IV: LongSpec on Llama-3.1-8B-Instruct across FPGA boards")
save(fig, d + "/table4.png")
