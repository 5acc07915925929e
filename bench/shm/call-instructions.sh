#!/bin/bash
# What one small MPI_Reduce costs each rank, in instructions: two ranks
# over shared memory run bench/shm/reduce_loop.c (MPI_Reduce of one double
# to rank 0, --calls times), one of them under valgrind's callgrind, for
# rabred (auto: the binomial tree, one message) and coll/tuned's linear
# reduce (the same message).  Prints, per rank and variant, the
# instructions per call of the whole MPI_Reduce and of the PML's receive
# (root) or send (leaf) inside it; the difference is what the collective
# layer adds.  Instruction counts do not depend on the machine's load;
# what they cost in time does (bench/shm/compare-shm.sh).
#
#   bench/shm/call-instructions.sh [--calls N] [--no-build]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
calls=20000 build=yes
while [ $# -gt 0 ]; do
    case $1 in
        --calls) calls=${2:?}; shift 2 ;;
        --no-build) build=no; shift ;;
        *) echo "usage: $0 [--calls N] [--no-build]" >&2; exit 2 ;;
    esac
done
[ "$build" = yes ] && bash scripts/setup.sh >/dev/null
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/reduce_loop" bench/shm/reduce_loop.c
# rank $VRANK runs under callgrind, the other natively
cat >"$work/wrap.sh" <<'WRAP'
#!/bin/bash
if [ "$OMPI_COMM_WORLD_RANK" = "$VRANK" ]; then
    exec valgrind -q --tool=callgrind --callgrind-out-file="$OUT" "$@"
fi
exec "$@"
WRAP
chmod +x "$work/wrap.sh"
# instructions per call of an inclusive function in a callgrind file
per_call() { # file, function
    callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
        awk -v f="$2" -v n="$calls" '!done && $0 ~ ":" f " " {gsub(",", "", $1); printf "%.0f", $1 / n; done = 1}'
}
echo "| rank | variant | MPI_Reduce | PML part | collective layer |"
echo "|---|---|---:|---:|---:|"
for vrank in 0 1; do
    pml=mca_pml_ob1_recv
    [ $vrank = 1 ] && pml=mca_pml_ob1_send
    for variant in rabred:auto tuned:linear; do
        out="$work/cg.$vrank.${variant%%:*}"
        args=()
        if [ "$variant" = tuned:linear ]; then
            export RABRED_COLL=tuned,basic,libnbc
            args=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 1)
        else
            export RABRED_COLL=rabred,basic,libnbc
        fi
        VRANK=$vrank OUT=$out bash scripts/mpirun-rabred.sh -np 2 -x VRANK -x OUT "${args[@]}" \
            "$work/wrap.sh" "$work/reduce_loop" "$calls" | grep -q right
        whole=$(per_call "$out" PMPI_Reduce)
        part=$(per_call "$out" "$pml")
        role=root
        [ $vrank = 1 ] && role=leaf
        echo "| $vrank ($role) | $variant | $whole | $part | $((whole - part)) |"
    done
done
