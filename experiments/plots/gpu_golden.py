"""Measured vs predicted for the GPU goldens (`specdse golden --hw GPU --measured F --format csv`).

Usage: gpu_golden.py OUT_DIR PNG_NAME TITLE KERNELS_CSV [KERNELS_CSV ...] --steps STEPS_CSV [...]
Left: kernels (alone, in CUDA-graph sequences, FlashAttention-2) on log-log axes. Right: whole
verify steps, the model as predicted and at the measured kernel count. The diagonal is a
perfect prediction; the dotted lines are +-10 %.
"""
import sys

from plotlib import COLORS, fnum, out_dir, read_csv, save, style

import matplotlib.pyplot as plt  # noqa: E402

KINDS = [("gemm", "GEMM/GEMV alone"), ("gemv", None), ("gemm_graph", "GEMM in a CUDA graph"),
         ("rmsnorm_graph", "RMSNorm in a CUDA graph"), ("flash_attention", "FlashAttention-2 alone")]


def diagonal(ax, lo, hi):
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    for f in (0.9, 1.1):
        ax.plot([lo, hi], [lo * f, hi * f], color="black", lw=0.6, ls=":")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)


def main():
    out = out_dir()
    png, title = sys.argv[2], sys.argv[3]
    args = sys.argv[4:]
    split = args.index("--steps") if "--steps" in args else len(args)
    kernel_files, step_files = args[:split], args[split + 1:]
    kernels = [r for f in kernel_files for r in read_csv(f)]
    steps = [r for f in step_files for r in read_csv(f)]
    style()
    fig, (ax_k, ax_s) = plt.subplots(1, 2, figsize=(11, 5))
    lo, hi = 1e9, 0.0
    for i, (kind, label) in enumerate(KINDS):
        rows = [r for r in kernels if r["kernel"] == kind]
        if not rows:
            continue
        x = [fnum(r["measured_s"]) * 1e6 for r in rows]
        y = [fnum(r["predicted_s"]) * 1e6 for r in rows]
        lo, hi = min(lo, *x, *y), max(hi, *x, *y)
        colour = COLORS[0] if kind == "gemv" else COLORS[i % len(COLORS)]
        ax_k.scatter(x, y, s=12, color=colour, label=label)
    if hi > 0:
        diagonal(ax_k, lo * 0.8, hi * 1.25)
    ax_k.set_xscale("log")
    ax_k.set_yscale("log")
    ax_k.set_xlabel("measured (µs)")
    ax_k.set_ylabel("predicted (µs)")
    ax_k.set_title("kernels")
    ax_k.legend(fontsize=8, loc="upper left")
    if steps:
        x = [fnum(r["graph_s"]) * 1e3 for r in steps]
        y = [fnum(r["predicted_s"]) * 1e3 for r in steps]
        y2 = [fnum(r["predicted_same_kernels_s"]) * 1e3 for r in steps]
        plain = [int(r["x"]) == 1 for r in steps]
        for same, marker, label in ((True, "o", "plain decode (x = 1)"), (False, "^", "token trees (x > 1)")):
            pick = [i for i, p in enumerate(plain) if p == same]
            ax_s.scatter([x[i] for i in pick], [y[i] for i in pick], s=16, marker=marker, color=COLORS[0],
                         label=label + ", model's kernels")
            ax_s.scatter([x[i] for i in pick], [y2[i] for i in pick], s=16, marker=marker, facecolors="none",
                         edgecolors=COLORS[1], label=label + ", at the measured kernel count")
        diagonal(ax_s, min(x + y) * 0.8, max(x + y2) * 1.25)
        ax_s.set_xscale("log")
        ax_s.set_yscale("log")
        ax_s.set_xlabel("measured step, CUDA-graph replay (ms)")
        ax_s.set_ylabel("predicted T_v (ms)")
        ax_s.set_title("Llama-3.1-8B verify steps (PyTorch)")
        ax_s.legend(fontsize=7, loc="upper left")
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, "%s/%s" % (out, png))


if __name__ == "__main__":
    main()
