#!/bin/bash
# Compare rabred with Open MPI's coll/tuned on the emulated cluster
# (bench/cluster/): for each p, bring up p hosts (one rank each, or --ppn) joined by
# shaped links, run bench/rabred_bench with every variant interleaved
# (tuned:default, rabred:auto, each rabred algorithm, each coll/tuned
# algorithm forced), take the cluster down, and finally write medians,
# spreads, ratio tables and plots (bench/compare/analyze.py) into
# bench/results/NAME/.  See bench/compare/README.md.
#
#   bench/compare/compare.sh [--quick] [options]
#
# Options:
#   --quick            p in {2,5,8}, sizes 8,64K,1M,4M, 3 repeats (minutes)
#   --p-list "P ..."   ranks per run (default "2 3 ... 16"); hosts = P / ppn
#   --ppn K            ranks per host (default 1): P / K hosts, their ranks
#                      sharing memory; the bound becomes the node-level one
#   --placement PL     cyclic (default: rank r on host r mod N, mpirun
#                      --map-by node) or block (ranks 0..K-1 on the first
#                      host: --map-by slot)
#   --sizes LIST       bytes, comma separated, K/M suffixes
#                      (default: 8 and 16*4^k up to 16M)
#   --repeats R        interleaved rounds per size, median reported (default 5)
#   --rate RATE        link rate per direction (default 100mbit)
#   --target-ms MS     duration of one measurement (default 30)
#   --skip-factor F    do not time variants F x slower than the best of their
#                      family (default 4; 0 times everything)
#   --mode M, --max-delay MS, --late-rank R   arrival pattern (rabred_bench)
#   --coll allreduce|reduce|both              (default both)
#   --variants LIST    only these variants (rabred_bench --variants; e.g. for
#                      16M, where every variant at every p takes hours)
#   --params FILE      rabred's cost model for every run: an MCA parameter
#                      file as rabred-calibrate writes it (default
#                      bench/profiles/emulated-100mbit.conf, this cluster's
#                      calibration; none: the built-in defaults)
#   --profile FILE     rules file run as the variant rabred:profile, side by
#                      side with rabred:auto (default bench/profiles/
#                      emulated-100mbit.rules; none: no such variant)
#   --name NAME        output directory bench/results/NAME
#                      (default DATE, or quick-DATE with --quick)
#   --wait-cluster S   wait up to S seconds for a cluster someone else has up
#                      (default 0: give up at once)
#   --timeout-min M    limit of one p's mpirun (default 240)
#   --can-run          only check that the cluster can be used here; exit 0
#                      if so, else print why and exit 3
#   --no-build         do not run scripts/setup.sh first
#
# Exit status: 0 all runs done; 1 some run failed (the others are kept);
# 2 usage; 3 the cluster cannot be used here (not root, no netns/tc, or
# busy).  The cluster is always taken down again, also on failure or ^C,
# and only if this script brought it up.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cluster=$top/bench/cluster/cluster.sh
prog=compare.sh
orig_args="$*"
say() { echo "$prog: $*"; }
die() { echo "$prog: error: $*" >&2; exit 2; }

quick=no
p_list="2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"
sizes=8,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M
repeats=5 rate=100mbit target_ms=30 skip_factor=4 coll=both variants=
mode=balanced max_delay='' late_rank='' name='' wait_cluster=0 timeout_min=240
can_run_only=no build=yes ppn=1 placement=cyclic
params=$top/bench/profiles/emulated-100mbit.conf profile=$top/bench/profiles/emulated-100mbit.rules
p_set=no sizes_set=no repeats_set=no
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=yes; shift ;;
        --p-list) p_list=${2:?}; p_set=yes; shift 2 ;;
        --sizes) sizes=${2:?}; sizes_set=yes; shift 2 ;;
        --repeats) repeats=${2:?}; repeats_set=yes; shift 2 ;;
        --rate) rate=${2:?}; shift 2 ;;
        --target-ms) target_ms=${2:?}; shift 2 ;;
        --skip-factor) skip_factor=${2:?}; shift 2 ;;
        --mode) mode=${2:?}; shift 2 ;;
        --max-delay) max_delay=${2:?}; shift 2 ;;
        --late-rank) late_rank=${2:?}; shift 2 ;;
        --coll) coll=${2:?}; shift 2 ;;
        --variants) variants=${2:?}; shift 2 ;;
        --params) params=${2:?}; shift 2 ;;
        --profile) profile=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        --ppn) ppn=${2:?}; shift 2 ;;
        --placement) placement=${2:?}; shift 2 ;;
        --wait-cluster) wait_cluster=${2:?}; shift 2 ;;
        --timeout-min) timeout_min=${2:?}; shift 2 ;;
        --can-run) can_run_only=yes; shift ;;
        --no-build) build=no; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (--help)" ;;
    esac
done
if [ $quick = yes ]; then
    [ $p_set = yes ] || p_list="2 5 8"
    [ $sizes_set = yes ] || sizes=8,64K,1M,4M
    [ $repeats_set = yes ] || repeats=3
