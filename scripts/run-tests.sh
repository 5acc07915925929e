#!/bin/bash
# Build rabred and run its tests.  Every check writes its output to
# test-logs/<check>.log; a failing check's log is printed.  The last line is
# "N passed, M failed"; the exit status is non-zero when M > 0.
#
#   scripts/run-tests.sh           the default set, under 15 minutes on two
#                                  cores: the unit tests (`make check`: the
#                                  simulator's sweeps over every p up to 256
#                                  and a sample up to 1024), the MPI tests
#                                  under mpirun for many process counts,
#                                  rules files, the tools, ompi_info
#   scripts/run-tests.sh --long    the long target: the simulator's sweeps
#                                  over every p up to 1024 (`make
#                                  check-long`), `make distcheck`, and the
#                                  default set against Open MPI 5.0 inside a
#                                  Debian 13 root file system
#                                  (scripts/ompi5.sh), and the quick scale
#                                  run on SimGrid (scripts/run-scale.sh
#                                  --quick); about 25 minutes
#   scripts/run-tests.sh --all     both: every test (what CI runs)
#   scripts/run-tests.sh --ompi5   the default set's 5.0 subset, against the
#                                  Open MPI on PATH (what scripts/ompi5.sh
#                                  runs inside the root file system)
#
# Environment:
#   RABRED_NP_LIST    process counts for the MPI test (default below)
#   RABRED_TIMEOUT    seconds allowed per MPI run (default 600)
#   RABRED_SKIP_LARGE 1 skips the >2 GiB run (it needs about 6 GB of memory)
#   RABRED_OMPI5      0: do not run the Open MPI 5.0 checks (they need root
#                     and Debian's mirror); they count as a failure when they
#                     cannot run otherwise
set -uo pipefail

mode=full # full: this Open MPI (4.1 here); ompi5: the subset run inside 5.0
parts=default
case ${1:-} in
    --ompi5) mode=ompi5; shift ;;
    --long) parts=long; shift ;;
    --all) parts=all; shift ;;
    "") ;;
    *) echo "usage: $0 [--long | --all | --ompi5]" >&2; exit 2 ;;
esac
# What to run is fixed here: a check's loop variable named like these
# would otherwise end the run early without a failure.
readonly mode parts
full() { [ "$mode" = full ]; }
default_part() { [ "$parts" != long ]; }
long_part() { [ "$parts" != default ]; }

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
top=$PWD
logs=$top/test-logs
rm -rf "$logs"
mkdir -p "$logs"

