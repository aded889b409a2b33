#!/usr/bin/env bash
# Bring up a one-node SLURM (Debian's slurm-wlm 22.05 and munge) on this machine, as root, for the tests that
# submit the generated job scripts (tests/baselines/slurm). Idempotent: a second call finds the daemons
# running and only checks that the node answers. No accounting database (sacct says so; `ctv status` then
# reads squeue). Works without systemd and without cgroups (a container or VM): proctrack/linuxproc,
# task/none. Prints the reason and exits 1 where SLURM cannot be installed or started (not root, no apt).
#
#   scripts/slurm/up.sh            install if needed, write the config, start munged, slurmctld, slurmd
#   scripts/slurm/up.sh --check    exit 0 only if the cluster answers (sinfo shows the node idle or mixed)
set -euo pipefail

conf=/etc/slurm/slurm.conf
log=/var/log/slurm
node="$(hostname -s)"

answers() { timeout 10 sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; }

if [ "${1:-}" = "--check" ]; then
    answers
    exit
fi
if [ "$(id -u)" != 0 ]; then
    echo "scripts/slurm/up.sh: needs root (it installs packages and starts daemons)" >&2
    exit 1
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || { echo "scripts/slurm/up.sh: no apt-get: install slurm-wlm and munge by hand" >&2; exit 1; }
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null \
        || { apt-get update >/dev/null && apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; }
fi

# munge: the package made a key; the daemon runs as its own user, as under systemd
if ! [ -S /run/munge/munge.socket.2 ] || ! munge -n >/dev/null 2>&1; then
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
    runuser -u munge -- /usr/sbin/munged
fi

cpus="$(nproc)"
mem_mb="$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"
want="$(cat <<CONF
# Written by agrieval's scripts/slurm/up.sh: one node, no accounting, no cgroups; addressed as 127.0.0.1
# (a fresh machine's host name need not resolve).
ClusterName=agrieval
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$log/slurmctld.log
SlurmdLogFile=$log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobRequeue=0
KillWait=10
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
)"
install -d /var/lib/slurm/slurmctld /var/lib/slurm/slurmd "$log"
changed=0
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
    printf '%s\n' "$want" > "$conf.tmp" && mv "$conf.tmp" "$conf"
    changed=1
fi
# JobRequeue=0: a task requeues only because its script asks for it (#SBATCH --requeue), as on a cluster
# whose default is off; the generated scripts must not rely on the site's default.

if [ "$changed" = 1 ]; then
    for pidfile in /run/slurmctld.pid /run/slurmd.pid; do  # our own daemons of an earlier config, by pid
        [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    sleep 2
fi
running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
running /run/slurmctld.pid || /usr/sbin/slurmctld
running /run/slurmd.pid || /usr/sbin/slurmd
for _ in $(seq 30); do
    if answers; then
        echo "slurm up: node $node, $cpus CPUs, $mem_mb MB ($(sinfo --version))"
        exit 0
    fi
    scontrol update nodename="$node" state=resume >/dev/null 2>&1 || true
    sleep 1
done
echo "scripts/slurm/up.sh: the node did not come up; see $log/slurmctld.log and $log/slurmd.log" >&2
sinfo -N -l >&2 || true
exit 1
