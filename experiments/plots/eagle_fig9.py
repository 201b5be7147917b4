"""Paper 004 Fig. 9: speed-up heat map (batch x context) per model; infeasible cells hatched."""
import numpy as np

from plotlib import fnum, groups, plt, save, start

d, rows = start("eagle-fig9.csv")
models = groups(rows, "model")
fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.8), squeeze=False)
for ax, (model, rs) in zip(axes[0], models):
    contexts = sorted({int(r["context"]) for r in rs})
    batches = sorted({int(r["batch"]) for r in rs})
    grid = np.full((len(contexts), len(batches)), np.nan)
    for r in rs:
        v = fnum(r["speedup"])
        if v is not None:
            grid[contexts.index(int(r["context"])), batches.index(int(r["batch"]))] = v
    ax.set_facecolor("0.85")
    im = ax.imshow(grid, cmap="viridis", origin="lower", aspect="auto")
    for i in range(len(contexts)):
        for j in range(len(batches)):
            text = "n/a" if np.isnan(grid[i, j]) else "%.2f" % grid[i, j]
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="w" if not np.isnan(grid[i, j]) else "k")
    ax.set_xticks(range(len(batches)), [str(b) for b in batches])
    ax.set_yticks(range(len(contexts)), [str(c) for c in contexts])
    ax.set_xlabel("batch size")
    ax.set_ylabel("sequence length")
    ax.set_title(model, fontsize=9)
    ax.grid(False)
    fig.colorbar(im, ax=ax, fraction=0.046)
fig.suptitle("Paper 004 Fig. 9 (reproduced): EAGLE speed-up on 8x H100, tensor parallel (n/a: does not fit)")
save(fig, d + "/eagle_fig9.png")
