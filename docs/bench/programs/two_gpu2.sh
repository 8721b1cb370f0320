#!/bin/sh
# Issue 29's measurement on two H200s (session 2026-11-28, eleventh): clsort -d gpu (one GPU)
# against -d gpu:all (two), mpirun -n 2 clsort-mpi -d gpu:all (a rank per GPU), cat and cp of the
# same files beside; outputs byte-compared; -v breakdowns kept. The ranks get the ICD's variables
# with their values (-x VAR=value: mpirun's own environment may have been rewritten by hwloc's
# OpenCL discovery, docs/distributed.md). Call 8 ran it a second time on the warm machine (files
# kept, kernels cached).
set -u
T0=$(date +%s)
. .gpu/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $OUT/gpus.txt
nproc >> $OUT/gpus.txt; free -g >> $OUT/gpus.txt; df -h /tmp . >> $OUT/gpus.txt; lscpu | grep 'Model name' >> $OUT/gpus.txt
command -v mpicc mpirun >> $OUT/gpus.txt
chmod -R go-w .gpu
make -j32 all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=$PWD/build
ls $B/clsort-mpi >> $OUT/gpus.txt 2>&1
$B/clsort --list-devices > $OUT/devices.txt 2>&1
echo "built at $(( $(date +%s) - T0 )) s"
D=/tmp/x2; mkdir -p $D; cd $D
[ -s u32_16g ] || python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(29)
def gen(name, chunks):
    with open(name, "wb") as f:
        for _ in range(chunks):
            rng.integers(0, 2**32, size=2**28, dtype=np.uint32).tofile(f)
gen("u32_4g", 4)
gen("u32_16g", 16)
PY
ls -l $D >> $OUT/gpus.txt
echo "gen done at $(( $(date +%s) - T0 )) s"
RES=$OUT/x2_results.txt
t() { # label cmd...
    label=$1; shift
    [ $(( $(date +%s) - T0 )) -gt 500 ] && { echo "$label | skipped (time)" >> $RES; return; }
    echo "== $label" >> $OUT/x2_verbose.txt
    s=$(date +%s.%N); timeout 200 "$@" 2>>$OUT/x2_verbose.txt; rc=$?; e=$(date +%s.%N)
    printf '%s | %.2f s | rc %s\n' "$label" "$(awk "BEGIN{print $e - $s}")" $rc >> $RES
}
sync; cat $OUT/gpus.txt | head -2 > $RES
for f in u32_4g u32_16g; do
  cat $f > /dev/null
  t "cat $f" sh -c "cat $f > /dev/null"
  t "cp $f" cp $f cp.out; rm -f cp.out
  t "clsort -d gpu $f" $B/clsort -v -d gpu -t u32 -o one.out $f
  t "clsort -d gpu:all $f" $B/clsort -v -d gpu:all -t u32 -o all.out $f
  cmp one.out all.out && echo "$f: gpu:all == one GPU" >> $RES || echo "$f: OUTPUTS DIFFER" >> $RES
  rm -f all.out
  t "mpirun -n 2 clsort-mpi -d gpu:all $f" mpirun --allow-run-as-root -n 2 -x OCL_ICD_VENDORS=/tmp/icd -x OCL_ICD_FILENAMES=libnvidia-opencl.so.1 -x LD_LIBRARY_PATH="$LD_LIBRARY_PATH" $B/clsort-mpi -v -d gpu:all -t u32 -o mpi.out $f
  cmp one.out mpi.out && echo "$f: mpi == one GPU" >> $RES || echo "$f: MPI OUTPUT DIFFERS" >> $RES
  rm -f one.out mpi.out
  echo "$f done at $(( $(date +%s) - T0 )) s"
done
cat $RES; grep -E '^clsort(-mpi)?: (rank 0: )?(device|read|route|sort|write|total|setup|merge|exchange|  sort)' $OUT/x2_verbose.txt | cut -c1-160 | head -60