passed=0
failed=0
failed_names=()

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
# A part's heading with the minutes since the start: CI's limit is 90
# minutes, and the log says which part took them.
section() { printf '== %s (at %d:%02d)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }
fail() {
    failed=$((failed + 1))
    failed_names+=("$1")
    echo "FAIL: $1 (log: ${2#"$top"/})"
    echo "----- $2 -----"
    cat "$2"
    echo "----- end of $2 -----"
}
# The programs of a `make check` run, each one check: PASS in its .trs
# file, its output (the whole run's log when it has none) in
# test-logs/PREFIX-NAME.log, and, when given, MUST_SAY in that output.
harness_results() { # prefix make-list-target run-log [must-say]
    local prefix=$1 list=$2 run_log=$3 must=${4:-} t name
    for t in $(make -s --no-print-directory "$list"); do
        name=$prefix-$(basename "$t")
        if [ -f "$t.log" ]; then
            cp "$t.log" "$logs/$name.log"
        else
            cp "$run_log" "$logs/$name.log"
        fi
        if [ -f "$t.trs" ] && grep -q '^:test-result: PASS' "$t.trs" &&
               { [ -z "$must" ] || grep -q "$must" "$logs/$name.log"; }; then
            pass "$name"
        else
            fail "$name" "$logs/$name.log"
        fi
    done
}
finish() {
    section "end"
    if [ "$failed" -gt 0 ]; then
        echo "failed checks: ${failed_names[*]}"
    fi
    echo "$passed passed, $failed failed"
    if [ "$failed" -gt 0 ]; then
        exit 1
    fi
    exit 0
}

# 1. Packages and build.  Nothing else can run if this fails.
section "setup and build (scripts/setup.sh)"
if bash scripts/setup.sh >"$logs/setup.log" 2>&1; then
    pass setup
else
    fail setup "$logs/setup.log"
    finish
fi

# 2. Build every test program (unit and MPI) without running anything, so a
#    compile error is reported once, as its own check.
section "build test programs (make check TESTS=)"
if make -j2 check TESTS= >"$logs/build-tests.log" 2>&1; then
    pass build-tests
else
    fail build-tests "$logs/build-tests.log"
fi

# The default set: steps 3 to 6.
default_checks() {

# 3. Unit tests through the automake harness; each test program is one
#    check, read from its .trs result file, its output in its .log file.
section "unit tests (make check)"
make -j2 check >"$logs/make-check.log" 2>&1
harness_results unit print-unit-tests "$logs/make-check.log"

# 4. MPI correctness under mpirun, with Open MPI's default op components.
#    Then the extras: --int8-wrap runs with --mca op ^avx because Open MPI
#    4.1.4's op/avx saturates 8-bit integer SUM instead of wrapping (an
#    upstream bug, not rabred's: rabred reduces through the op framework);
#    --large moves more than 2^31 bytes in one call (p = 2, about 5 GB).
section "MPI tests (scripts/mpirun-rabred.sh)"
timeout_s=${RABRED_TIMEOUT:-600}
run_mpi() { # name np prog [mpirun and program args...]
    local name=$1 np=$2 prog=$3 log=$logs/$1.log
    shift 3
    if [ ! -x "$prog" ]; then
        echo "$prog was not built (see build-tests.log)" >"$log"
        fail "$name" "$log"
        return
    fi
    local extra=() args=()
    while [ $# -gt 0 ]; do
        case $1 in
            --mca) extra+=("$1" "$2" "$3"); shift 3 ;;
            *) args+=("$1"); shift ;;
        esac
    done
    if timeout -k 30 "$timeout_s" bash scripts/mpirun-rabred.sh -np "$np" \
           "${extra[@]}" "$prog" "${args[@]}" </dev/null >"$log" 2>&1; then
        pass "$name"
    else
        echo "exit status $? (124 = timeout after ${timeout_s}s)" >>"$log"
        fail "$name" "$log"
    fi
}
correctness=test/mpi/test_mpi_correctness
if full; then
    np_list=${RABRED_NP_LIST:-1 2 3 4 5 6 7 8 9 13 16}
else
    np_list=${RABRED_NP_LIST:-1 2 3 4 5 6 7 8 9 16}
fi
for np in $np_list; do
    run_mpi "correctness-np$np" "$np" "$correctness"
done
# Nonblocking (and, on Open MPI 5, persistent) calls: every algorithm bit
# for bit against its blocking form, several in flight on several
# communicators, mixed with blocking calls, MPI_Request_free, a hammer.
nonblocking=test/mpi/test_mpi_nonblocking
for np in 1 2 3 5 8; do
    run_mpi "nonblocking-np$np" "$np" "$nonblocking" --quick
done
run_mpi nonblocking-full-np4 4 "$nonblocking" --hammer 5000
# Every send posted before its step's receives (sends_first_bytes 1), and
# no receive posted early: the same results, blocking and not.
run_mpi sends-first-np5 5 "$correctness" --quick --mca coll_rabred_intra_sends_first_bytes 1 \
    --mca coll_rabred_inter_sends_first_bytes 1
run_mpi nonblocking-sends-first-np5 5 "$nonblocking" --quick --hammer 500 \
    --mca coll_rabred_intra_sends_first_bytes 1 --mca coll_rabred_inter_sends_first_bytes 1
# A threshold between two blocks one step sends to the same peer (Bruck at
# p = 4 splits the odd count 1031 into blocks of 257 and 258 elements:
# 2056 and 2064 bytes of doubles): messages to one peer keep their order.
run_mpi sends-first-split-np4 4 "$correctness" --quick \
    --mca coll_rabred_intra_sends_first_bytes 2060
run_mpi nonblocking-nodes-np6 6 "$nonblocking" --quick --mca coll_rabred_node_map block:2
# Each nonblocking call's line names its collective at verbose 2.
run_mpi nonblocking-verbose-np3 3 "$nonblocking" --quick --hammer 0 \
    --mca coll_rabred_verbose 2
if grep -q "coll:rabred: iallreduce p=3 " "$logs/nonblocking-verbose-np3.log" &&
   grep -q "coll:rabred: ireduce p=3 " "$logs/nonblocking-verbose-np3.log"; then
    pass nonblocking-verbose-names
else
    fail nonblocking-verbose-names "$logs/nonblocking-verbose-np3.log"
fi
if full; then
for np in 2 5; do
    run_mpi "int8-wrap-np$np" "$np" "$correctness" --mca op ^avx --quick --int8-wrap
done
# Tiny segments: the segmented algorithms cut every block into many pieces.
run_mpi small-segments-np5 5 "$correctness" --quick --mca coll_rabred_segment_size 8
# The node-aware algorithms over several "nodes" on this one machine
# (coll_rabred_node_map, docs/node-aware.md): block placement with a short
# last node, round-robin, and an irregular interleaved map, where
# non-commutative ops must fall back.  The map must be the one given.
run_mpi nodes-block2-np5 5 "$correctness" --quick --mca coll_rabred_node_map block:2 \
    --mca coll_rabred_verbose 1
run_mpi nodes-cyclic3-np7 7 "$correctness" --quick --nodes-interleaved \
    --mca coll_rabred_node_map cyclic:3
run_mpi nodes-irregular-np7 7 "$correctness" --quick --nodes-interleaved \
    --mca coll_rabred_node_map list:0,0,1,1,1,2,0
if grep -q "MPI_COMM_WORLD: 5 ranks on 3 nodes (1 to 2 per node, consecutive; sockets unknown), from coll_rabred_node_map" \
       "$logs/nodes-block2-np5.log"; then
    pass nodes-map-followed
else
    fail nodes-map-followed "$logs/nodes-block2-np5.log"
fi
# A temporary that cannot be allocated gives an error, not a crash or hang.
# Rabenseifner at p = 4: every rank receives into its temporary from the
# second halving step on (at p = 3 the rank outside the fold's pair starts
# from its input and needs none, so it would read the fake buffer).
run_mpi errors-rabenseifner-np4 4 test/mpi/test_mpi_errors \
    --mca coll_rabred_allreduce_algorithm rabenseifner
run_mpi errors-ring-np4 4 test/mpi/test_mpi_errors --mca coll_rabred_allreduce_algorithm ring
# A negative count with Open MPI's argument checks off: rabred answers
# MPI_ERR_COUNT itself, before choosing (handed to the component below, the
# call hangs the next one or crashes).
run_mpi errors-count-np3 3 test/mpi/test_mpi_errors --count --mca mpi_param_check 0
# A request that fails inside a round (a truncated receive) gives its own
# error class, and the communicator works afterwards.
run_mpi errors-truncate-np3 3 test/mpi/test_mpi_errors --truncate \
    --mca coll_rabred_allreduce_algorithm recursive_doubling
# MPI_Reduce's binomial tree at p = 2: one transfer a rank, run with the
# PML's blocking send and receive; the truncated receive gives the same.
run_mpi errors-truncate-reduce-np2 2 test/mpi/test_mpi_errors --truncate --reduce \
    --mca coll_rabred_reduce_algorithm binomial
# The same two errors from MPI_Iallreduce: the request completes with them.
run_mpi errors-nonblocking-np4 4 test/mpi/test_mpi_errors --nonblocking \
    --mca coll_rabred_allreduce_algorithm rabenseifner
run_mpi errors-truncate-nonblocking-np3 3 test/mpi/test_mpi_errors --truncate --nonblocking \
    --mca coll_rabred_allreduce_algorithm recursive_doubling
# The application's arrival hint (MPI info rabred_arrival) through
# MPI_Comm_dup_with_info / MPI_Comm_set_info; a refused value must say so.
run_mpi arrival-hint-np5 5 test/mpi/test_mpi_hint
# Pacing: a forced algorithm that does not read the estimate runs no gap
# exchange (auto's pacing is phase 5 of the run above).
run_mpi arrival-forced-no-exchange-np5 5 test/mpi/test_mpi_hint --forced-balanced \
    --mca coll_rabred_allreduce_algorithm neighbor_ring
if grep -q "coll:rabred: MPI info rabred_arrival=\"late:5=1\" .* using auto" \
       "$logs/arrival-hint-np5.log"; then
    pass arrival-hint-refused
else
    fail arrival-hint-refused "$logs/arrival-hint-np5.log"
fi
# Bad MCA values: one clear warning each, the documented default, and every
# result still right.
bad_log=$logs/bad-mca-values.log
run_mpi bad-mca-values 2 "$correctness" --quick \
    --mca coll_rabred_allreduce_algorithm no_such_algorithm \
    --mca coll_rabred_reduce_short_bytes -7 --mca coll_rabred_arrival_weight 5 \
    --mca coll_rabred_inter_mbs -5 --mca coll_rabred_intra_duplex 0.5 \
    --mca coll_rabred_inter_distance_mbs 1250,-625 --mca coll_rabred_reduce_metric fastest \
    --mca coll_rabred_inter_shift_alpha_us 1,x
if grep -q "invalid coll_rabred_allreduce_algorithm; using the default, auto" "$bad_log" &&
   grep -q "coll_rabred_reduce_short_bytes = -7 is negative; using the default" "$bad_log" &&
   grep -q "coll_rabred_inter_mbs = -5 is outside \[0.001, 1e+09\]; using the default 10000" "$bad_log" &&
   grep -q "coll_rabred_intra_duplex = 0.5 is outside \[1, 100\]; using the default 1" "$bad_log" &&
   grep -q "coll_rabred_arrival_weight = 5 is outside \[0.001, 1\]; using the default 0.5" "$bad_log" &&
   grep -q 'coll_rabred_inter_distance_mbs = "1250,-625" is not a list' "$bad_log" &&
   grep -q 'coll_rabred_inter_shift_alpha_us = "1,x" is not a list' "$bad_log" &&
   grep -q 'coll_rabred_reduce_metric = "fastest" is neither "average" nor "completion"' "$bad_log"; then
    pass bad-mca-warnings
else
    fail bad-mca-warnings "$bad_log"
fi
# A coll list without libnbc: Open MPI's MPI_Init fails ("Unknown error"),
# and rank 0 has said which component is missing and a list that works.
list_log=$logs/coll-list-without-libnbc.log
RABRED_COLL=rabred,basic timeout -k 30 120 bash scripts/mpirun-rabred.sh -np 2 "$correctness" \
    --quick </dev/null >"$list_log" 2>&1
if [ "$(grep -c 'coll:rabred: the coll list "rabred,basic" has no libnbc' "$list_log")" = 1 ]; then
    pass coll-list-said
else
    fail coll-list-said "$list_log"
fi
# A FIFO as the rules file: refused at once (reading it would wait for a
# writer, and MPI_Init with it), the built-in decision serves.
fifo=$logs/rules.fifo
rm -f "$fifo" && mkfifo "$fifo"
run_mpi rules-fifo-np2 2 "$correctness" --quick --mca coll_rabred_rules_file "$fifo"
if grep -q "rules.fifo: not a regular file" "$logs/rules-fifo-np2.log"; then
    pass rules-fifo-refused
else
    fail rules-fifo-refused "$logs/rules-fifo-np2.log"
fi
rm -f "$fifo"
if [ "${RABRED_SKIP_LARGE:-0}" != 1 ]; then
    run_mpi large-np2 2 "$correctness" --quick --large
fi
fi # full

# 5. rabred-plan: the example of the README and a picture.
# Rules files: a valid named file is followed (the verbose line says
# why=rule with file:line); a hostile one is reported with file:line,
# rejected, and results stay right under the built-in decision.
bench=bench/rabred_bench
rules_ok=$logs/rules-named.txt
printf '# rabred test rules\nallreduce comm_size>=2 msg_size<=1M alg=binary_blocks\nreduce commutative=yes alg=pairwise_gather\n' >"$rules_ok"
run_mpi rules-named-np3 3 "$bench" -r 1 -t 1 -m 1024 \
    --mca coll_rabred_rules_file "$rules_ok" --mca coll_rabred_verbose 2
if grep -q "alg=binary_blocks why=rule ($rules_ok:2)" "$logs/rules-named-np3.log" &&
   grep -q "alg=pairwise_gather why=rule ($rules_ok:3)" "$logs/rules-named-np3.log"; then
    pass rules-named-followed
else
    fail rules-named-followed "$logs/rules-named-np3.log"
fi
# Verbose 3 lists every candidate's price once per call shape the model
# decides; the algorithm the model's line names is the cheapest listed (an
# arrival estimate may replace it in a call, "(arrival: ...)", when the
# ranks of this busy machine arrive apart: those lines are not the model's).
run_mpi prices-listed-np3 3 "$bench" -r 1 -t 1 -s 1M -c allreduce --variants rabred:auto \
    --mca coll_rabred_verbose 3
if python3 - "$logs/prices-listed-np3.log" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
prices = re.findall(r'allreduce p=3 bytes=1048576 prices: (.*)', log)
chosen = set(re.findall(r'allreduce p=3 bytes=1048576 alg=(\w+) why=decision \(model:', log))
listed = [dict((a, float(t)) for a, t in re.findall(r'(\w+) ([0-9.e+-]+) us', line))
          for line in prices]
ok = len(prices) >= 3 and len(chosen) == 1 and all(
    len(l) >= 5 and min(l, key=l.get) in chosen for l in listed)
sys.exit(0 if ok else 1)
PY
then
    pass prices-listed-cheapest-chosen
else
    fail prices-listed-cheapest-chosen "$logs/prices-listed-np3.log"
fi
# coll_rabred_reduce_metric reaches the decision: 8 ranks, 64 KiB, the
# built-in shared-memory model: by the ranks' average a tree whose leaves
# leave after one send (binomial, priced 26% below the next), by
# completion another plan (the model's line names each).  From 1 MiB
# Rabenseifner's plan, which starts from the input, wins by both.
metric_log=$logs/reduce-metric.log
: >"$metric_log"
for metric in average completion; do
    echo "== metric: $metric" >>"$metric_log"
    timeout -k 30 600 bash scripts/mpirun-rabred.sh -np 8 --mca coll_rabred_reduce_metric \
        "$metric" --mca coll_rabred_verbose 2 "$bench" -s 64K -r 1 -t 1 -c reduce \
        --variants rabred:auto </dev/null >>"$metric_log" 2>&1
done
chosen="reduce p=8 bytes=65536 alg=[a-z_]* why=decision (model:"
by_average=$(sed -n '/== metric: average/,/== metric: completion/p' "$metric_log" |
             grep -o "$chosen" | sort -u)
by_completion=$(sed -n '/== metric: completion/,$p' "$metric_log" | grep -o "$chosen" | sort -u)
if [ "$(echo "$by_average" | grep -c .)" = 1 ] && [ "$(echo "$by_completion" | grep -c .)" = 1 ] &&
   [ "$by_average" != "$by_completion" ]; then
    pass reduce-metric-reaches-model
else
    fail reduce-metric-reaches-model "$metric_log"
fi
# The earlier names of renamed algorithms stay accepted as MCA values (and
# in rules files): ring is pairwise_ring for MPI_Allreduce and
# pairwise_gather for MPI_Reduce, segmented_ring is neighbor_ring.
alias_log=$logs/mca-aliases.log
for pair in allreduce:ring:pairwise_ring reduce:ring:pairwise_gather \
            allreduce:segmented_ring:neighbor_ring; do
    IFS=: read -r coll alias name <<<"$pair"
    env "OMPI_MCA_coll_rabred_${coll}_algorithm=$alias" bash scripts/mpirun-rabred.sh \
        --ompi-info --param coll rabred --level 9 >>"$alias_log" 2>&1
    grep -q "\"coll_rabred_${coll}_algorithm\" (current value: \"$name\", data source: environment" \
        "$alias_log" || echo "MISSING: $coll $alias -> $name" >>"$alias_log"
done
if grep -q MISSING "$alias_log"; then
    fail mca-aliases "$alias_log"
else
    pass mca-aliases
fi
rules_bad=$logs/rules-invalid.txt
printf 'allreduce comm_size>=2 alg=ring\nreduce msg_size>=-5 alg=binomial\n' >"$rules_bad"
run_mpi rules-invalid-np4 4 "$correctness" --quick --mca coll_rabred_rules_file "$rules_bad"
rules_bin=$logs/rules-binary.txt
printf 'allreduce alg=ring\n\001\002\000binary\377\n' >"$rules_bin"
run_mpi rules-binary-np3 3 "$bench" -r 1 -t 1 -m 64 --mca coll_rabred_rules_file "$rules_bin"
# Every rank that went without the file says so (a file missing on some
# nodes only would make ranks decide differently); the details once.
for case in invalid-np4:"$rules_bad":2:4 binary-np3:"$rules_bin":2:3; do
    IFS=: read -r run file line np <<<"$case"
    log=$logs/rules-$run.log
    if grep -q "$file:$line:" "$log" &&
       grep -q "rules file $file rejected; using the built-in decision" "$log" &&
       [ "$(grep -c "): rules file $file rejected" "$log")" = "$np" ]; then
        pass "rules-$run-reported"
    else
        fail "rules-$run-reported" "$log"
    fi
