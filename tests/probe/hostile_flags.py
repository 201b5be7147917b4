"""A hostile-input probe of the command line: every numeric flag of twelve subcommands given
twelve bad values (0, negative, NaN, +-inf, 1e300, 1e-300, 2^31, 2^32 + 1, 2^63 - 1, a word, an
empty string) on top of a valid command. Each run must end as a one-line error with exit 2 or as
a result with exit 0 and no NaN, inf or negative time in it: never a silent number, a hang (30 s), a crash or
an error spread over several lines. Prints the counts; exits 1 listing the cases that fail.

    SPECDSE_EXE=build/specdse python3 tests/probe/hostile_flags.py
"""
import os
import re
import subprocess
import sys

from probe_support import report, run_classified

EXE = os.environ.get("SPECDSE_EXE", "build/specdse")
BASE = {
    "latency": "--hw h100-sxm --model llama-3.2-1b --context 1024",
    "optimize": "--hw v80 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024",
    "window": "--hw h100-sxm --model llama-3.1-8b-instruct --draft llama-3.2-1b --context 1024 --alpha 0.8",
    "draft-select": "--hw h100-sxm --model llama-3.1-8b-instruct --drafts llama-3.2-1b --context 1024 --alpha 0.8",
    "system": "--system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024",
    "duo": "--system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --tokens 50",
    "chain-sd": "--system duodecoding-a800-xeon --model llama-2-7b --draft llama-68m --context 1024 --alpha 0.7",
    "eagle": "--hw h100-sxm --model llama-3.1-8b-instruct --context 1024",
    "plan": "--hw h100-sxm --model llama-3.1-8b-instruct --context 1024",
    "specpipe": "--system specpipe-8x3090-pcie --model llama-3.1-70b --tokens 50 --w 16 --k 4 --no-boundary",
    "trace-gen": "--model llama-3.1-8b-instruct --lines 10",
    "tree-search": "--hw v80 --model llama-3.1-8b-instruct --context 1024",
}
BAD = ["0", "-1", "nan", "inf", "-inf", "1e300", "1e-300", "2147483648", "4294967297", "9223372036854775807",
       "abc", "''"]
# Text flags that take numbers (lists and ranges).
NUMERIC_TEXT = {"--context", "--x", "--batch", "--gamma", "--w", "--k", "--alpha"}
# Flags that name files or formats, not numbers.
SKIP = {"--help", "--help-all", "--out", "--trace-out", "--plot", "--python", "--format"}


def numeric_flags(command):
    help_text = subprocess.run([EXE, command, "--help"], capture_output=True, text=True).stdout
    for line in help_text.splitlines():
        m = re.match(r"\s+(--[a-z0-9-]+)\s+(INT|UINT|FLOAT|NUMBER|NUMBERS|TEXT)", line)
        if m and m.group(1) not in SKIP and (m.group(2) != "TEXT" or m.group(1) in NUMERIC_TEXT):
            yield m.group(1)


def main():
    counts = {"clean error": 0, "result": 0, "silent": 0, "hang": 0, "crash": 0, "noisy error": 0}
    failures = []
    for command, args in BASE.items():
        for flag in numeric_flags(command):
            for value in BAD:
                cmd = f"{EXE} {command} {args} {flag} {value} --format csv"
                kind, p = run_classified(cmd)
                counts[kind] += 1
                if kind == "noisy error":
                    failures.append((kind, cmd, p.stderr[:300]))
                elif kind == "crash":
                    failures.append((kind, cmd, p.returncode, p.stderr[-300:]))
                elif kind in ("hang", "silent"):
                    failures.append((kind, cmd))
    return report(counts, failures)


if __name__ == "__main__":
    sys.exit(main())