fi
[[ $ppn =~ ^[1-9][0-9]*$ ]] && [ "$ppn" -le 8 ] || die "bad --ppn '$ppn' (1..8)"
case $placement in cyclic) map_by=node ;; block) map_by=slot ;; *) die "bad --placement '$placement'" ;; esac
for p in $p_list; do
    if ! [[ $p =~ ^[0-9]+$ ]] || [ "$p" -lt 2 ] || [ $((p % ppn)) -ne 0 ] ||
       [ $((p / ppn)) -gt 16 ]; then
        die "bad p '$p' (2.., a multiple of --ppn $ppn, at most 16 hosts)"
    fi
done
if ! [[ $repeats =~ ^[1-9][0-9]*$ ]]; then die "bad --repeats '$repeats'"; fi

# ---- can the emulated cluster be used here? --------------------------------
# Prints the reason and returns 1 when not.  A cluster that is already up
# belongs to someone else (cluster.sh keeps one per machine): wait for it.
cluster_usable() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "not root (network namespaces and tc need root)"; return 1
    fi
    local c
    for c in ip tc nsenter unshare mountpoint timeout; do
        command -v "$c" >/dev/null 2>&1 || { echo "'$c' not found"; return 1; }
    done
    if ! ip netns list >/dev/null 2>&1; then
        echo "'ip netns' does not work here (no network namespace support?)"; return 1
    fi
    if [ -e /run/rabred-cluster/state ]; then
        echo "the emulated cluster is in use (/run/rabred-cluster/state exists: another job, or a stale one: bench/cluster/cluster.sh status)"
        return 1
    fi
}

wait_usable() {
    local why waited=0
    while ! why=$(cluster_usable); do
        case $why in
            *"in use"*) ;;
            *) echo "$why"; return 1 ;;
        esac
        if [ "$waited" -ge "$wait_cluster" ]; then
            echo "$why"; return 1
        fi
        sleep 10; waited=$((waited + 10))
    done
}

if [ $can_run_only = yes ]; then
    if why=$(cluster_usable); then say "the emulated cluster can be used"; exit 0; fi
    say "cannot use the emulated cluster: $why"; exit 3
fi
if ! why=$(wait_usable); then
    say "cannot use the emulated cluster: $why"; exit 3
fi

# ---- build, plotting packages ------------------------------------------------
if [ $build = yes ]; then
    nice bash "$top/scripts/setup.sh"
fi
[ -x "$top/bench/rabred_bench" ] || die "$top/bench/rabred_bench not built (scripts/setup.sh)"

# matplotlib from Debian (python3-matplotlib) for the plots; Debian's own
# python3, since a pyenv or venv python3 earlier in PATH does not see it.
# Installed only when missing, like scripts/setup.sh; without it the tables
# are still written.
plot_python=/usr/bin/python3
[ -x "$plot_python" ] || plot_python=$(command -v python3 || true)
[ -n "$plot_python" ] || die "python3 not found"
if ! "$plot_python" -c 'import matplotlib' 2>/dev/null; then
    if command -v apt-get >/dev/null 2>&1; then
        sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        say "installing python3-matplotlib for the plots"
        export DEBIAN_FRONTEND=noninteractive
        apt_install() { "${sudo[@]}" apt-get install -y -q --no-install-recommends python3-matplotlib; }
        # An old package list may not know the package: update once and retry.
        if ! apt_install && ! { "${sudo[@]}" apt-get update -q && apt_install; }; then
            say "warning: python3-matplotlib not installed: no plots"
        fi
    else
        say "warning: matplotlib not found and no apt-get: no plots"
    fi
fi

# ---- output directory -------------------------------------------------------
stamp=$(date +%Y%m%d-%H%M)
if [ -z "$name" ]; then
    if [ $quick = yes ]; then name=quick-$stamp; else name=$stamp; fi
fi
out=$top/bench/results/$name
mkdir -p "$out/raw"
meta=$out/raw/meta.txt
{
    echo "command: bench/compare/compare.sh $orig_args"
    echo "ppn: $ppn"
    echo "placement: $placement"
    echo "argv_resolved: p_list='$p_list' sizes=$sizes repeats=$repeats rate=$rate target_ms=$target_ms skip_factor=$skip_factor mode=$mode max_delay=${max_delay:-0} late_rank=${late_rank:-0} coll=$coll variants=${variants:-all} params=$params profile=$profile"
    if [ "$params" != none ]; then
        grep -v '^#' "$params" | sed 's/^/params_file: /'
    fi
    echo "started: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
    echo "kernel: $(uname -r)"
    echo "os: $(grep -m1 '^PRETTY_NAME=' /etc/os-release 2>/dev/null | cut -d= -f2- | tr -d '"')"
    echo "openmpi: $(ompi_info --version 2>/dev/null | head -1)"
    # a copy without git (scripts/ompi5.sh's root file system) is told its
    # commit in RABRED_COMMIT
    if git -C "$top" rev-parse HEAD >/dev/null 2>&1; then
        echo "rabred: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (modified)') branch $(git -C "$top" rev-parse --abbrev-ref HEAD)"
    else
        echo "rabred: ${RABRED_COMMIT:-unknown}"
    fi
    echo "tcp_congestion_control: $(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)"
} > "$meta"

