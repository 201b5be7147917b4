"""What the command-line probes (hostile_flags.py, surfaces.py) share: running one command under a
time limit, how it ended, and the report."""
import json
import re
import subprocess

# A number that must never reach a result: NaN, an infinity, or a negative time in milliseconds.
_NON_FINITE = re.compile(r"(^|[,\s])-?(nan|inf)([,\s]|$)", re.I)
_NEGATIVE_MS = re.compile(r"(^|[,\s])-\d[\d.e+]*\s*ms\b")


def run_classified(cmd, stdout=subprocess.PIPE, cwd=None, timeout_s=30):
    """Runs the shell command `cmd`; returns (kind, process or None), kind one of "clean error"
    (exit 2, one stderr line, no internal error), "noisy error", "result" (exit 0), "silent"
    (exit 0 with a NaN, an infinity or a negative time on stdout), "hang" or "crash"."""
    try:
        p = subprocess.run(cmd, shell=True, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout_s,
                           cwd=cwd)
    except subprocess.TimeoutExpired:
        return "hang", None
    out = p.stdout or ""
    if p.returncode == 2:
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        return ("clean error" if len(lines) == 1 and "internal error" not in p.stderr else "noisy error"), p
    if p.returncode == 0:
        return ("silent" if _NON_FINITE.search(out) or _NEGATIVE_MS.search(out) else "result"), p
    return "crash", p


def report(counts, failures):
    """Prints the counts (one JSON line) and each failing case; the exit status: 1 if any failed."""
    print(json.dumps(counts))
    for f in failures:
        print(f)
    return 1 if failures else 0
