# Sourced by the GPU runners (cuda/run_*.sh): record_machine OUT_DIR LOG MODULE... writes
# OUT_DIR/gpu.txt, the machine a measurement ran on: the GPU (nvidia-smi), the host CPU (lscpu), the
# versions of the Python modules named, and the date; errors go to LOG.
record_machine() {
  local out="$1" log="$2"
  shift 2
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version,compute_cap \
    --format=csv >"$out/gpu.txt" 2>>"$log"
  {
    lscpu | grep -E "Model name|^CPU\(s\)"
    python3 - "$@" <<'PY'
import importlib, sys
print(" ".join(f"{m} {importlib.import_module(m).__version__}" for m in sys.argv[1:]))
PY
    date -u +"measured %Y-%m-%dT%H:%MZ"
  } >>"$out/gpu.txt" 2>>"$log"
}
