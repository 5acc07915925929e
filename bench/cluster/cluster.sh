#!/bin/bash
# An emulated cluster on one Linux machine: N "hosts", each a network
# namespace with its own hostname (a UTS namespace), one veth link into a
# bridge that lives in a switch namespace, and a token-bucket (tbf) shaper in
# each direction of every link.  MPI jobs run across the hosts with Open MPI's
# rsh launcher pointed at rsh-agent.sh.  See README.md in this directory.
#
#   cluster.sh up N [--rate 100mbit] [--slots K] [--burst BYTES] [--latency MS]
#   cluster.sh down                 remove what `up` created (idempotent)
#   cluster.sh status
#   cluster.sh run -np P [mpirun args] prog [args]
#   cluster.sh check                hostname per rank + bandwidth check
#
# Everything `up` creates is written to the state file BEFORE it is created,
# so `down` (and `up`'s own failure trap) remove exactly that, also after an
# interrupted `up`.  Nothing is created in the root network namespace and no
# global file (/etc/hosts, sysctl of the root namespace) is edited: the
# hostfile names hosts by IP address.
#
# Environment:
#   RABRED_ENV      the build tree's rabred-env.sh (default: ../../rabred-env.sh)
#   RABRED_COLL     coll list for `run` (default rabred,basic,libnbc; skipped
#                   when the caller passes its own --mca coll)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=cluster.sh

# ---- fixed names: one cluster per machine -------------------------------
PREFIX=rabred
SW_NS=$PREFIX-sw
BRIDGE=br0
SUBNET_BASE=10.213.0            # hosts are $SUBNET_BASE.1 .. .N
SUBNET=$SUBNET_BASE.0/24
STATE_DIR=/run/rabred-cluster
STATE=$STATE_DIR/state
HOSTFILE=$STATE_DIR/hostfile
UTS_DIR=/run/rabred-uts
MAX_HOSTS=16

say() { echo "$prog: $*"; }
die() { echo "$prog: error: $*" >&2; exit 1; }

host_ns() { printf '%s-h%02d' "$PREFIX" "$1"; }
host_ip() { echo "$SUBNET_BASE.$1"; }
sw_port() { printf 'p%02d' "$1"; }

ns_exists() { [ -e "/run/netns/$1" ] && ip netns list | awk '{print $1}' | grep -qx -- "$1"; }

need_root() {
    [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, tc)"
    for c in ip tc nsenter unshare mountpoint; do
        command -v "$c" >/dev/null 2>&1 ||
            die "'$c' not found (Debian: apt-get install iproute2 util-linux)"
    done
}

# Value of a "config KEY VALUE" line of the state file.
state_get() { awk -v k="$1" '$1 == "config" && $2 == k { print $3 }' "$STATE"; }

# Runs a command inside host NS with the host's hostname (UTS namespace).
in_host() {
    local ns=$1; shift
    nsenter --uts="$UTS_DIR/$ns" -- ip netns exec "$ns" "$@"
}

# ---- rate and overlap arithmetic -----------------------------------------
# Bits per second of a tc rate; only *bit units, because tc reads "mbps" as
# megaBYTES per second, a classic mistake.
rate_bits() {
    local r=${1,,} num unit
    [[ $r =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] ||
        die "bad rate '$1' (use e.g. 10mbit, 100mbit, 1gbit)"
    num=${BASH_REMATCH[1]}; unit=${BASH_REMATCH[2]}
    case $unit in
        bit) echo "$num" ;;
        kbit) echo $((num * 1000)) ;;
        mbit) echo $((num * 1000000)) ;;
        gbit) echo $((num * 1000000000)) ;;
    esac
}

ip2int() { local IFS=.; read -r a b c d <<<"$1"; echo $(( (a << 24) | (b << 16) | (c << 8) | d )); }

