"""Paper 003 §4.3: TTFT relative to autoregressive decoding per prompt length, for SpS (draft on
CPU / GPU) and DuoDecoding with and without the parallel layout."""
from plotlib import COLORS, fnum, groups, plt, save, start

d, rows = start("duo-ttft.csv")
fig, ax = plt.subplots(figsize=(7, 4))
for i, (m, sel) in enumerate(groups(rows, "method")):
    ax.plot([int(r["prompt_tokens"]) for r in sel], [fnum(r["ttft_vs_ad"]) for r in sel], "o-", color=COLORS[i],
            label=m)
ax.set_xscale("log", base=2)
ax.set_xlabel("prompt tokens")
ax.set_ylabel("TTFT relative to autoregressive decoding")
ax.set_title("TTFT (A800 + Xeon, Llama-2-7B / Llama-68M Q5_K_M)", fontsize=9)
ax.legend(fontsize=8)
save(fig, d + "/duo-ttft.png")
