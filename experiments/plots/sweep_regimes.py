"""Speedup and best x vs the compute-to-bandwidth ratio (paper 000 §III-B regimes).

Usage: sweep_regimes.py OUT_DIR [CSV [PNG]] (defaults: OUT_DIR/regimes.csv, OUT_DIR/regimes.png).
"""
import sys

from plotlib import COLORS, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
csv_path = sys.argv[2] if len(sys.argv) > 2 else d + "/regimes.csv"
png_path = sys.argv[3] if len(sys.argv) > 3 else d + "/regimes.png"
rows = read_csv(csv_path)
style()
CASE = {"sd_never_helps": ("SD never helps (compute-bound at x = 1)", "#d62728"),
        "interior_optimum": ("interior optimum (compute roof before AAT saturates)", "#2ca02c"),
        "larger_x_better": ("larger x better up to AAT saturation (memory-bound)", "#1f77b4")}
groups = []
for r in rows:
    key = (r["hardware"], r["model"], r["algorithm"], r["context"])
    if key not in groups:
        groups.append(key)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
for gi, key in enumerate(groups):
    rs = sorted([r for r in rows if (r["hardware"], r["model"], r["algorithm"], r["context"]) == key],
                key=lambda r: fnum(r["flops_per_byte"]))
    ratio = [fnum(r["flops_per_byte"]) for r in rs]
    ls = ["-", "--", ":", "-."][gi % 4]
    ax1.plot(ratio, [fnum(r["speedup"]) for r in rs], ls, color="k", lw=1, label="L = %s" % key[3])
    ax2.plot(ratio, [int(r["best_x"]) for r in rs], ls, color="k", lw=1, label="L = %s" % key[3])
    for case, (label, color) in CASE.items():
        sel = [r for r in rs if r["sd_case"] == case]
        kw = dict(color=color, s=18, zorder=3, label=label if gi == 0 else None)
        ax1.scatter([fnum(r["flops_per_byte"]) for r in sel], [fnum(r["speedup"]) for r in sel], **kw)
        ax2.scatter([fnum(r["flops_per_byte"]) for r in sel], [int(r["best_x"]) for r in sel], **kw)
boards = {}
for r in rows:
    boards.setdefault(r["hardware"], r)
ax1.axhline(1.0, color="k", lw=0.8, ls=":")
for ax in (ax1, ax2):
    ax.set_xscale("log")
    ax.set_xlabel("compute-to-bandwidth ratio (peak FLOP/s per byte/s of off-chip bandwidth)")
ax1.set_ylabel("best speedup over AD (×)")
ax2.set_ylabel("best verification length x (tokens)")
ax2.set_yscale("log", base=2)
ax1.set_title("speedup of the best x")
ax2.set_title("best x")
ax1.legend(fontsize=8)
first = rows[0]
fig.suptitle("Paper 000 §III-B regimes: %s PE array with swept bandwidth, %s on %s"
             % (first["hardware"], first["algorithm"], first["model"]))
save(fig, png_path)
