#!/bin/sh
# Issue 29 on two H200s: clsort -d gpu:all against one GPU, clsort-mpi on two ranks, cp beside.
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
for f in .gpu-debs/*.deb; do dpkg -x $f /tmp/inih; done
export C_INCLUDE_PATH=/tmp/inih/usr/include LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu LD_LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > $OUT/gpus.txt
nproc >> $OUT/gpus.txt; free -g >> $OUT/gpus.txt; df -h /tmp . >> $OUT/gpus.txt
cd .gpu/head && make -j32 all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=$PWD/build
$B/clsort --list-devices > $OUT/devices.txt 2>&1
D=/tmp/x2; mkdir -p $D; cd $D
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(29)
def gen(name, chunks, make):
    with open(name, "wb") as f:
        for _ in range(chunks):
            make().tofile(f)
gen("u32_4g", 4, lambda: rng.integers(0, 2**32, size=2**28, dtype=np.uint32))
gen("u32_16g", 16, lambda: rng.integers(0, 2**32, size=2**28, dtype=np.uint32))
gen("rec16_16g", 16, lambda: rng.integers(0, 2**63, size=2**27, dtype=np.uint64))
PY
ls -l $D >> $OUT/gpus.txt
echo "gen done at $(( $(date +%s) - T0 )) s"
RES=$OUT/x2_results.txt
t() { # label cmd...
    label=$1; shift
    [ $(( $(date +%s) - T0 )) -gt 540 ] && { echo "$label | skipped (time)" >> $RES; return; }
    s=$(date +%s.%N); timeout 240 "$@" 2>>$OUT/x2_verbose.txt; rc=$?; e=$(date +%s.%N)
    printf '%s | %.2f s | rc %s\n' "$label" "$(awk "BEGIN{print $e - $s}")" $rc >> $RES
    echo "== $label rc=$rc" >> $OUT/x2_verbose.txt
}
sync; echo "# $(cat $OUT/gpus.txt | head -2 | tr '\n' ' ')" > $RES
for f in u32_4g u32_16g; do
  cat $f > /dev/null
  t "cat $f" sh -c "cat $f > /dev/null"
  t "cp $f" cp $f cp.out; rm -f cp.out
  t "clsort -d 0:0 $f" $B/clsort -v -d 0:0 -t u32 -o one.out $f
  t "clsort -d gpu:all $f" $B/clsort -v -d gpu:all -t u32 -o all.out $f
  cmp one.out all.out && echo "$f: gpu:all == one GPU" >> $RES || echo "$f: OUTPUTS DIFFER" >> $RES
  rm -f all.out
  t "mpirun -n 2 clsort-mpi $f" mpirun --allow-run-as-root -n 2 -x OCL_ICD_VENDORS=/tmp/icd -x LD_LIBRARY_PATH $B/clsort-mpi -v -t u32 -o mpi.out $f
  cmp one.out mpi.out && echo "$f: mpi == one GPU" >> $RES || echo "$f: MPI OUTPUT DIFFERS" >> $RES
  rm -f one.out mpi.out
done
f=rec16_16g
t "cp $f" cp $f cp.out; rm -f cp.out
t "clsort -s -d 0:0 $f" $B/clsort -v -s -d 0:0 -R 16 -t u64 -o one.out $f
t "clsort -s -d gpu:all $f" $B/clsort -v -s -d gpu:all -R 16 -t u64 -o all.out $f
cmp one.out all.out && echo "$f: gpu:all == one GPU" >> $RES || echo "$f: OUTPUTS DIFFER" >> $RES
cat $RES
