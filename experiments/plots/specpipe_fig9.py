"""SpecPipe (paper 002) Fig. 9: one Llama-3.1-70B layer's time vs input tokens, per GPU."""
from plotlib import COLORS, fnum, plt, save, start

d, rows = start("specpipe-fig9.csv")
fig, ax = plt.subplots(figsize=(6.5, 4))
for i, hw in enumerate(dict.fromkeys(r["hardware"] for r in rows)):
    rs = [r for r in rows if r["hardware"] == hw]
    ax.plot([int(r["tokens"]) for r in rs], [fnum(r["layer_s"]) * 1e3 for r in rs], "-", color=COLORS[i], label=hw)
for x in (64, 128, 192, 256):
    ax.axvline(x, color="0.7", lw=0.8, ls=":")
ax.set_xlabel("input tokens")
ax.set_ylabel("one layer (ms)")
ax.set_title("Fig. 9: Llama-3.1-70B layer time vs input tokens (context 2048)")
ax.legend()
save(fig, d + "/specpipe_fig9.png")