done
# A tiny rabred-tune run (tuned below rabred as the baseline) writes both
# formats; rabred then loads each without complaint.
tune_dir=$logs/tune
RABRED_COLL=rabred,tuned,basic,libnbc run_mpi tune-quick-np3 3 tools/rabred-tune --quick \
    --out "$tune_dir"
for f in rules.txt rules-tuned.txt; do
    name=tuned-rules-accepted-${f%.txt}
    run_mpi "$name" 3 "$bench" -r 1 -t 1 -m 64 --mca coll_rabred_rules_file "$tune_dir/$f" \
        --mca coll_rabred_verbose 1
    if [ -s "$tune_dir/$f" ] && grep -q "rules file $tune_dir/$f: [0-9]* rules loaded" \
           "$logs/$name.log" && ! grep -q "rejected" "$logs/$name.log"; then
        pass "$name-loaded"
    else
        fail "$name-loaded" "$logs/$name.log"
    fi
done
# Several communicator sizes in one run: 4 ranks measure p = 2, 3 and 4
# (given out of order).  rules.txt's comm_size ranges must run from 2 to 4
# in ascending order without a gap or overlap (sizes whose rules agree
# merge), speedup.md must hold a section per size with each time's range
# of rounds, and rabred must load both files and follow rules.txt at p = 3
# (whatever it measured: a rule naming `previous` reads "file:N: previous").
multi_dir=$logs/tune-multi
RABRED_COLL=rabred,tuned,basic,libnbc run_mpi tune-comm-sizes-np4 4 tools/rabred-tune --quick \
    --coll allreduce --max-sizes 2 --comm-sizes 4,2,3 --out "$multi_dir"