# overlaps A/LA B/LB: true when the two prefixes share any address.
overlaps() {
    local a=${1%/*} la=${1#*/} b=${2%/*} lb=${2#*/} m mask
    [ "$la" = "$1" ] && la=32
    [ "$lb" = "$2" ] && lb=32
    m=$((la < lb ? la : lb))
    mask=$(( m == 0 ? 0 : (0xffffffff << (32 - m)) & 0xffffffff ))
    [ $(( $(ip2int "$a") & mask )) -eq $(( $(ip2int "$b") & mask )) ]
}

# Refuse a subnet that the root namespace already routes or uses: mpirun and
# the agent run inside the cluster, but a user debugging from the root
# namespace must not confuse the two.
check_subnet_free() {
    local line dst f
    while read -r line; do
        read -r -a f <<<"$line"
        case ${f[0]:-} in
            local|broadcast|unicast|anycast|multicast|blackhole|unreachable|prohibit|throw)
                dst=${f[1]:-} ;;
            *) dst=${f[0]:-} ;;
        esac
        [ -z "$dst" ] || [ "$dst" = default ] && continue
        [[ $dst =~ ^[0-9.]+(/[0-9]+)?$ ]] || continue
        if overlaps "$dst" "$SUBNET"; then
            die "$SUBNET overlaps the existing route '$line' of the root namespace"
        fi
    done < <(ip -4 -o route show table all 2>/dev/null)
}

