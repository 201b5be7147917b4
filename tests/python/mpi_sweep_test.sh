#!/usr/bin/env bash
# The 2-rank MPI sweep writes the same bytes as the single-process run (and resumes a partial
# file the same way). Usage: mpi_sweep_test.sh SPECDSE_EXE MPIEXEC|"" WORK_DIR
# Exit 77 (CTest: skipped) when specdse was built without MPI.
set -euo pipefail
exe=$1 mpiexec=${2:-} work=$3
if [[ -z "$mpiexec" ]]; then
  echo "skipped: specdse was built without MPI (install openmpi-bin libopenmpi-dev and reconfigure)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
cat > "$work/spec.yaml" <<'YAML'
name: mpi_small
x_max: 64
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: [128, 1024]
  memory.bandwidth_gbs: {from: 100, to: 100000, count: 5, scale: log}
YAML
"$exe" sweep --quiet --threads 1 --spec "$work/spec.yaml" --out "$work/single.csv"

# Containers and CI: root needs --allow-run-as-root; no ssh/rsh agent is needed for local ranks
# and shared-memory + loopback TCP transports work without a fabric. The timeout bounds a hung
# launch.
export OMPI_MCA_plm_rsh_agent= OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
root=()
[[ $(id -u) == 0 ]] && root=(--allow-run-as-root)
run_mpi() {
  timeout 240 "$mpiexec" "${root[@]}" --oversubscribe -n 2 "$exe" sweep --quiet --threads 1 "$@"
}
run_mpi_loud() {  # with rank 0's summary and warnings on stderr
  timeout 240 "$mpiexec" "${root[@]}" --oversubscribe -n 2 "$exe" sweep --threads 1 "$@"
}
run_mpi --spec "$work/spec.yaml" --out "$work/mpi.csv"
cmp "$work/single.csv" "$work/mpi.csv"
[[ ! -e "$work/.mpi.csv.lock" ]]  # rank 0 removed its lock file when done
echo "2-rank MPI sweep: $(($(grep -vc '^# ' "$work/mpi.csv") - 1)) rows, byte-identical to the single-process run"

# Resume: rank 0 keeps the complete rows of a partial file, the ranks compute the rest.
# (The '# key: value' lines that lead the file say what its rows were computed under.)
fp=$(grep -c '^# ' "$work/single.csv")
head -n $((fp + 4)) "$work/single.csv" > "$work/partial.csv"
head -c 20 <(sed -n $((fp + 5))p "$work/single.csv") >> "$work/partial.csv"
run_mpi --spec "$work/spec.yaml" --out "$work/partial.csv"
cmp "$work/single.csv" "$work/partial.csv"
echo "2-rank MPI resume of a partial file: byte-identical"

# Resume from the journal a killed single-process run left (OUT.partial: the header and rows of
# the output, each with one more cell, the CRC-32 of the row as zlib computes it): its rows are
# kept and the journal is gone afterwards.
if command -v python3 > /dev/null; then
  python3 - "$work/single.csv" "$work/journal.csv.partial" <<'PY'
import sys, zlib
lines = open(sys.argv[1], "rb").read().split(b"\n")
fingerprint = [l for l in lines if l.startswith(b"# ")]
lines = lines[len(fingerprint):]
with open(sys.argv[2], "wb") as f:
    for l in fingerprint:
        f.write(l + b"\n")
    f.write(lines[0] + b",row_crc32\n")
    for row in lines[1:6]:
        f.write(row + b",%08x\n" % zlib.crc32(row))
PY
  run_mpi_loud --spec "$work/spec.yaml" --out "$work/journal.csv" 2> "$work/journal.err"
  cmp "$work/single.csv" "$work/journal.csv"
  [[ ! -e "$work/journal.csv.partial" ]]
  grep -q "(5 resumed, 5 computed)" "$work/journal.err" || { cat "$work/journal.err"; exit 1; }
  echo "2-rank MPI resume of a journal: its 5 rows kept, byte-identical, journal removed"
else
  echo "2-rank MPI resume of a journal: skipped (no python3 to write the checksums)"
fi

# A journal without checksums (an older specdse's) is not trusted: its rows are computed again,
# with a warning.
grep -v '^# ' "$work/single.csv" | head -n 6 > "$work/old.csv.partial"
run_mpi_loud --spec "$work/spec.yaml" --out "$work/old.csv" 2> "$work/old.err"
cmp "$work/single.csv" "$work/old.csv"
[[ ! -e "$work/old.csv.partial" ]]
grep -q "without row checksums" "$work/old.err" && grep -q "(0 resumed, 10 computed)" "$work/old.err" ||
  { cat "$work/old.err"; exit 1; }
echo "2-rank MPI resume of a journal without checksums: recomputed, byte-identical"

# A second writer of the same output is refused (one line, exit 2), as in the threaded path:
# flock(1) holds the output's lock file while the MPI sweep tries to write. Rank 0 prints its
# message before the broadcast that lets rank 1 exit (with status 2, on which mpiexec kills
# the job), so the message is out whatever the scheduling.
if command -v flock > /dev/null; then
  status=0
  flock "$work/.locked.csv.lock" bash -c "$(declare -f run_mpi); $(declare -p root); mpiexec=$mpiexec exe=$exe;
    run_mpi --spec '$work/spec.yaml' --out '$work/locked.csv'" > "$work/lock.out" 2>&1 || status=$?
  [[ $status == 2 ]] || { cat "$work/lock.out"; echo "expected exit 2 for a locked output, got $status"; exit 1; }
  grep -q "another specdse run" "$work/lock.out" || { cat "$work/lock.out"; exit 1; }
  echo "2-rank MPI sweep into a locked output: refused"
fi

# Without --out, rank 0 prints the CSV once.
run_mpi --spec "$work/spec.yaml" > "$work/stdout.csv"
cmp "$work/single.csv" "$work/stdout.csv"
echo "2-rank MPI sweep to stdout: byte-identical"

# A scenario sweep runs on rank 0 alone: its CSV is printed once (every rank used to print its
# own copy into the same stdout, interleaved mid-line).
cat > "$work/scenario.yaml" <<'YAML'
name: mpi_scenario
scenario: chain-sd
axes:
  system: duodecoding-a800-xeon
  model: llama-2-7b
  draft: llama-68m
  context: [256, 1024]
  alpha: [0.6, 0.8]
YAML
"$exe" sweep --quiet --threads 1 --spec "$work/scenario.yaml" --format csv > "$work/scenario_single.csv"
run_mpi --spec "$work/scenario.yaml" --format csv > "$work/scenario_mpi.csv"
cmp "$work/scenario_single.csv" "$work/scenario_mpi.csv"
echo "2-rank MPI scenario sweep to stdout: byte-identical, printed once"
rm -rf "$work"