multi_log=$logs/tune-comm-sizes-ranges.log
awk '/^allreduce/ {
        lo = ""; hi = ""
        for (i = 2; i <= NF; i++) {
            if ($i ~ /^comm_size=/) { lo = substr($i, 11); hi = lo }
            else if ($i ~ /^comm_size>=/) lo = substr($i, 12)
            else if ($i ~ /^comm_size<=/) hi = substr($i, 12)
        }
        if (lo "-" hi != last) { n++; L[n] = lo; H[n] = hi; last = lo "-" hi }
     }
     END {
        ok = n > 0 && L[1] == 2 && H[n] == 4
        for (i = 1; i <= n; i++) {
            ok = ok && H[i] != "" && H[i] + 0 >= L[i] + 0 && (i == 1 || L[i] == H[i - 1] + 1)
            printf "%s-%s ", L[i], H[i]
        }
        print ok ? "contiguous 2..4" : "NOT contiguous 2..4"
     }' "$multi_dir/rules.txt" >"$multi_log" 2>&1
cat "$multi_dir/rules.txt" >>"$multi_log" 2>&1
if grep -q "^[0-9 -]*contiguous 2..4$" "$multi_log" &&
   [ "$(grep -c '^## MPI_Allreduce, p = [234]$' "$multi_dir/speedup.md" 2>/dev/null)" = 3 ] &&
   grep -q '| [0-9.]* ([0-9.]*-[0-9.]*) |' "$multi_dir/speedup.md"; then
    pass tune-comm-sizes-ranges
else
    cat "$multi_dir/speedup.md" >>"$multi_log" 2>&1
    fail tune-comm-sizes-ranges "$multi_log"
fi
run_mpi tune-comm-sizes-followed-np3 3 "$bench" -r 1 -t 1 -m 64 \
    --mca coll_rabred_rules_file "$multi_dir/rules.txt" --mca coll_rabred_verbose 2
if grep -q "rules file $multi_dir/rules.txt: [0-9]* rules loaded" \
       "$logs/tune-comm-sizes-followed-np3.log" &&
   grep -q "coll:rabred: allreduce p=3 .*why=rule ($multi_dir/rules.txt:[0-9][0-9]*[:)]" \
       "$logs/tune-comm-sizes-followed-np3.log"; then
    pass tune-comm-sizes-followed
else
    fail tune-comm-sizes-followed "$logs/tune-comm-sizes-followed-np3.log"
fi

