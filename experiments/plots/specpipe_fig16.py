"""SpecPipe (paper 002) Figs. 16 / 17: throughput vs average TBT over concurrent requests B, and the
TBT percentiles of SpecPipe-DB against PP-vLLM."""
from plotlib import COLORS, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
rows = [r for r in read_csv(d + "/specpipe-fig16.csv") if r["status"] == "ok"]
style()
fig, (ax, tail) = plt.subplots(1, 2, figsize=(11, 4.3))
methods = list(dict.fromkeys(r["method"] for r in rows))
for i, m in enumerate(methods):
    rs = sorted([r for r in rows if r["method"] == m], key=lambda r: int(r["batch"]))
    x = [fnum(r["tbt_mean_s"]) * 1e3 for r in rs]
    y = [fnum(r["tokens_per_s_total"]) for r in rs]
    ax.plot(x, y, "o-", ms=4, color=COLORS[i % len(COLORS)], label=m)
    if m in ("specpipe-db/shared-64", "pp-vllm", "specpipe-db"):
        for r, xv, yv in zip(rs, x, y):
            ax.annotate("B=%s" % r["batch"], (xv, yv), fontsize=6, xytext=(3, 2), textcoords="offset points")
ax.set_xscale("log")
ax.set_xlabel("average TBT per request (ms, log scale)")
ax.set_ylabel("throughput (tokens/s, all requests)")
ax.set_title("Fig. 16: throughput vs TBT")
ax.legend(fontsize=8)
for i, m in enumerate([m for m in methods if m in ("specpipe-db/shared-64", "specpipe-db", "pp-vllm")]):
    rs = sorted([r for r in rows if r["method"] == m], key=lambda r: int(r["batch"]))
    b = [int(r["batch"]) for r in rs]
    for j, (col, ls) in enumerate([("tbt_mean_s", "-"), ("tbt_p90_s", "--"), ("tbt_p99_s", ":")]):
        tail.plot(b, [fnum(r[col]) * 1e3 for r in rs], ls, marker="o", ms=3, color=COLORS[i],
                  label="%s %s" % (m, col.replace("tbt_", "").replace("_s", "")))
tail.set_xscale("log", base=2)
tail.set_yscale("log")
tail.set_xlabel("concurrent requests B")
tail.set_ylabel("TBT per request (ms, log scale)")
tail.set_title("Fig. 17: tail latency")
tail.legend(fontsize=7)
fig.suptitle("SpecPipe-DB and baselines on 8x RTX 3090 (Llama-3.1-70B, 1B draft on L40)")
fig.tight_layout()
save(fig, d + "/specpipe_fig16.png")
