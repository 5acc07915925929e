#!/bin/bash
# Remote-shell stand-in for Open MPI's rsh launcher (--mca plm_rsh_agent) on
# the emulated cluster of cluster.sh.  Open MPI calls it like ssh:
#
#   rsh-agent.sh [options] HOST COMMAND...
#
# HOST is a hostfile entry (an address 10.213.0.N) or a host name
# (rabred-hNN), optionally user@HOST.  The agent finds the host's network
# namespace in the cluster state file and runs COMMAND there, with the
# host's own hostname (its UTS namespace), through the caller's shell, as
# sshd would: Open MPI quotes the orted command line for a shell
# ("PATH=...; export PATH; ... orted -mca orte_hnp_uri \"...\" ...").
# Options before HOST (e.g. ssh's -x from plm_rsh_args) are ignored.
set -euo pipefail

STATE=/run/rabred-cluster/state
UTS_DIR=/run/rabred-uts

while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    shift
done
if [ $# -lt 2 ]; then
    echo "rsh-agent.sh: usage: rsh-agent.sh HOST COMMAND..." >&2
    exit 255
fi
host=${1#*@}
shift

if [ ! -r "$STATE" ]; then
    echo "rsh-agent.sh: $STATE not found: is the cluster up (cluster.sh up N)?" >&2
    exit 255
fi
# State lines "host NETNS ADDRESS": match the address or the namespace name.
ns=$(awk -v h="$host" '$1 == "host" && ($2 == h || $3 == h) { print $2; exit }' "$STATE")
if [ -z "$ns" ]; then
    echo "rsh-agent.sh: unknown host '$host' (not in $STATE)" >&2
    exit 255
fi

exec nsenter --uts="$UTS_DIR/$ns" -- ip netns exec "$ns" "${SHELL:-/bin/sh}" -c "$*"