# rabred-calibrate on 5 ranks of this machine (the intra-node link and
# every round term) writes an MCA parameter file and its summary; Open MPI
# reads the file back through the line its header gives, rabred takes its
# values, and every result stays right under the calibrated model.
cal_dir=$logs/calibrate
mkdir -p "$cal_dir"
run_mpi calibrate-np5 5 tools/rabred-calibrate --out "$cal_dir" --max-bytes 262144
cal_conf=$cal_dir/rabred-calibration.conf
cal_files=$(sed -n 's/^# mpirun --mca mca_base_param_files //p' "$cal_conf" 2>/dev/null)
cal_log=$logs/calibrate-read-back.log
# (ompi_info reads parameter files before its --mca options: the
# environment's form, which mpirun's --mca becomes; an empty list makes
# Open MPI 4.1.4's ompi_info crash)
echo "calibration file list: '$cal_files'" >"$cal_log"
[ -n "$cal_files" ] &&
    OMPI_MCA_mca_base_param_files=$cal_files bash scripts/mpirun-rabred.sh --ompi-info \
        --param coll rabred --level 9 --parsable >>"$cal_log" 2>&1
cal_read_back() { # every name = value of the file, as ompi_info reports it
    local name value seen n=0
    while IFS=' =' read -r name value; do
        seen=$(sed -n "s/^mca:coll:rabred:param:$name:value://p" "$cal_log")
        awk -v a="$value" -v b="$seen" 'BEGIN { exit !(b != "" && a - b < 1e-9 * (a < 0 ? -a : a) + 1e-12 && b - a < 1e-9 * (a < 0 ? -a : a) + 1e-12) }' ||
            { echo "$name: file $value, ompi_info '$seen'" >>"$cal_log"; return 1; }
        n=$((n + 1))
    done < <(grep -v '^#' "$cal_conf")
    [ "$n" -ge 15 ] # the intra link's 10, reduce, sync, duplex, aggregate, peer (5 ranks)
}
# (5 ranks on one node: a hub and 4 spokes measure the messages in flight)
if [ -n "$cal_files" ] && grep -q "coll_rabred_intra_peer_us" "$cal_dir/rabred-calibration.md" &&
   grep -q "^coll_rabred_intra_wire_us = " "$cal_conf" &&
   grep -q "^coll_rabred_intra_shared_ports = [01]$" "$cal_conf" &&
   grep -q "^coll_rabred_intra_parallel_ports = [01]$" "$cal_conf" && cal_read_back; then
    pass calibrate-read-back
else
    fail calibrate-read-back "$cal_log"
fi
run_mpi calibrated-correctness-np5 5 "$correctness" --quick \
    --mca mca_base_param_files "$cal_files"
# Links whose messages in flight share them and overlap their latency
# (the books' simulated mode), one link and two (a forced node map):
# every result stays right whatever the decision then picks.
run_mpi shared-ports-correctness-np5 5 "$correctness" --quick \
    --mca coll_rabred_intra_shared_ports 1 --mca coll_rabred_intra_wire_us 0.3
run_mpi shared-ports-nodes-correctness-np6 6 "$correctness" --quick \
    --mca coll_rabred_node_map block:2 --mca coll_rabred_intra_shared_ports 1 \
    --mca coll_rabred_inter_shared_ports 1 --mca coll_rabred_inter_wire_us 1.5 \
    --mca coll_rabred_intra_wire_us 0.3
run_mpi parallel-ports-nodes-correctness-np6 6 "$correctness" --quick \
    --mca coll_rabred_node_map block:3 --mca coll_rabred_intra_parallel_ports 1

# Ranks that disagree on rabred's settings hand the communicator to the
# component below (coll_rabred_agree.c) instead of running plans that do
# not match (a hang or wrong blocks): a rules file only rank 1 has, an
# algorithm forced on rank 2 only, a rules file rank 0 cannot find while
# the others load it.  The same rules in another wording agree.
# test_mpi_agree checks every result and, with rabred's counters, that
# every call (or none) was handed down on every rank.
on_rank=test/mpi/env-on-rank.sh
agree=test/mpi/test_mpi_agree
rules_reworded=$logs/rules-named-reworded.txt
printf 'allreduce   msg_size<=1048576 comm_size>=2 alg=binary_blocks # the same\n\nreduce commutative=yes alg=ring\n' >"$rules_reworded"
run_mpi agree-differ-rules-np3 3 "$on_rank" 1 OMPI_MCA_coll_rabred_rules_file="$rules_ok" -- \
    "$agree" differ
run_mpi agree-differ-param-np4 4 "$on_rank" 2 OMPI_MCA_coll_rabred_allreduce_algorithm=ring -- \
    "$agree" differ
run_mpi agree-differ-missing-np3 3 "$on_rank" 0 \
    OMPI_MCA_coll_rabred_rules_file="$logs/no-such-rules.txt" -- "$agree" differ \
    --mca coll_rabred_rules_file "$rules_ok"
run_mpi agree-same-rules-np3 3 "$on_rank" 2 OMPI_MCA_coll_rabred_rules_file="$rules_reworded" -- \
    "$agree" agree --mca coll_rabred_rules_file "$rules_ok"
# A speed beyond the cache on one rank differs; a cache size alone does
# not (without a far speed it changes no price: each host's own L2 is the
# default)
run_mpi agree-differ-far-np3 3 "$on_rank" 1 OMPI_MCA_coll_rabred_reduce_far_mbs=5000 -- \
    "$agree" differ
run_mpi agree-same-cache-np3 3 "$on_rank" 1 OMPI_MCA_coll_rabred_core_cache_bytes=12345 -- \
    "$agree" agree
warned() { # log rules-verdict parameters-verdict: rank 0 warned for both communicators
    [ "$(grep -c "do not agree on rabred's settings (the rules file's rules: $2; the coll_rabred_\* parameters: $3)" "$1")" = 2 ]
}
for case in rules-np3:differ:same param-np4:same:differ missing-np3:differ:same \
            far-np3:same:differ; do
    IFS=: read -r run rules_verdict param_verdict <<<"$case"
    log=$logs/agree-differ-$run.log
    if warned "$log" "$rules_verdict" "$param_verdict"; then
        pass "agree-differ-$run-warned"
    else
        fail "agree-differ-$run-warned" "$log"
    fi
