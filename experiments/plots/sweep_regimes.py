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
# The hardware keys the sweep set (the CSV's columns between batch and peak_tflops, sweep_runner's
# order) and, of those, the ones that took more than one value: the axis labels name them.
with open(csv_path, newline="") as f:
    header = f.readline().strip().split(",")
hw_keys = header[header.index("batch") + 1:header.index("peak_tflops")] if "peak_tflops" in header else []
swept = [k for k in hw_keys if len({r[k] for r in rows}) > 1]


def span(key):
    vals = sorted({fnum(r[key]) for r in rows})
    return "%s = %g..%g" % (key, vals[0], vals[-1])


swept_text = ", ".join(span(k) for k in swept) if swept else "no hardware key swept"
CASE = {"sd_never_helps": ("SD never helps (compute-bound at x = 1)", "#d62728"),
        "interior_optimum": ("interior optimum (compute roof before AAT saturates)", "#2ca02c"),
        "optimum_at_saturation": ("optimum at AAT saturation: larger x better up to it (memory-bound)", "#1f77b4")}
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
    ax.set_xlabel("compute-to-bandwidth ratio (FLOP/B; swept: %s)" % swept_text)
ax1.set_ylabel("best speedup over AD (×)")
ax2.set_ylabel("best verification length x (tokens)")
ax2.set_yscale("log", base=2)
ax1.set_title("speedup of the best x")
ax2.set_title("best x")
# One legend below both panels: inside either it would hide points.
handles, labels = ax1.get_legend_handles_labels()
fig.legend(handles, labels, fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, 0.0))
first = rows[0]
fig.suptitle("Paper 000 §III-B regimes: %s with %s, %s on %s"
             % (first["hardware"], swept_text, first["algorithm"], first["model"]))
save(fig, png_path)
