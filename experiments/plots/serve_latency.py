"""`specdse serve --plot FILE.png`: time per output token (p50 and p99) and time to first token
(p50) against the request rate, plain decoding beside speculative decoding; where the SD curve
crosses the plain one, SD stops paying.

Usage: serve_latency.py OUT_DIR CSV PNG
"""
import sys

from plotlib import OURS, PAPER, fnum, out_dir, plt, read_csv, save, style

out_dir()
if len(sys.argv) < 4:
    sys.exit("usage: serve_latency.py OUT_DIR CSV PNG")
rows = read_csv(sys.argv[2])
style()
fig, (tpot_ax, ttft_ax) = plt.subplots(1, 2, figsize=(10, 4))
methods = []
for r in rows:
    if r["method"] not in methods:
        methods.append(r["method"])
for i, method in enumerate(methods):
    mine = sorted((r for r in rows if r["method"] == method), key=lambda r: fnum(r["rate_per_s"]))
    rates = [fnum(r["rate_per_s"]) for r in mine]
    colour = PAPER if method == "no SD" else OURS
    tpot_ax.plot(rates, [fnum(r["tpot_p50_ms"]) for r in mine], "o-", color=colour, label=method + " p50")
    tpot_ax.plot(rates, [fnum(r["tpot_p99_ms"]) for r in mine], "o--", color=colour, alpha=0.6, label=method + " p99")
    ttft_ax.plot(rates, [fnum(r["ttft_p50_ms"]) for r in mine], "o-", color=colour, label=method + " p50")
for ax, what in ((tpot_ax, "time per output token (ms)"), (ttft_ax, "time to first token (ms)")):
    ax.set_xscale("log")
    ax.set_xlabel("request rate (requests/s)")
    ax.set_ylabel(what)
    ax.legend(fontsize=8)
ttft_ax.set_yscale("log")
save(fig, sys.argv[3])