done
false_alarms=$(grep -l "do not agree on rabred's settings" "$logs"/*.log | grep -v '/agree-differ-' || true)
if [ -z "$false_alarms" ]; then
    pass agree-no-false-alarm
else
    fail agree-no-false-alarm "$(echo "$false_alarms" | head -1)"
fi

plan_log=$logs/rabred-plan.log
if ./tools/rabred-plan --alg rabenseifner -p 8 --count 1024 --cost >"$plan_log" 2>&1 &&
   grep -qx "alpha=6 beta=1.75 gamma=0.875" "$plan_log" &&
   ./tools/rabred-plan --coll reduce --alg rabenseifner -p 7 --root 3 --count 100 \
       --noncommutative --svg "$logs/reduce-rabenseifner-p7.svg" >>"$plan_log" 2>&1 &&
   grep -q "<svg" "$logs/reduce-rabenseifner-p7.svg"; then
    pass rabred-plan
else
    fail rabred-plan "$plan_log"
fi
# The benchmark prints the field's formats: OSU's columns and nccl-tests'
# (busbw = algbw * 2(p-1)/p for allreduce), a row per timed size.
for format in osu nccl; do
    run_mpi "bench-format-$format-np2" 2 "$bench" -r 1 -t 1 -s 8,1K -c allreduce \
        --variants tuned:default,rabred:auto --format "$format"
done
osu_log=$logs/bench-format-osu-np2.log nccl_log=$logs/bench-format-nccl-np2.log
if [ "$(grep -c '^# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations$' "$osu_log")" = 2 ] &&
   [ "$(grep -cE '^(8|1024) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' "$osu_log")" = 4 ] &&
   [ "$(grep -c '^#       size         count      type   redop    root     time   algbw   busbw$' "$nccl_log")" = 2 ] &&
   awk '$1 == 1024 && $3 == "double" { n++; if ($7 <= 0 || $8 != $7) bad = 1 } END { exit !(n == 2 && !bad) }' "$nccl_log"; then
    pass bench-formats
else
    fail bench-formats "$osu_log"
fi
# rabred_bench --fresh-input: the input rewritten before every call, in
# latency and barrier modes; every result still checked (a wrong one aborts).
fresh_log=$logs/bench-fresh-input.log
: >"$fresh_log"
for arrival in latency balanced; do
    timeout -k 30 120 bash scripts/mpirun-rabred.sh -np 3 "$bench" --mode "$arrival" -r 1 -t 1 \
        -s 8,64K -c both --variants tuned:default,rabred:auto --fresh-input 1 \
        </dev/null >>"$fresh_log" 2>&1 || echo "exit status $? ($arrival)" >>"$fresh_log"
done
if [ "$(grep -c '^# fresh input: every rank rewrites its input before each call' "$fresh_log")" = 2 ] &&
   ! grep -q "exit status\|WRONG RESULT" "$fresh_log"; then
    pass bench-fresh-input
else
    fail bench-fresh-input "$fresh_log"
fi
# rabred_bench's rabred:flat: auto on a communicator whose node map puts
# every rank on a node of its own, while MPI_COMM_WORLD keeps the given map.
run_mpi bench-flat-np4 4 "$bench" -r 1 -t 1 -s 1K -c allreduce \
    --variants tuned:default,rabred:auto,rabred:flat \
    --mca coll_rabred_node_map cyclic:2 --mca coll_rabred_verbose 1
flat_log=$logs/bench-flat-np4.log
if [ "$(grep -c 'MPI_COMM_WORLD: 4 ranks on 2 nodes' "$flat_log")" = 4 ] &&
   [ "$(grep -c 'DUP FROM 0: 4 ranks on 4 nodes' "$flat_log")" = 4 ] &&
   grep -q '^| 1024 | .* | .* | .* |$' "$flat_log"; then
    pass bench-flat
else
    fail bench-flat "$flat_log"
fi
# bench/compare/analyze.py on a recorded run: the summary it prints must be
# the one the run's README quotes (77% of 56 cells within 1.05x, worst 2.00),
# and of the 13 cells over 1.05x the 7 whose fastest round is over it too.
analyze_dir=$logs/analyze-recorded
rm -rf "$analyze_dir" && mkdir -p "$analyze_dir"
cp -r bench/results/model-cluster-20261126/raw "$analyze_dir/"
if python3 bench/compare/analyze.py "$analyze_dir" --no-plots >"$logs/analyze.log" 2>&1 &&
   grep -qxF '| rabred:auto | both | 56 | 43 (77%) | 2.00 |' "$analyze_dir/results.md" &&
   grep -qxF '| rabred:auto | allreduce | 28 | 22 (79%) | 1.17 |' "$analyze_dir/results.md" &&
   grep -qxF '| rabred:auto | both | 13 | 7 |' "$analyze_dir/results.md"; then
    pass analyze-recorded
else
    fail analyze-recorded "$logs/analyze.log"
fi
# bench/compare/reproducibility.py on the three recorded cluster runs: the
# counts quoted by reproducibility-20261127/README.md.
repro_log=$logs/reproducibility.log
if (cd bench/results && python3 ../compare/reproducibility.py model-cluster-20261127 \
        model-cluster-20261127c model-cluster-20261127d) >"$repro_log" 2>&1 &&
   grep -q '^| allreduce | model-cluster-20261127d | model-cluster-20261127c | 28 | 21 (75%) | 1.32 |' "$repro_log" &&
   grep -q '^| reduce | model-cluster-20261127c | model-cluster-20261127 | 28 | 26 (93%) | 3.52 |' "$repro_log" &&
   grep -q '^| allreduce | 517 | 203 (39%) | 118 (23%) |' "$repro_log" &&
   grep -q '^| allreduce | 28 | 26.3 (94%) | 3: 13/65536 1.20, 16/65536 1.17, 16/1048576 1.30 |' "$repro_log"; then
    pass reproducibility-recorded
else
    fail reproducibility-recorded "$repro_log"
fi
# Every installed tool says its version (configure's) and has a man page
# that groff formats without a warning.
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
tools_log=$logs/tools-version.log
: >"$tools_log"
./tools/rabred-plan --version >>"$tools_log" 2>&1
for tool in rabred-tune rabred-calibrate; do
    timeout -k 30 60 bash scripts/mpirun-rabred.sh -np 2 "./tools/$tool" --version \
        </dev/null >>"$tools_log" 2>&1
done
if [ -n "$version" ] && [ "$(grep -cx "rabred-\(plan\|tune\|calibrate\) $version" "$tools_log")" = 3 ]; then
    pass tools-version
else
    fail tools-version "$tools_log"
fi
man_log=$logs/man-pages.log
if ! full; then
    : # the pages do not depend on Open MPI's version: checked once, in the 4.1 run
elif groff -man -Tutf8 -ww -z docs/man/rabred-plan.1 docs/man/rabred-tune.1 \
       docs/man/rabred-calibrate.1 docs/man/rabred.7 >"$man_log" 2>&1 && [ ! -s "$man_log" ]; then
    pass man-pages
else
    fail man-pages "$man_log"
fi

# configure stops, with its message, on an Open MPI it cannot build
# against: another series (a stand-in ompi_info that reports 4.0.7) or no
# developer headers (a stand-in mpicc whose include directory is empty).
# It runs on a copy of the generated configure and what it reads.
refuse_dir=$logs/configure-refuses
rm -rf "$refuse_dir"
mkdir -p "$refuse_dir/src/ompi/mca/coll/rabred/compat/ompi/mpi/fortran/base" "$refuse_dir/empty"
cp -r configure config Makefile.in rabred-env.sh.in "$refuse_dir/src/"
cp ompi/mca/coll/rabred/compat/ompi/mpi/fortran/base/fint_2_int.h \
   "$refuse_dir/src/ompi/mca/coll/rabred/compat/ompi/mpi/fortran/base/"
printf '#!/bin/sh\necho "Open MPI v4.0.7"\n' >"$refuse_dir/ompi_info-4.0"
printf '#!/bin/sh\ncase "$1" in --showme:incdirs) echo %s ;; --showme:libdirs) echo /nonexistent ;; *) exit 1 ;; esac\n' \
    "$refuse_dir/empty" >"$refuse_dir/mpicc-no-headers"
chmod +x "$refuse_dir/ompi_info-4.0" "$refuse_dir/mpicc-no-headers"
refuses() { # name expected-message configure-args...
    local name=$1 want=$2 log=$logs/$1.log
    shift 2
    if (cd "$refuse_dir/src" && ./configure "$@") >"$log" 2>&1; then
        echo "configure accepted it" >>"$log"
        fail "$name" "$log"
    elif grep -q "$want" "$log"; then
        pass "$name"
    else
        fail "$name" "$log"
    fi
}
refuses configure-refuses-other-series "rabred supports Open MPI 4.1.x and 5.0.x" \
    OMPI_INFO="$refuse_dir/ompi_info-4.0"
refuses configure-refuses-no-headers "internal headers were not found" \
    MPICC="$refuse_dir/mpicc-no-headers"

# 6. ompi_info must load the component from the build tree and list its
#    parameters (proves the .so loads and registers them).
section "ompi_info parameters"
info_log=$logs/ompi-info.log
bash scripts/mpirun-rabred.sh --ompi-info --param coll rabred --level 9 \
    >"$info_log" 2>&1
for param in coll_rabred_priority coll_rabred_allreduce_algorithm \
             coll_rabred_reduce_algorithm coll_rabred_verbose coll_rabred_rules_file \
             coll_rabred_intra_alpha_us coll_rabred_intra_mbs coll_rabred_intra_oneway_alpha \
             coll_rabred_intra_oneway_beta coll_rabred_intra_eager_bytes \
             coll_rabred_intra_rndv_us coll_rabred_intra_peer_us coll_rabred_intra_duplex \
             coll_rabred_intra_invalidate_mbs coll_rabred_intra_overwrite_mbs \
             coll_rabred_intra_aggregate_mbs coll_rabred_inter_alpha_us coll_rabred_inter_mbs \
             coll_rabred_reduce_mbs coll_rabred_round_sync_us coll_rabred_segment_size \
             coll_rabred_node_map coll_rabred_inter_distance_mbs coll_rabred_reduce_metric \
             coll_rabred_inter_shift_mbs coll_rabred_inter_distance_alpha_us \
             coll_rabred_inter_shift_alpha_us coll_rabred_reduce_far_mbs \
             coll_rabred_copy_far_mbs coll_rabred_core_cache_bytes \
             coll_rabred_intra_shared_ports coll_rabred_intra_wire_us \
             coll_rabred_inter_shared_ports coll_rabred_inter_wire_us \
             coll_rabred_intra_parallel_ports coll_rabred_inter_parallel_ports; do
    if grep -q "parameter \"$param\"" "$info_log"; then
        pass "ompi-info-$param"
    else
        fail "ompi-info-$param" "$info_log"
    fi
done


# 7. The node map from Open MPI's own locality, on the emulated cluster
#    (bench/cluster/): three hosts of two ranks, placed round-robin.  Every
#    rank must learn the same map from the runtime, and the decision,
#    pricing both links with the cluster's calibrated profile, must pick a
#    node-aware plan for 4 MiB.  Unbound (the cluster's default) the
#    runtime knows no sockets; bound to sockets (each host's one socket),
#    every rank must learn one socket and one NUMA domain per host.  The
#    cluster needs root, network namespaces and tc; where the machine has
#    none of that, this says why and skips.
section "node map on the emulated cluster"
cl_log=$logs/cluster-nodes.log
if cl_why=$(bash bench/compare/compare.sh --can-run 2>&1); then
    # shellcheck source=bench/compare/param-args.sh
    . bench/compare/param-args.sh
    param_args_from bench/profiles/emulated-100mbit.conf
    if bash bench/cluster/cluster.sh up 3 --slots 2 >"$cl_log" 2>&1; then
        RABRED_COLL=rabred,tuned,basic,libnbc timeout -k 30 600 \
            bash bench/cluster/cluster.sh run -np 6 --map-by node "${param_args[@]}" \
            --mca coll_rabred_verbose 2 "$bench" -s 4M -r 1 -t 1 -c allreduce \
            --variants tuned:default >>"$cl_log" 2>&1
        RABRED_COLL=rabred,tuned,basic,libnbc timeout -k 30 600 \
            bash bench/cluster/cluster.sh run -np 6 --map-by node --bind-to socket \
            "${param_args[@]}" --mca coll_rabred_verbose 2 "$bench" -s 64K -r 1 -t 1 \
            -c allreduce --variants tuned:default >"$logs/cluster-sockets.log" 2>&1
        # rabred-calibrate with two ranks per host in block order: its
        # network rounds must run on one rank per host (0, 2, 4), or the
        # exchange pairs (0,1), (2,3) stay inside a host.
        rm -rf "$logs/cluster-calibrate"
        timeout -k 30 600 bash bench/cluster/cluster.sh run -np 6 --map-by slot \
            tools/rabred-calibrate --max-bytes 256K --out "$logs/cluster-calibrate" \
            >"$logs/cluster-calibrate.log" 2>&1
    fi
    bash bench/cluster/cluster.sh down >>"$cl_log" 2>&1
    cal_md=$logs/cluster-calibrate/rabred-calibration.md
    if grep -q "^Lock-step rounds on 3 ranks, one per node: world ranks 0, 2, 4\.$" "$cal_md" &&
       grep -q "^coll_rabred_inter_duplex = " "$logs/cluster-calibrate/rabred-calibration.conf" &&
       grep -q "^| aggregate term | not measured | | needs 4 ranks or more (one per node" "$cal_md"; then
        pass cluster-calibrate-rounds-one-per-node
    else
        fail cluster-calibrate-rounds-one-per-node "$logs/cluster-calibrate.log"
    fi
    learned="MPI_COMM_WORLD: 6 ranks on 3 nodes (2 to 2 per node, interleaved;"
    if [ "$(grep -c "$learned sockets unknown), from the runtime's locality" "$cl_log")" = 6 ]; then
        pass cluster-node-map-learned
    else
        fail cluster-node-map-learned "$cl_log"
    fi
    # The hosts share this machine's sockets: on one socket each host's two
    # ranks share it (3 sockets, 3 NUMA domains); on more, any count.
    places="[0-9]* sockets, [0-9]* NUMA domains"
    [ "$(lscpu -p=SOCKET 2>/dev/null | grep -v '^#' | sort -u | wc -l)" = 1 ] &&
        places="3 sockets, 3 NUMA domains"
    if [ "$(grep -c "$learned $places), from the runtime's locality" \
            "$logs/cluster-sockets.log")" = 6 ]; then
        pass cluster-sockets-learned
    else
        fail cluster-sockets-learned "$logs/cluster-sockets.log"
    fi
    if grep -q "allreduce p=6 bytes=4194304 alg=node_[a-z_]* why=decision" "$cl_log"; then
        pass cluster-node-aware-chosen
    else
        fail cluster-node-aware-chosen "$cl_log"
    fi
    # The distance term end to end: four hosts of one rank (one link, a
    # run of world ranks), 64 KiB, with and without a list that makes
    # partners two apart 100x slower.  The string must reach the model
    # through the MCA system: without it the decision takes a plan that
    # talks at distance 2, with it the neighbour ring, the one plan whose
    # every message goes to a neighbour (distance 1 or p - 1).
    dist_log=$logs/cluster-distance.log
    : >"$dist_log"
    if bash bench/cluster/cluster.sh up 4 --slots 1 >>"$dist_log" 2>&1; then
        for list in none 11.6,0.116; do
            dist_args=()
            [ "$list" = none ] || dist_args=(--mca coll_rabred_inter_distance_mbs "$list")
            echo "== distance list: $list" >>"$dist_log"
            RABRED_COLL=rabred,tuned,basic,libnbc timeout -k 30 600 \
                bash bench/cluster/cluster.sh run -np 4 --map-by node "${param_args[@]}" \
                "${dist_args[@]}" --mca coll_rabred_verbose 2 "$bench" -s 64K -r 1 -t 1 \
                -c allreduce --variants tuned:default >>"$dist_log" 2>&1
        done
    fi
    bash bench/cluster/cluster.sh down >>"$dist_log" 2>&1
    # the model's choice: an arrival estimate may override it in a call
    decided="allreduce p=4 bytes=65536 alg=[a-z_]* why=decision (model:"
    without=$(sed -n '/== distance list: none/,/== distance list: 11/p' "$dist_log" |
              grep -o "$decided" | sort -u)
    with=$(sed -n '/== distance list: 11/,$p' "$dist_log" | grep -o "$decided" | sort -u)
    if [ -n "$without" ] && [ "$without" = "${without/neighbor_ring/}" ] &&
       [ "$with" = "allreduce p=4 bytes=65536 alg=neighbor_ring why=decision (model:" ]; then
        pass cluster-distance-term-reaches-model
    else
        fail cluster-distance-term-reaches-model "$dist_log"
    fi
else
    echo "SKIP: cluster-node-map-learned, cluster-sockets-learned, cluster-node-aware-chosen," \
         "cluster-distance-term-reaches-model ($cl_why)"
fi

} # default_checks

# The long target: steps 7 to 9.
# 7. The simulator's sweeps over every p up to 1024 (make check-long): each
#    sweep program is one check, as in step 3.
long_sweeps() {
    section "long sweeps (make check-long)"
    make -j2 check-long >"$logs/check-long.log" 2>&1
    # each sweep says it ran in full mode: "every p:" (test_nodes: "every p
    # to 256", its full sweep; see node_sweep_p)
    harness_results long print-sweep-tests "$logs/check-long.log" 'every p[: ]'
}

# 8. The same source against Open MPI 5.0 (scripts/ompi5.sh: a Debian 13
#    root file system, built once and reused while current).  Its checks
#    count here as ompi5/NAME; its logs land in test-logs/ompi5/.
ompi5_checks() {
    local log=$logs/ompi5.log
    section "Open MPI 5.0 (scripts/ompi5.sh test)"
    bash scripts/ompi5.sh test >"$log" 2>&1
    local rc=$? inner_failed=0 summary=no line
    while IFS= read -r line; do
        case $line in
            "PASS: "*) pass "ompi5/${line#PASS: }" ;;
            "FAIL: "*)
                failed=$((failed + 1))
                inner_failed=1
                failed_names+=("ompi5/${line#FAIL: }")
                echo "FAIL: ompi5/${line#FAIL: }" ;;
            *" passed, "*" failed") summary=yes ;;
        esac
    done <"$log"
    if [ "$summary" = no ] || { [ $rc -ne 0 ] && [ $inner_failed = 0 ]; }; then
        fail ompi5 "$log" # it could not run, or stopped before its summary
    elif [ $inner_failed = 1 ]; then
        echo "----- $log -----"
        cat "$log"
        echo "----- end of $log -----"
    fi
}
# 9. The release tarball: `make distcheck` unpacks `make dist`'s tarball,
#    builds it in a separate directory, runs its unit tests (the default
#    sweeps), installs it under a temporary prefix (tools, man pages, the
#    component) and uninstalls it cleanly.
distcheck() {
    section "make distcheck"
    if make distcheck >"$logs/distcheck.log" 2>&1; then
        pass distcheck
    else
        fail distcheck "$logs/distcheck.log"
    fi
}

# 10. rabred at scale on SimGrid's SMPI (scripts/run-scale.sh --quick): the
#    MPI-level runner runs every plan beside SMPI's algorithms on three
#    simulated platforms at p = 64, every result checked (the script fails
#    on a wrong rabred result), and the run ends with its verdict line.
scale_quick() {
    section "scale (scripts/run-scale.sh --quick)"
    local log=$logs/scale-quick.log
    if RABRED_SCALE_OUT=$logs/scale-quick bash scripts/run-scale.sh --quick >"$log" 2>&1 &&
        grep -q '^scale: auto within 1.05x of the best in [0-9]* of [1-9][0-9]* cells' "$log"; then
        pass scale-quick
        grep '^scale: ' "$log"
    else
        fail scale-quick "$log"
    fi
}

if default_part; then
    default_checks
fi
if long_part && full; then
    long_sweeps
    scale_quick
    distcheck
    if [ "${RABRED_OMPI5:-1}" = 0 ]; then
        echo "== Open MPI 5.0: not run (RABRED_OMPI5=0)"
    else
        ompi5_checks
    fi
fi

finish
