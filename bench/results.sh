#!/bin/sh
# bench/results.sh SECTION... - the experiments behind RESULTS.md.
#
#   make build/fglrun && sh bench/results.sh fedpub chem
#   JOBS=2 SEEDS=3 sh bench/results.sh baselines
#   FGLRUN=build/fglrun-abc123 COMMIT=abc123 sh bench/results.sh pfedgnn   # a saved binary
#
# Each experiment is one fglrun call (--seeds N: model seeds 1..N, the split
# seed fixed) whose --json line is appended, with a label, to
# bench/results/SECTION.jsonl. Experiments run JOBS at a time, each on one
# thread. An experiment whose label is already in the file is skipped, so
# an interrupted run resumes; delete the file to measure a section again.
# bench/results_table.sh turns the files into the tables of RESULTS.md.
# Sections:
#   fedpub      Cora (largest component) disjoint 5/10/20 and overlapping
#               10/30/50 clients: Local, FedAvg, FED-PUB; ablations
#   computers   Amazon Computers disjoint 5/10/20: Local, FedAvg, FED-PUB
#               (the paper's protocol for it: 200 rounds of 3 local epochs;
#               lr 1e-3, the authors' code's rate for every dataset but Cora;
#               0/1 features as stored: row-normalised, every shared model
#               collapses to the majority class, see RESULTS.md and
#               bench/results/computers_rownorm.jsonl)
#   baselines   every algorithm on Cora, 10 METIS clients
#   chem        CHEM, one dataset per client: Local, FedAvg, FedProx, FedPer,
#               GCFL (GNN layers shared), FedStar; FedStar's DSE/RWSE ablation
#   mixed       CHEM + PROTEINS + IMDB-BINARY: Local, FedAvg, FedStar
#   pfedgnn     Local, FedAvg, FED-PUB, pFedGNN on Cora and CS under FED-PUB's
#               protocol (METIS 10 clients) and the pFedGNN authors' (label
#               Dirichlet 0.5 over 10 clients, 100 public anchor nodes, GCN
#               d -> 16 -> C, 200 SGD steps (lr 0.01, momentum 0.9) per round,
#               50 rounds, 60/20/20 inside each client); pFedGNN's alpha sweep
#               and its completion / kernel variants on Cora (run it with JOBS=1)
#   robust      Cora (largest component), 10 METIS clients, 2 of them
#               attacking (sign flip x4, scaling x10, ALIE), FedAvg and
#               FED-PUB under every robust rule (mean, median, trimmed 2,
#               Krum f=2), norm screening off so the rules are what is
#               measured; clean runs beside; FedAvg with client-level DP
#               (clip 1, noise 0.5 / 1 / 2); FED-PUB under Multi-Krum; FedAvg
#               on PROTEINS (10 Dirichlet-0.5 clients) under sign flip
#   honest      Cora, 10 METIS clients, 2 attacking (sign flip x4, scaling x10,
#               ALIE, NaN): FedAvg and FED-PUB under every robust rule, the
#               honest clients' accuracy recorded beside all clients'
#   privacy     DP-FedAvg (clip 1) on Cora, 10 METIS clients (noise 0 to 4, all
#               clients each round and Poisson q = 0.5) and on CHEM (FedAvg,
#               GIN convolutions shared; noise 0.5 to 2); secure aggregation's
#               cost on Cora with 10 and 100 METIS clients (10 rounds). The
#               secrets from --secret-seed 1, so that the rows replay (a
#               simulation's choice: README, Privacy)
#   fedprox     Cora, 10 METIS clients: FedProx against FedAvg with 1 local
#               epoch (one full-batch step a round: identical) and with 5
#               (mu 0.01, 0.1, 1)
#   fedpg       FedPG's node protocol (10 METIS clients, per-class stratified
#               20/40/40, 0/1 features, GAMLP hidden 64, 3 local epochs, Adam
#               lr 1e-2 wd 5e-4, 100 rounds) on Cora and Computers (largest
#               component): FedPG under the authors' pipeline (val_centres=1,
#               target_scale=authors, hop-0 loss) beside Local given the same
#               train+validation labels; FedPG with the hop-0 and the all-hop
#               loss, with mu = 0; Local, FedAvg, FED-PUB on the same splits;
#               on Cora also the authors' pipeline with their GCN backbone
#
# Each line's "result" carries the run's full configuration ("config"), so
#   ./build/fglrun --config bench/results/SECTION.jsonl --row "LABEL"
# replays a row and checks that the result is identical (lines recorded
# before configs were replay their "args").
set -e
cd "$(dirname "$0")/.."
FGLRUN=${FGLRUN:-./build/fglrun}
JOBS=${JOBS:-2}
SEEDS=${SEEDS:-3}
OUT=bench/results
CHEM=MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1
mkdir -p "$OUT"
[ -x "$FGLRUN" ] || { echo "results.sh: build $FGLRUN first (make build/fglrun)" >&2; exit 1; }

