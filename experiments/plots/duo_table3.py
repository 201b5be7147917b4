"""Paper 003 Table 3: DuoDecoding tokens/s around the hardware-aware budget (ours per alpha, the
paper's four tasks relative to their budget-24 row)."""
from plotlib import COLORS, PAPER, PAPER003_TASKS, fnum, groups, plt, save, start

d, rows = start("duo-table3.csv")
fig, ax = plt.subplots(figsize=(7, 4))
for i, (a, sel) in enumerate(groups(rows, "alpha")):
    ax.plot([int(r["offset"]) for r in sel], [fnum(r["relative_to_hardware_budget"]) for r in sel], "o-",
            color=COLORS[i], label="specdse, alpha %.3g" % float(a))
paper = [r for r in rows if r["alpha"] == rows[0]["alpha"] and r["paper_budget"]]
for j, (col, name) in enumerate(PAPER003_TASKS):
    ax.plot([int(r["offset"]) for r in paper], [fnum(r[col]) for r in paper], "--", color=PAPER,
            alpha=0.35 + 0.15 * j, label="paper 003 %s" % name)
ax.axvline(0, color="grey", lw=0.8)
ax.set_xlabel("draft budget - hardware-aware budget (passes)")
ax.set_ylabel("tokens/s relative to the hardware-aware budget")
ax.set_title("Table 3: budget sweep (A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M, one sequence)", fontsize=9)
ax.legend(fontsize=8, ncol=2)
save(fig, d + "/duo-table3.png")
