#!/bin/bash
# Build rabred and run every test: the unit tests (no MPI) through
# `make check`, the MPI correctness test under mpirun for many process
# counts, and a check that ompi_info documents the component's parameters.
#
# Every check writes its output to test-logs/<check>.log; a failing check's
# log is printed.  The last line is "N passed, M failed"; the exit status is
# non-zero when M > 0.
#
# Environment:
#   RABRED_NP_LIST    process counts for the MPI test (default below)
#   RABRED_TIMEOUT    seconds allowed per MPI run (default 600)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
top=$PWD
logs=$top/test-logs
rm -rf "$logs"
mkdir -p "$logs"

passed=0
failed=0
failed_names=()

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() {
    failed=$((failed + 1))
    failed_names+=("$1")
    echo "FAIL: $1 (log: ${2#"$top"/})"
    echo "----- $2 -----"
    cat "$2"
    echo "----- end of $2 -----"
}
finish() {
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
echo "== setup and build (scripts/setup.sh)"
if bash scripts/setup.sh >"$logs/setup.log" 2>&1; then
    pass setup
else
    fail setup "$logs/setup.log"
    finish
fi

# 2. Build every test program (unit and MPI) without running anything, so a
#    compile error is reported once, as its own check.
echo "== build test programs (make check TESTS=)"
if make -j2 check TESTS= >"$logs/build-tests.log" 2>&1; then
    pass build-tests
else
    fail build-tests "$logs/build-tests.log"
fi

# 3. Unit tests through the automake harness; each test program is one
#    check, read from its .trs result file, its output in its .log file.
echo "== unit tests (make check)"
make -j2 check >"$logs/make-check.log" 2>&1
for t in $(make -s --no-print-directory print-unit-tests); do
    name=unit-$(basename "$t")
    if [ -f "$t.log" ]; then
        cp "$t.log" "$logs/$name.log"
    else
        cp "$logs/make-check.log" "$logs/$name.log"
    fi
    if [ -f "$t.trs" ] && grep -q '^:test-result: PASS' "$t.trs"; then
        pass "$name"
    else
        fail "$name" "$logs/$name.log"
    fi
done

# 4. MPI correctness under mpirun.  --mca op ^avx: Open MPI 4.1.4's op/avx
#    saturates 8-bit integer SUM instead of wrapping, which would fail the
#    int8 cases for a reason that is not rabred's.
echo "== MPI tests (scripts/mpirun-rabred.sh)"
timeout_s=${RABRED_TIMEOUT:-600}
for prog in $(make -s --no-print-directory print-mpi-tests); do
    for np in ${RABRED_NP_LIST:-1 2 3 4 5 6 7 8 9 13 16}; do
        name=$(basename "$prog")-np$np
        log=$logs/$name.log
        if [ ! -x "$prog" ]; then
            echo "$prog was not built (see build-tests.log)" >"$log"
            fail "$name" "$log"
            continue
        fi
        if timeout -k 30 "$timeout_s" bash scripts/mpirun-rabred.sh -np "$np" \
               --mca op ^avx "$prog" </dev/null >"$log" 2>&1; then
            pass "$name"
        else
            echo "exit status $? (124 = timeout after ${timeout_s}s)" >>"$log"
            fail "$name" "$log"
        fi
    done
done

# 5. ompi_info must load the component from the build tree and list its
#    parameters (proves the .so loads and registers them).
echo "== ompi_info parameters"
info_log=$logs/ompi-info.log
bash scripts/mpirun-rabred.sh --ompi-info --param coll rabred --level 9 \
    >"$info_log" 2>&1
for param in coll_rabred_priority coll_rabred_allreduce_algorithm \
             coll_rabred_reduce_algorithm coll_rabred_verbose; do
    if grep -q "parameter \"$param\"" "$info_log"; then
        pass "ompi-info-$param"
    else
        fail "ompi-info-$param" "$info_log"
    fi
done

finish