# one line per experiment: SECTION|LABEL|fglrun arguments
experiments() {
    for sec in "$@"; do
        case $sec in
        fedpub)
            for k in 5 10 20; do
                for a in local fedavg fedpub; do
                    echo "fedpub|cora disjoint $k $a|--algo $a --data Cora --lcc --split metis --clients $k --seeds $SEEDS"
                done
            done
            for k in 10 30 50; do
                for a in local fedavg; do
                    echo "fedpub|cora overlap $k $a|--algo $a --data Cora --lcc --split overlap --clients $k --seeds $SEEDS"
                done
                echo "fedpub|cora overlap $k fedpub|--algo fedpub --data Cora --lcc --split overlap --clients $k --set tau=5 --seeds $SEEDS"
            done
            # the same with the 0/1 features as stored (not row-normalised)
            for k in 5 10 20; do
                for a in local fedavg fedpub; do
                    echo "fedpub|cora disjoint $k $a raw-features|--algo $a --data Cora --lcc --split metis --clients $k --features raw --seeds $SEEDS"
                done
            done
            for k in 10 20; do
                echo "fedpub|cora disjoint $k fedpub similarity-only|--algo fedpub --data Cora --lcc --split metis --clients $k --set masks=0 --seeds $SEEDS"
                echo "fedpub|cora disjoint $k fedpub masks-only|--algo fedpub --data Cora --lcc --split metis --clients $k --set tau=0 --seeds $SEEDS"
                echo "fedpub|cora disjoint $k fedpub authors-regularisers|--algo fedpub --data Cora --lcc --split metis --clients $k --set live_reg=0 --seeds $SEEDS"
                echo "fedpub|cora disjoint $k fedpub l1-subgradient|--algo fedpub --data Cora --lcc --split metis --clients $k --set l1_prox=0 --seeds $SEEDS"
            done ;;
        computers)
            for k in 5 10 20; do
                for a in local fedavg fedpub; do
                    echo "computers|computers disjoint $k $a|--algo $a --data Computers --lcc --split metis --clients $k --rounds 200 --local-epochs 3 --lr 0.001 --features raw --seeds $SEEDS"
                done
            done ;;
        baselines)
            for a in local fedavg fedprox fedper scaffold ditto moon feddc fedamp pfedgraph fedproto fedtgp fedpub; do
                echo "baselines|cora disjoint 10 $a|--algo $a --data Cora --lcc --split metis --clients 10 --seeds $SEEDS"
            done
            for a in gcfl gcflplus; do
                echo "baselines|cora disjoint 10 $a|--algo $a --data Cora --lcc --split metis --clients 10 --set share=all --seeds $SEEDS"
            done ;;
        chem)
            echo "chem|chem local|--algo local --data $CHEM --seeds $SEEDS"
            for a in fedavg fedprox gcfl; do
                echo "chem|chem $a|--algo $a --data $CHEM --set share=conv --seeds $SEEDS"
            done
            # FedPer keeps the head local; the input projection differs in
            # shape between datasets, so it stays local too
            echo "chem|chem gcfl molecule eps|--algo gcfl --data $CHEM --set share=conv --set eps1=0.07 --set eps2=0.28 --seeds $SEEDS"
            echo "chem|chem fedper|--algo fedper --data $CHEM --set share=all-head-feature --seeds $SEEDS"
            echo "chem|chem fedstar|--algo fedstar --data $CHEM --seeds $SEEDS"
            echo "chem|chem fedstar dse-only|--algo fedstar --data $CHEM --se 16,0 --seeds $SEEDS"
            echo "chem|chem fedstar rwse-only|--algo fedstar --data $CHEM --se 0,16 --seeds $SEEDS" ;;
        mixed)
            echo "mixed|chem+proteins+imdb local|--algo local --data $CHEM,PROTEINS,IMDB-BINARY --seeds $SEEDS"
            echo "mixed|chem+proteins+imdb fedavg|--algo fedavg --data $CHEM,PROTEINS,IMDB-BINARY --set share=conv --seeds $SEEDS"
            echo "mixed|chem+proteins+imdb fedstar|--algo fedstar --data $CHEM,PROTEINS,IMDB-BINARY --seeds $SEEDS" ;;
        pfedgnn)
            AUTH="--split dirichlet --alpha 0.5 --clients 10 --public-nodes 100 --hidden 16 --head none --optim sgd --momentum 0.9 --lr 0.01 --local-epochs 200 --rounds 50 --train-frac 0.6 --val-frac 0.2"
            for d in Cora CS; do
                for a in local fedavg fedpub pfedgnn; do
                    echo "pfedgnn|$d fedpub-protocol metis 10 $a|--algo $a --data $d --lcc --split metis --clients 10 --seeds $SEEDS"
                done
                for a in local fedavg fedpub pfedgnn; do
                    echo "pfedgnn|$d authors-protocol dirichlet 0.5 $a|--algo $a --data $d $AUTH --seeds $SEEDS"
                done
            done
            for al in 0 0.2 0.5 0.7 0.9; do
                echo "pfedgnn|Cora authors-protocol dirichlet 0.5 pfedgnn alpha=$al|--algo pfedgnn --data Cora $AUTH --set alpha=$al --seeds $SEEDS"
                echo "pfedgnn|Cora fedpub-protocol metis 10 pfedgnn alpha=$al|--algo pfedgnn --data Cora --lcc --split metis --clients 10 --set alpha=$al --seeds $SEEDS"
            done
            for v in "method=0" "kernel=1" "anchor_nodes=0" "blocks=1"; do
                echo "pfedgnn|Cora authors-protocol dirichlet 0.5 pfedgnn $v|--algo pfedgnn --data Cora $AUTH --set $v --seeds $SEEDS"
            done
            # the authors' SGD with Cora's 0/1 features as stored (row normalisation slows SGD, see FED-PUB's section)
            for a in local fedavg fedpub pfedgnn; do
                echo "pfedgnn|Cora authors-protocol dirichlet 0.5 $a raw-features|--algo $a --data Cora $AUTH --features raw --seeds $SEEDS"
            done ;;
        robust)
            R="--data Cora --lcc --split metis --clients 10 --screen 0 --seeds $SEEDS"
            for a in fedavg fedpub; do
                echo "robust|cora 10 $a clean mean|--algo $a $R"
                for at in signflip:4 scale:10 alie; do
                    for rule in mean median trimmed:2 krum:2; do
                        echo "robust|cora 10 $a $at $rule|--algo $a $R --attack $at --attackers 0.2 --robust $rule"
                    done
                done
            done
            for z in 0.5 1 2; do
                echo "robust|cora 10 fedavg dp clip 1 noise $z|--algo fedavg $R --dp clip=1,noise=$z"
            done
            echo "robust|cora 10 fedpub signflip:4 multikrum:2,5|--algo fedpub $R --attack signflip:4 --attackers 0.2 --robust multikrum:2,5"
            G="--data PROTEINS --split dirichlet --alpha 0.5 --clients 10 --screen 0 --seeds $SEEDS"
            echo "robust|proteins 10 fedavg clean mean|--algo fedavg $G"
            for rule in mean median trimmed:2 krum:2; do
                echo "robust|proteins 10 fedavg signflip:4 $rule|--algo fedavg $G --attack signflip:4 --attackers 0.2 --robust $rule"
            done ;;
        honest)
            R="--data Cora --lcc --split metis --clients 10 --screen 0 --seeds $SEEDS"
            for a in fedavg fedpub; do
                for at in signflip:4 scale:10 alie nan; do
                    for rule in mean median trimmed:2 krum:2; do
                        echo "honest|cora 10 $a $at $rule|--algo $a $R --attack $at --attackers 0.2 --robust $rule"
                    done
                done
            done ;;
        privacy)
            P="--data Cora --lcc --split metis --clients 10 --screen 0 --seeds $SEEDS --secret-seed 1"
            echo "privacy|cora 10 fedavg no dp|--algo fedavg $P"
            for z in 0 0.5 1 2 4; do
                echo "privacy|cora 10 fedavg dp clip 1 noise $z q 1|--algo fedavg $P --dp clip=1,noise=$z"
            done
            for z in 0.5 1 2; do
                echo "privacy|cora 10 fedavg dp clip 1 noise $z q 0.5|--algo fedavg $P --frac 0.5 --dp clip=1,noise=$z"
            done
            H="--data $CHEM --set share=conv --screen 0 --seeds $SEEDS --secret-seed 1"
            echo "privacy|chem fedavg no dp|--algo fedavg $H"
            for z in 0.5 1 2; do
                echo "privacy|chem fedavg dp clip 1 noise $z|--algo fedavg $H --dp clip=1,noise=$z"
            done
            for k in 10 100; do
                S="--data Cora --lcc --split metis --clients $k --rounds 10 --seeds 1"
                echo "privacy|cora $k fedavg 10 rounds plain|--algo fedavg $S"
                echo "privacy|cora $k fedavg 10 rounds secagg|--algo fedavg $S --secagg"
            done ;;
        fedprox)
            C="--data Cora --lcc --split metis --clients 10 --seeds $SEEDS"
            echo "fedprox|cora disjoint 10 E1 fedavg|--algo fedavg $C"
            echo "fedprox|cora disjoint 10 E1 fedprox mu=1|--algo fedprox $C --set mu=1"
            echo "fedprox|cora disjoint 10 E5 fedavg|--algo fedavg $C --local-epochs 5"
            for mu in 0.01 0.1 1; do
                echo "fedprox|cora disjoint 10 E5 fedprox mu=$mu|--algo fedprox $C --local-epochs 5 --set mu=$mu"
            done ;;
        fedpg)
            PG="--split metis --clients 10 --stratified --features raw --hidden 64 --local-epochs 3 --lr 0.01 --wd 5e-4 --rounds 100 --model gamlp --head none --seeds $SEEDS"
            for d in Cora Computers; do
                data=$d; [ $d = Computers ] && data="Computers --lcc"
                # the authors' pipeline (label leakage: validation labels in the prototypes), and its control
                echo "fedpg|$d fedpg authors-pipeline|--algo fedpg --data $data $PG --set val_centres=1 --set target_scale=authors --set loss_hops=0"
                echo "fedpg|$d local train+val labels|--algo local --data $data $PG --train-frac 0.6 --val-frac 0"
                # one honest protocol: training labels only, selection on validation
                echo "fedpg|$d fedpg hops=0|--algo fedpg --data $data $PG --set loss_hops=0"
                echo "fedpg|$d fedpg hops=all|--algo fedpg --data $data $PG --set loss_hops=-1"
                echo "fedpg|$d fedpg mu=0|--algo fedpg --data $data $PG --set mu=0"
                for a in local fedavg fedpub; do
                    echo "fedpg|$d $a|--algo $a --data $data $PG"
                done
                # the leak alone and the scale alone (hop-0 loss)
                echo "fedpg|$d fedpg val_centres=1|--algo fedpg --data $data $PG --set val_centres=1 --set loss_hops=0"
                echo "fedpg|$d fedpg target_scale=authors|--algo fedpg --data $data $PG --set target_scale=authors --set loss_hops=0"
            done
            # the authors' code runs a GCN (hidden 64, its second layer the classifier), not GAMLP
            G=$(echo "$PG" | sed 's/--model gamlp/--model gcn/')
            echo "fedpg|Cora fedpg authors-pipeline gcn|--algo fedpg --data Cora $G --set val_centres=1 --set target_scale=authors --set loss_hops=0"
            echo "fedpg|Cora local train+val labels gcn|--algo local --data Cora $G --train-frac 0.6 --val-frac 0" ;;
        *) echo "results.sh: unknown section $sec" >&2; exit 2 ;;
        esac
    done
}

run_one() { # SECTION|LABEL|ARGS
    sec=${1%%|*}; rest=${1#*|}; label=${rest%%|*}; args=${rest#*|}
    # resumable: an experiment already in the file is not run again
    if [ -f "$OUT/$sec.jsonl" ] && grep -qF "\"label\": \"$label\"," "$OUT/$sec.jsonl"; then
        echo "skip (already in $OUT/$sec.jsonl): $label" >&2; return 0
    fi
    line=$(OMP_NUM_THREADS=1 $FGLRUN $args --threads 1 --quiet --json | tail -n 1)
    case $line in
    "{"*) ;;
    *) echo "FAILED: $label (fglrun $args)" >&2; return 0 ;;
    esac
    commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    printf '{"label": "%s", "commit": "%s", "args": "%s", "result": %s}\n' "$label" "$commit" "$args" "$line" >> "$OUT/$sec.jsonl"
    echo "done: $label" >&2
}

if [ "${1:-}" = "--one" ]; then shift; run_one "$1"; exit; fi
experiments "$@" | tr '\n' '\0' | xargs -0 -P "$JOBS" -I{} sh "$0" --one "{}"