# ---- the cluster, always taken down -------------------------------------------
owned=no bench_pid=''
cluster_down() {
    if [ $owned = yes ]; then
        "$cluster" down >/dev/null 2>&1 || "$cluster" down || true
        owned=no
    fi
}
on_exit() {
    local rc=$?
    if [ -n "$bench_pid" ]; then kill "$bench_pid" 2>/dev/null || true; fi
    cluster_down   # also ends whatever still runs in the cluster's namespaces
    exit $rc
}
trap on_exit EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP

cluster_up() {   # cluster_up N
    local why
    if ! why=$(wait_usable); then
        say "cannot use the emulated cluster: $why"; return 3
    fi
    # Mark it ours before `up` returns: an interrupted `up` cleans itself
    # up, and `down` after it is harmless.
    owned=yes
    if ! "$cluster" up "$1" --rate "$rate" --slots "$ppn" >/dev/null; then
        owned=no   # up removed what it made; the state may be someone else's
        say "cluster.sh up $1 failed"; return 1
    fi
}

bench_args=(-s "$sizes" -r "$repeats" -t "$target_ms" --skip-factor "$skip_factor" -c "$coll"
            --mode "$mode")
[ -n "$max_delay" ] && bench_args+=(--max-delay "$max_delay")
[ -n "$late_rank" ] && bench_args+=(--late-rank "$late_rank")
[ -n "$variants" ] && bench_args+=(--variants "$variants")
[ "$profile" != none ] && bench_args+=(--profile "$(realpath "$profile")")
# The parameter file's `name = value` lines as mpirun --mca options.
# shellcheck source=bench/compare/param-args.sh
. "$here/param-args.sh"
param_args=()
if [ "$params" != none ]; then
    [ -r "$params" ] || die "cannot read --params $params"
    param_args_from "$params"
fi

# The link bandwidth B of the bound 2(p-1)/p n/B: measured once, MPI one-way
# 4 MiB ping-pong between two hosts (what cluster.sh check measures).
measure_bandwidth() {
    local outl
    outl=$(timeout 300 "$cluster" run -np 2 --map-by node "$top/bench/rabred_netmodel" -q -n 4194304 2>&1 |
           grep '^one-way bandwidth' || true)
    echo "$outl" >> "$out/raw/bandwidth.txt"
    echo "$outl" | awk '{ print $3 * 1e6 }'
}

failed=0
t_all=$(date +%s)
bw=''
for p in $p_list; do
    echo "p=$p load_before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$meta"
    t0=$(date +%s)
    hosts=$((p / ppn))
    say "p = $p: cluster up ($hosts hosts x $ppn, $placement, $rate), then rabred_bench ${bench_args[*]}"
    rc=0
    cluster_up "$hosts" || rc=$?
    if [ $rc -eq 3 ]; then exit 3; fi
    if [ $rc -ne 0 ]; then failed=$((failed + 1)); continue; fi
    if [ -z "$bw" ]; then
        bw=$(measure_bandwidth)
        say "measured link bandwidth: ${bw:-?} B/s"
        echo "bandwidth_Bps: ${bw:-}" >> "$meta"
    fi
    # In the background, so a signal reaches our trap at once (bash runs
    # traps only between foreground commands).
    rc=0
    # coll/han is loaded at priority 0, below tuned: it serves only the
    # bench's han:default variant (a communicator that prefers it), so
    # tuned:default stays coll/tuned's decision on both Open MPI series
    RABRED_COLL=rabred,tuned,han,basic,libnbc timeout --kill-after=60 "$((timeout_min * 60))" \
        "$cluster" run -np "$p" --map-by "$map_by" --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_han_priority 0 "${param_args[@]}" \
        "$top/bench/rabred_bench" "${bench_args[@]}" --csv "$out/raw/p$p.csv" \
        > "$out/raw/p$p.md" 2> "$out/raw/p$p.err" &
    bench_pid=$!
    wait "$bench_pid" || rc=$?
    bench_pid=''
    cluster_down
    t1=$(date +%s)
    echo "p=$p load_after: $(cut -d' ' -f1-3 /proc/loadavg) seconds: $((t1 - t0)) status: $rc" >> "$meta"
    if [ $rc -ne 0 ]; then
        say "p = $p FAILED (status $rc): see $out/raw/p$p.err"
        tail -5 "$out/raw/p$p.err" >&2 || true
        failed=$((failed + 1))
    else
        say "p = $p done in $((t1 - t0)) s"
    fi
done
echo "finished: $(date -u +%FT%TZ) total_seconds: $(($(date +%s) - t_all))" >> "$meta"

"$plot_python" "$here/analyze.py" "$out" --rate "$rate" ${bw:+--bandwidth "$bw"}
say "results in ${out#"$top"/}: results.md, summary.csv, ratios.csv, *.png, raw/"
[ $failed -eq 0 ] || { say "$failed run(s) failed"; exit 1; }
