#!/bin/sh
# bench/before_after.sh BEFORE_DIR AFTER_DIR [RUNS] - two builds of fglrun and bench_gin (each directory
# holding both) timed interleaved: per round, the GIN epoch and FedAvg Cora (10 METIS clients, 100
# rounds) at 1 and 2 threads, before/after order alternating by round; FEDSTAR=1 adds FedStar CHEM
# (5 rounds, 2 threads). Prints "work threads before|after seconds" lines; take the medians.
B=$1; A=$2; RUNS=${3:-3}
export FGL_DATA=${FGL_DATA:-data}
jget() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p"; }
for r in $(seq $RUNS); do
  if [ $((r % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
  for t in 1 2; do
    for v in $order; do
      d=$B; [ $v = after ] && d=$A
      g=$(OMP_NUM_THREADS=$t $d/bench_gin | tail -1 | jget median_epoch_s)
      echo "gin $t $v $g"
      f=$($d/fglrun --algo fedavg --data Cora --split metis --clients 10 --rounds 100 --head none --hidden 128 \
           --eval-every 100 --threads $t --json 2>/dev/null | tail -1 | jget seconds)
      echo "fedavg $t $v $f"
    done
  done
  [ -n "$FEDSTAR" ] && for v in $order; do
    d=$B; [ $v = after ] && d=$A
    s=$($d/fglrun --algo fedstar --data MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1 --rounds 5 --threads 2 --json 2>/dev/null | tail -1 | jget seconds)
    echo "fedstar 2 $v $s"
  done
done
