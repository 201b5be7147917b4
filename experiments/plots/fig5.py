"""Paper 000 Fig. 5: measured AAT, the fit to all points and the fit to a few points, per context."""
import math

from plotlib import OURS, PAPER, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
pts = read_csv(d + "/fig5_points.csv")
fits = read_csv(d + "/fig5.csv")
style()
n = len(fits)
cols = 4
nrows = int(math.ceil(n / cols))
fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.3 * nrows), squeeze=False)
for ax, f in zip(axes.flat, fits):
    L = f["context"]
    rs = sorted([r for r in pts if r["context"] == L], key=lambda r: int(r["x"]))
    x = [int(r["x"]) for r in rs]
    ax.plot(x, [fnum(r["aat_measured"]) for r in rs], "o", ms=3.5, color="k", label="measured")
    ax.plot(x, [fnum(r["aat_fit"]) for r in rs], "-", color=OURS, label="fit, all points (R²=%.3f)" % fnum(f["r2"]))
    few = [r for r in rs if r["used_in_few_point_fit"] == "1"]
    ax.plot(x, [fnum(r["aat_fit_few_points"]) for r in rs], "--", color=PAPER,
            label="fit, %s points (R²=%.3f)" % (f["few_points"], fnum(f["few_r2_on_all_points"])))
    ax.plot([int(r["x"]) for r in few], [fnum(r["aat_measured"]) for r in few], "s", mfc="none", ms=7,
            color=PAPER)
    ax.set_title("L = %s: AAT = %.2f + %.2f ln(x − (%.2f))" % (L, fnum(f["a"]), fnum(f["b"]), fnum(f["c"])),
                 fontsize=9)
    ax.set_xlabel("verification length x (tokens)")
    ax.set_ylabel("AAT (tokens per iteration)")
    ax.legend(fontsize=7, loc="lower right")
for ax in list(axes.flat)[n:]:
    ax.axis("off")
paper = fnum(fits[0].get("paper_r2")) if fits else None
fig.suptitle("Fig. 5: logarithmic AAT model per context (LongSpec, Llama-3.1-8B-Instruct, GovReport)"
             + ("; paper 000: R² ≈ %.2f" % paper if paper else ""))
save(fig, d + "/fig5.png")