# ---- down -----------------------------------------------------------------
# Kills what still runs inside a namespace of ours (stray orted, ranks,
# iperf3): only these processes keep a deleted namespace, and its links,
# alive.  PIDs come from `ip netns pids`, i.e. exactly that namespace.
kill_ns_pids() {
    local ns=$1 pids t
    read -r -a pids < <(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ') || true
    [ ${#pids[@]} -gt 0 ] || return 0
    say "killing processes left in $ns: ${pids[*]}"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for t in 1 2 3 4 5 6 7 8 9 10; do
        read -r -a pids < <(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ') || true
        [ ${#pids[@]} -gt 0 ] || return 0
        sleep 0.$t
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

# Undo every object line of the state file, last first.  Each step checks
# that the object exists, so a half-made `up` and a second `down` are fine.
do_down() {
    if [ ! -f "$STATE" ]; then
        local stray
        stray=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$PREFIX-(sw|h[0-9]+)$" || true)
        if [ -n "$stray" ]; then
            say "no state file, but these namespaces have our names: ${stray//$'\n'/ }"
            say "not touching them (not made by this state); 'ip netns delete NAME' if they are yours"
        else
            say "nothing to do (no cluster is up)"
        fi
        return 0
    fi
    local kind a b failed=0
    # Stop processes in every namespace of ours first, so none holds a link.
    while read -r kind a b; do
        if [ "$kind" = netns ] && ns_exists "$a"; then kill_ns_pids "$a"; fi
    done < "$STATE"
    # A step that fails is reported and the rest still runs; the state file
    # is kept then, so a later `down` retries exactly what is left.
    while read -r kind a b; do
        case $kind in
            netns)
                if ns_exists "$a"; then
                    if ip netns delete "$a"; then say "deleted netns $a"; else failed=1; fi
                fi ;;
            uts)                        # uts NAME FILE
                if mountpoint -q "$b" 2>/dev/null && ! umount "$b"; then
                    failed=1
                elif [ -e "$b" ]; then
                    if rm -f "$b"; then say "removed UTS namespace $a ($b)"; else failed=1; fi
                fi ;;
            file)
                if [ -e "$a" ]; then rm -f "$a" || failed=1; fi ;;
            dir)                        # a directory `up` created: only if empty
                if [ -d "$a" ]; then rmdir "$a" 2>/dev/null || say "left $a (not empty)"; fi ;;
            runnetns)                   # /run/netns did not exist before `up`
                if [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
                    if mountpoint -q /run/netns; then umount /run/netns || failed=1; fi
                    rmdir /run/netns 2>/dev/null || true
                fi ;;
        esac
    done < <(tac "$STATE")
    if [ "$failed" -ne 0 ]; then
        say "down: some steps failed (see above); state kept in $STATE: fix and run down again"
        return 1
    fi
    rm -f "$STATE"
    rmdir "$STATE_DIR" 2>/dev/null || true
    say "down: done"
}

cmd_down() {
    need_root
    do_down
}

# ---- up -------------------------------------------------------------------
record() { echo "$*" >> "$STATE"; }

up_failed() {
    local rc=$?
    trap - ERR INT TERM HUP
    echo "$prog: up failed (status $rc): removing what was created" >&2
    do_down >&2 || true
    exit 1
}

up_interrupted() {
    trap - ERR INT TERM HUP
    echo "$prog: up interrupted: removing what was created" >&2
    do_down >&2 || true
    exit 130
}

# tbf on DEV in namespace NS: RATE, BURST bytes, LATENCY ms of queue.
shape() {
    tc -n "$1" qdisc replace dev "$2" root tbf rate "$3" burst "$4" latency "$5ms"
}

cmd_up() {
    local n=${1:-}
    if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt $MAX_HOSTS ]; then
        die "usage: $prog up N [--rate R] [--slots K] [--burst BYTES] [--latency MS] (1 <= N <= $MAX_HOSTS)"
    fi
    shift
    local rate=100mbit slots=1 burst='' latency=20
    while [ $# -gt 0 ]; do
        case $1 in
            --rate) rate=${2:?--rate needs a value}; shift 2 ;;
            --slots) slots=${2:?--slots needs a value}; shift 2 ;;
            --burst) burst=${2:?--burst needs a value}; shift 2 ;;
            --latency) latency=${2:?--latency needs a value}; shift 2 ;;
            *) die "unknown option '$1'" ;;
        esac
    done
    [[ $slots =~ ^[1-9][0-9]*$ ]] || die "bad --slots '$slots'"
    [[ $latency =~ ^[1-9][0-9]*$ ]] || die "bad --latency '$latency' (ms)"
    local bits
    bits=$(rate_bits "$rate")
    # The bucket (burst) is the price of emulating a wire with a token
    # bucket: a sender idle for a while may send up to `burst` bytes at
    # memory speed.  A ping-pong leaves each direction idle half the time,
    # so messages that fit the bucket look up to 2x faster one way than a
    # wire would carry them.  Hence a small bucket: 2 full frames, or 250 us
    # of traffic, for rates up to 100 Mbit/s.  Faster rates need 1 ms of
    # traffic on this kind of machine (2 shared cores): with a 0.25-0.5 ms
    # bucket tbf splits every 64 KiB GSO packet and 1 Gbit/s links reached
    # only 78-83% of the rate (125 KB: 97%).  --burst overrides.
    if [ -z "$burst" ]; then
        if [ "$bits" -le 100000000 ]; then
            burst=$((bits / 8 / 4000))
            [ "$burst" -lt 3028 ] && burst=3028
        else
            burst=$((bits / 8 / 1000))
            [ "$burst" -gt 1048576 ] && burst=1048576
        fi
    fi
    if ! [[ $burst =~ ^[0-9]+$ ]] || [ "$burst" -lt 2048 ]; then
        die "bad --burst '$burst' (bytes, >= 2048)"
    fi

    need_root
    [ -e "$STATE" ] && die "a cluster is already up (or a previous up/down was interrupted): run '$prog down' first"
    local i ns
    for ns in "$SW_NS" $(for ((i = 1; i <= MAX_HOSTS; i++)); do host_ns "$i"; echo; done); do
        ns_exists "$ns" && die "network namespace $ns exists but is not ours (no state file): not touching it"
        [ -e "$UTS_DIR/$ns" ] && die "$UTS_DIR/$ns exists but is not ours (no state file): not touching it"
    done
    check_subnet_free

    mkdir -p "$STATE_DIR"
    : > "$STATE"
    set -E
    trap up_failed ERR
    trap up_interrupted INT TERM HUP
    record "# rabred emulated cluster, made by $here/$prog up on $(date -u +%FT%TZ)"
    record "# one object per line, written before it is created; 'down' undoes them last first"
    record "config hosts $n"
    record "config rate $rate"
    record "config burst $burst"
    record "config latency_ms $latency"
    record "config slots $slots"
    record "config subnet $SUBNET"
    [ -d /run/netns ] || record "runnetns /run/netns"
    if [ ! -d "$UTS_DIR" ]; then
        record "dir $UTS_DIR"
        mkdir -p "$UTS_DIR"
    fi

    # The switch: a namespace holding only a bridge and the switch ends of
    # the links.  No address: it forwards frames, nothing more.
    record "netns $SW_NS"
    ip netns add "$SW_NS"
    ip -n "$SW_NS" link set lo up
    ip netns exec "$SW_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
    ip netns exec "$SW_NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
    ip -n "$SW_NS" link add "$BRIDGE" type bridge stp_state 0 forward_delay 0
    ip -n "$SW_NS" link set "$BRIDGE" up

    local port ip
    for ((i = 1; i <= n; i++)); do
        ns=$(host_ns "$i"); port=$(sw_port "$i"); ip=$(host_ip "$i")
        record "netns $ns"
        ip netns add "$ns"
        record "uts $ns $UTS_DIR/$ns"
        : > "$UTS_DIR/$ns"
        unshare --uts="$UTS_DIR/$ns" hostname "$ns"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
        ip -n "$ns" link set lo up
        # Both ends are born inside their namespaces: nothing ever appears
        # in the root namespace, even if we are interrupted right here.
        ip -n "$SW_NS" link add "$port" type veth peer name eth0 netns "$ns"
        ip -n "$SW_NS" link set "$port" master "$BRIDGE"
        ip -n "$ns" addr add "$ip/24" dev eth0
        # Shaping in both directions, once each: host->switch on the host's
        # eth0, switch->host on the bridge port.
        shape "$ns" eth0 "$rate" "$burst" "$latency"
        shape "$SW_NS" "$port" "$rate" "$burst" "$latency"
        ip -n "$SW_NS" link set "$port" up
        ip -n "$ns" link set eth0 up
        record "host $ns $ip"
    done

    record "file $HOSTFILE"
    for ((i = 1; i <= n; i++)); do
        echo "$(host_ip "$i") slots=$slots"
    done > "$HOSTFILE"

    # Wait (up to 5 s) until every host link reports carrier.
    local t
    for ((i = 1; i <= n; i++)); do
        ns=$(host_ns "$i")
        for ((t = 0; t < 50; t++)); do
            [ "$(ip netns exec "$ns" cat /sys/class/net/eth0/operstate)" = up ] && break
            sleep 0.1
        done
    done
    record "complete"
    trap - ERR INT TERM HUP
    set +E
    say "up: $n hosts ($(host_ns 1)..$(host_ns "$n"), $(host_ip 1)..$(host_ip "$n")), $rate each way per link (tbf burst $burst B, latency ${latency} ms), slots=$slots"
    say "hostfile: $HOSTFILE; state: $STATE"
}

