"""Paper 000 Fig. 2: (a) primary roofline, (b) discounted roofline, (c) AAT & AR, (d) P_eff."""
from plotlib import COLORS, fnum, out_dir, plt, read_csv, save, style

d = out_dir()
rows = read_csv(d + "/fig2_curves.csv")
summary = {r["context"]: r for r in read_csv(d + "/fig2.csv")}
style()
contexts = []
for r in rows:
    if r["context"] not in contexts:
        contexts.append(r["context"])
fig, axes = plt.subplots(2, 2, figsize=(11, 8))
(a, b), (c, e) = axes
rate_ax = c.twinx()
for i, L in enumerate(contexts):
    rs = [r for r in rows if r["context"] == L]
    x = [int(r["x"]) for r in rs]
    col = COLORS[i]
    s = summary[L]
    a.plot(x, [fnum(r["p_tokens_per_s"]) for r in rs], color=col, label="L = %s" % L)
    a.axvline(fnum(s["ridge_x"]), color=col, ls=":", lw=1)
    b.plot(x, [fnum(r["p_disc_tokens_per_s"]) for r in rs], color=col, label="L = %s" % L)
    c.plot(x, [fnum(r["aat"]) for r in rs], color=col, label="AAT, L = %s" % L)
    rate_ax.plot(x, [fnum(r["acceptance_rate"]) for r in rs], color=col, ls="--",
               label="acceptance rate, L = %s" % L)
    e.plot(x, [fnum(r["p_eff_tokens_per_s"]) for r in rs], color=col,
           label="L = %s: best x = %s, %.2f×" % (L, s["best_x"], fnum(s["speedup"])))
    e.plot([int(s["best_x"])], [fnum(s["best_tokens_per_s"])], "o", color=col)
    e.axhline(fnum(s["ar_tokens_per_s"]), color=col, ls=":", lw=1)
a.set_title("(a) primary roofline P(x) = x / T_v (dotted: ridge x_R)")
a.set_ylabel("P(x) (tokens/s)")
b.set_title("(b) discounted roofline P_disc = x / (T_v + T_d)")
b.set_ylabel("P_disc(x) (tokens/s)")
c.set_title("(c) AAT (solid) and acceptance rate AAT / x (dashed)")
c.set_ylabel("AAT (tokens per iteration)")
rate_ax.set_ylabel("acceptance rate (accepted / verified)")
rate_ax.set_ylim(0, 1.05)
rate_ax.grid(False)
e.set_title("(d) combined P_eff = AAT / (T_v + T_d) (dotted: AD)")
e.set_ylabel("P_eff(x) (tokens/s)")
for ax in (a, b, c, e):
    ax.set_xlabel("verification length x (tokens)")
    # (c): "best" only sees the AAT axis and put the box over the dashed acceptance-rate curves
    # of the twin axis; the right middle is empty for both.
    ax.legend(fontsize=8, loc="center right" if ax is c else "best")
fig.suptitle("Fig. 2: analysis model, LongSpec on Llama-3.1-8B-Instruct, V80")
save(fig, d + "/fig2.png")
