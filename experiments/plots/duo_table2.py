"""Paper 003 Table 2: DuoDecoding tokens/s per draft-sequence strategy, relative to one static
sequence (ours per alpha; the paper's four tasks, display only)."""
from plotlib import COLORS, PAPER, PAPER003_TASKS, distinct, fnum, groups, plt, save, start

d, rows = start("duo-table2.csv")
fig, ax = plt.subplots(figsize=(7, 4))
alphas = distinct(rows, "alpha")
strategies = [r["strategy"] for r in rows if r["alpha"] == alphas[0]]
pos = {s: i for i, s in enumerate(strategies)}
width = 0.8 / (len(alphas) + 1)
for i, (a, sel) in enumerate(groups(rows, "alpha")):
    ax.bar([pos[r["strategy"]] + (i - len(alphas) / 2) * width for r in sel],
           [fnum(r["relative_to_static1"]) for r in sel], width, color=COLORS[i],
           label="specdse, alpha %.3g" % float(a))
paper = [r for r in rows if r["alpha"] == alphas[0] and r["paper_mt_relative"]]
for j, (col, name) in enumerate(PAPER003_TASKS):
    ax.plot([pos[r["strategy"]] + len(alphas) / 2 * width for r in paper], [fnum(r[col]) for r in paper], "_",
            color=PAPER, markersize=14, mew=2, alpha=0.35 + 0.15 * j, label="paper 003 %s" % name)
ax.axhline(1.0, color="grey", lw=0.8)
ax.set_xticks(range(len(strategies)))
ax.set_xticklabels(strategies)
ax.set_ylabel("tokens/s relative to static:1")
ax.set_title("Table 2: sequence strategies (A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M)", fontsize=9)
ax.legend(fontsize=8, ncol=2)
save(fig, d + "/duo-table2.png")