# ---- status -----------------------------------------------------------------
cmd_status() {
    if [ ! -f "$STATE" ]; then
        say "no cluster is up"
        return 0
    fi
    grep -qx complete "$STATE" || say "WARNING: 'up' did not complete: run '$prog down'"
    say "$(state_get hosts) hosts, rate $(state_get rate) each direction (burst $(state_get burst) B), slots $(state_get slots), subnet $(state_get subnet)"
    if [ -f "$HOSTFILE" ]; then say "hostfile $HOSTFILE: $(tr '\n' ' ' < "$HOSTFILE")"; fi
    printf '%-11s %-11s %-15s %-6s %-28s %s\n' netns hostname address link "tbf host->sw" "tbf sw->host"
    local kind ns ip idx port hn st q1 q2
    while read -r kind ns ip; do
        [ "$kind" = host ] || continue
        idx=${ns##*-h}; port=p$idx
        if ! ns_exists "$ns"; then
            printf '%-11s MISSING\n' "$ns"; continue
        fi
        hn=$(in_host "$ns" hostname 2>/dev/null || echo '?')
        st=$(ip netns exec "$ns" cat /sys/class/net/eth0/operstate 2>/dev/null || echo '?')
        q1=$(tc -n "$ns" qdisc show dev eth0 | awk '/tbf/ { print $8 " burst " $10 }')
        q2=$(tc -n "$SW_NS" qdisc show dev "$port" | awk '/tbf/ { print $8 " burst " $10 }')
        printf '%-11s %-11s %-15s %-6s %-28s %s\n' "$ns" "$hn" "$ip" "$st" "$q1" "$q2"
    done < "$STATE"
    local others
    others=$(ip netns list | awk '{print $1}' | grep -E "^$PREFIX-" | tr '\n' ' ')
    say "namespaces named $PREFIX-*: $others"
}

cluster_ready() {
    if [ ! -f "$STATE" ] || ! grep -qx complete "$STATE"; then
        die "no complete cluster is up: run '$prog up N' first"
    fi
}

# ---- run --------------------------------------------------------------------
cmd_run() {
    need_root
    cluster_ready
    local env_file=${RABRED_ENV:-$here/../../rabred-env.sh}
    [ -f "$env_file" ] || die "$env_file not found: build first (scripts/setup.sh) or set RABRED_ENV"
    # shellcheck source=/dev/null
    . "$env_file"
    # shellcheck source=scripts/component-args.sh
    . "$here/../../scripts/component-args.sh"

    local caller_sets_coll=no caller_sets_btl=no caller_binds=no np=0 prev='' a
    for a in "$@"; do
        if [ "$prev" = "--mca" ] || [ "$prev" = "-mca" ]; then
            [ "$a" = coll ] && caller_sets_coll=yes
            [ "$a" = btl ] && caller_sets_btl=yes
        fi
        [ "$a" = --bind-to ] && caller_binds=yes
        if [ "$prev" = "-np" ] || [ "$prev" = "-n" ] || [ "$prev" = "--np" ]; then
            np=$a
        fi
        prev=$a
    done

    local args=(--allow-run-as-root
        --hostfile "$HOSTFILE"
        --mca plm_rsh_agent "$here/rsh-agent.sh"
        # One launch step per host from host 1: simpler to debug than
        # Open MPI's tree spawn, and at most 16 hosts.
        --mca plm_rsh_no_tree_spawn 1
        --mca oob_tcp_if_include "$SUBNET"
        --mca btl_tcp_if_include "$SUBNET"
        "${rabred_component_args[@]}")
    # All "hosts" share the same cores: each daemon would bind its first
    # rank to core 0, so two hosts would fight over one core.  A caller
    # that names a binding keeps it (Open MPI 5 refuses two --bind-to).
    [ "$caller_binds" = no ] && args+=(--bind-to none)
    # shellcheck disable=SC2054  # "tcp,self" is one argument
    [ "$caller_sets_btl" = no ] && args+=(--mca btl tcp,self)
    [ "$caller_sets_coll" = no ] && args+=(--mca coll "${RABRED_COLL:-rabred,basic,libnbc}")
    # More ranks than cores: ranks must not busy-poll each other off the CPU.
    if [[ $np =~ ^[0-9]+$ ]] && [ "$np" -gt "$(nproc)" ]; then
        args+=(--mca mpi_yield_when_idle 1)
    fi
    # mpirun runs inside host 1, so that host is "local" (its rank(s) are
    # started directly) and every daemon reaches mpirun over the bridge.
    in_host "$(host_ns 1)" "$MPIRUN" "${args[@]}" "$@"
}

# ---- check ------------------------------------------------------------------
cmd_check() {
    need_root
    cluster_ready
    local n rate bits fails=0
    n=$(state_get hosts); rate=$(state_get rate); bits=$(rate_bits "$rate")

    say "check 1: one rank per host prints its hostname"
    local got want
    got=$("$here/$prog" run -np "$n" --map-by node hostname | sort | tr '\n' ' ')
    want=$(for ((i = 1; i <= n; i++)); do host_ns "$i"; echo; done | sort | tr '\n' ' ')
    echo "  got:  $got"
    if [ "$got" = "$want" ]; then
        echo "  PASS: every host ran one rank under its own hostname"
    else
        echo "  FAIL: expected $want"; fails=$((fails + 1))
    fi
    if [ "$n" -lt 2 ]; then
        say "one host: no link to measure"
        [ $fails -eq 0 ]; return
    fi

    # Goodput over the link: TCP payload is at most 1448 of each 1514-byte
    # frame tbf counts, so a shaped link gives about 95% of the rate.  More
    # than 105% means the shaping does not work; less than 50% means a broken
    # link (or a machine too busy for this rate).
    local lo hi
    lo=$((bits / 2)); hi=$((bits * 105 / 100))
    judge() {   # judge NAME BITS_PER_S
        local pct=$(( $2 * 100 / bits ))
        if [ "$2" -gt "$hi" ]; then
            echo "  FAIL: $1 $(($2 / 1000000)) Mbit/s is $pct% of $rate: not shaped"; return 1
        elif [ "$2" -lt "$lo" ]; then
            echo "  FAIL: $1 $(($2 / 1000000)) Mbit/s is only $pct% of $rate"; return 1
        fi
        echo "  PASS: $1 $(($2 / 1000000)) Mbit/s = $pct% of $rate"
    }

    local env_file=${RABRED_ENV:-$here/../../rabred-env.sh} RABRED_BUILDDIR=$here/../..
    # shellcheck source=/dev/null
    [ -f "$env_file" ] && . "$env_file"
    local netmodel=$RABRED_BUILDDIR/bench/rabred_netmodel
    if [ -x "$netmodel" ]; then
        say "check 2: MPI ping-pong of 4 MiB between $(host_ns 1) and $(host_ns 2) (rabred_netmodel -q)"
        local out bw
        out=$("$here/$prog" run -np 2 --map-by node "$netmodel" -q -n 4194304)
        printf '  %s\n' "${out//$'\n'/$'\n'  }"
        bw=$(echo "$out" | awk '/^one-way bandwidth/ { print int($3 * 8e6) }')
        if [ -z "$bw" ]; then
            echo "  FAIL: no bandwidth line"; fails=$((fails + 1))
        else
            judge "MPI one-way" "$bw" || fails=$((fails + 1))
        fi
    else
        say "check 2 skipped: $netmodel not built (make bench/rabred_netmodel)"
    fi

    if command -v iperf3 >/dev/null 2>&1; then
        say "check 3: iperf3 TCP, 2 s, $(host_ns 2) -> $(host_ns 1)"
        local spid bw3
        in_host "$(host_ns 1)" iperf3 -s -1 -B "$(host_ip 1)" -p 5213 >/dev/null 2>&1 &
        spid=$!
        sleep 0.5
        bw3=$(in_host "$(host_ns 2)" iperf3 -c "$(host_ip 1)" -p 5213 -t 2 -f m 2>&1 |
              awk '/receiver/ { v = $7; u = $8 } END { if (u == "Gbits/sec") v *= 1000; if (u == "Kbits/sec") v /= 1000; printf "%d", v * 1e6 }')
        wait "$spid" 2>/dev/null || true
        if [ -z "$bw3" ] || [ "$bw3" = 0 ]; then
            echo "  FAIL: iperf3 gave no result"; fails=$((fails + 1))
        else
            judge "iperf3" "$bw3" || fails=$((fails + 1))
        fi
    else
        say "check 3 skipped: iperf3 not installed (apt-get install iperf3)"
    fi
    if [ $fails -eq 0 ]; then say "check: all passed"; else say "check: $fails FAILED"; return 1; fi
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
    exit "${1:-0}"
}

case ${1:-} in
    up) shift; cmd_up "$@" ;;
    down) shift; cmd_down "$@" ;;
    status) shift; cmd_status "$@" ;;
    run) shift; cmd_run "$@" ;;
    check) shift; cmd_check "$@" ;;
    -h|--help|help) usage 0 ;;
    *) usage 1 >&2 ;;
esac
