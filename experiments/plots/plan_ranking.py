"""`specdse plan --plot FILE.png`: the timed candidates as ranked bars of time between tokens, with
the range over the acceptance band as error bars where a candidate has one; the untimed ones
listed under the bars with their status.

Usage: plan_ranking.py OUT_DIR CSV PNG
"""
import sys

from plotlib import OURS, fnum, out_dir, plt, read_csv, save, style

out_dir()
if len(sys.argv) < 4:
    sys.exit("usage: plan_ranking.py OUT_DIR CSV PNG")
rows = read_csv(sys.argv[2])
style()
timed = [r for r in rows if r["status"] == "ok"]
untimed = [r for r in rows if r["status"] != "ok"]
labels = ["%s: %s" % (r["scheme"], r["parameters"]) if r["parameters"] else r["scheme"] for r in timed]
tbt = [fnum(r["tbt_ms"]) for r in timed]
low = [t - fnum(r["tbt_low_ms"]) for t, r in zip(tbt, timed)]
high = [fnum(r["tbt_high_ms"]) - t for t, r in zip(tbt, timed)]
fig, ax = plt.subplots(figsize=(9, 0.42 * max(len(timed), 1) + 1.2 + 0.18 * len(untimed)))
ax.barh(range(len(timed)), tbt, xerr=[low, high], color=OURS, capsize=3)
for i, (t, r) in enumerate(zip(tbt, timed)):
    speedup = fnum(r["speedup"])
    ax.text(t, i, "  %.3g ms%s" % (t, "" if speedup is None else ", %.2fx" % speedup), va="center", fontsize=8)
ax.set_yticks(range(len(timed)))
ax.set_yticklabels(labels, fontsize=8)
ax.invert_yaxis()
ax.set_xlabel("time between tokens (ms); error bars: range over the acceptance band")
if untimed:
    note = "\n".join("%s: %s" % (r["scheme"], r["status"][:90]) for r in untimed)
    ax.text(0, -0.16, "not ranked:\n" + note, transform=ax.transAxes, va="top", fontsize=7, color="#555555")
save(fig, sys.argv[3])
