#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the sweep tests (make test-slurm).
#
#   scripts/local-slurm.sh start   # install if missing, configure, start, wait until idle
#   scripts/local-slurm.sh stop    # stop the daemons this script started
#   scripts/local-slurm.sh status
#
# Debian's slurm-wlm, munge and parallel, installed with --no-install-recommends when
# missing; no systemd needed (munged, slurmctld and slurmd are started by hand). Measured
# facts behind every setting: shared/notes/slurm-local.md.
# * ProctrackType=proctrack/linuxproc, TaskPlugin=task/none: the cgroup default fails
#   on this machine kind, and then jobs show COMPLETED, exit 0, with nothing run.
# * The state (StateSaveLocation, SlurmdSpoolDir) is wiped on every start: a DRAIN or old
#   jobs would survive a restart.
# * batch_sched_delay=0 (array tasks start at once), cred_expire=30 (a requeued task
#   waits cred_expire+1 s), MaxArraySize=10001.
# * PID files in /run/slurm-local (never Debian's /run/slurmctld.pid, which its prerm
#   trips over); /run is on disk here, so a PID is trusted only if /proc/PID/exe is the
#   daemon's binary. Every daemon is started with the lock descriptor closed.
# * start exits 0 only after a probe step has really run (its output is compared).
# SLURM_LOCAL_TIMEOUT (seconds, default 60) bounds every wait.
set -euo pipefail

RUN=/run/slurm-local
SPOOL=/var/spool/slurm-local
LOGS=/var/log/slurm-local
CONF=/etc/slurm/slurm.conf
MARK="# managed by taskassign scripts/local-slurm.sh - regenerated on every start"
TIMEOUT=${SLURM_LOCAL_TIMEOUT:-60}
PROBE="slurm-local-probe-ok"

say() { echo "local-slurm: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and starts daemons)"

# Waits until "$@" succeeds, at most TIMEOUT seconds.
wait_for() {
    local what=$1; shift
    local end=$((SECONDS + TIMEOUT))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || die "timed out after ${TIMEOUT}s waiting for $what"
        sleep 0.1
    done
}

# The PID in pid file $1 if it is alive and runs binary $2, else nothing.
live_pid() {
    local f=$1 bin pid exe
    bin=$(readlink -f "$2" 2>/dev/null || echo "$2")
    [ -s "$f" ] || return 0
    pid=$(head -n1 "$f" | tr -dc 0-9)
    [ -n "$pid" ] || return 0
    exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null || true)
    [ "$exe" = "$bin" ] && echo "$pid"
    return 0
}

install_packages() {
    local missing=()
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
        || missing+=(slurm-wlm)
    command -v munged >/dev/null || missing+=(munge)
    parallel --version 2>/dev/null | grep -q 'GNU parallel' || missing+=(parallel)
    [ ${#missing[@]} -gt 0 ] || return 0
    say "installing ${missing[*]} (Debian, --no-install-recommends)"
    # No service is started by the packages' scripts: this script starts them itself.
    local own_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        own_policy=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    [ -z "$own_policy" ] || rm -f /usr/sbin/policy-rc.d
}

write_conf() {
    if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
        die "$CONF exists and is not this script's: not overwriting it"
    fi
    local host hw cpus boards sockets cores threads mem
    host=$(hostname -s)
    hw=$(slurmd -C | head -n1)
    field() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$hw"; }
    cpus=$(field CPUs); boards=$(field Boards); sockets=$(field SocketsPerBoard)
    cores=$(field CoresPerSocket); threads=$(field ThreadsPerCore); mem=$(field RealMemory)
    # Above the real memory the node is invalid (DRAIN): 90 % of what slurmd reports.
    mem=$((mem * 9 / 10))
    mkdir -p "$(dirname "$CONF")"
    cat > "$CONF" <<CONF
$MARK
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
AuthInfo=cred_expire=30
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=5,bf_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
MaxArraySize=10001
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Boards=$boards SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

node_idle() { [ "$(sinfo -h -N -o %t 2>/dev/null | head -n1)" = idle ]; }
ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }

start() {
    install_packages
    mkdir -p "$RUN"
    exec 9>"$RUN/lock"
    flock -w "$TIMEOUT" 9 || die "another start or stop holds $RUN/lock"
    if [ -n "$(live_pid "$RUN/slurmctld.pid" /usr/sbin/slurmctld)" ] \
        && [ -n "$(live_pid "$RUN/slurmd.pid" /usr/sbin/slurmd)" ] && ctld_up && node_idle; then
        say "already running"
        return 0
    fi
    stop_daemons
    write_conf
    # A clean start: no DRAIN, no old jobs.
    rm -rf "$SPOOL"
    install -d -o slurm -g slurm -m 0755 "$SPOOL" "$SPOOL/ctld" "$LOGS"
    install -d -m 0755 "$SPOOL/d"

    # munged, as its key's owner; a munged already running (not ours) is used as is.
    install -d -o munge -g munge -m 0755 /run/munge
    if ! pgrep -x munged >/dev/null 2>&1; then
        runuser -u munge -- /usr/sbin/munged 9>&-
        wait_for "munged" test -S /run/munge/munge.socket.2
        wait_for "munged's pid file" test -s /run/munge/munged.pid
        cp /run/munge/munged.pid "$RUN/munged.pid"
    fi

    /usr/sbin/slurmctld 9>&-
    wait_for "slurmctld (scontrol ping)" ctld_up
    # slurmd after the controller answers: an early registration can leave the node
    # not responding for ~35 s.
    /usr/sbin/slurmd -N "$(hostname -s)" 9>&-
    wait_for "the node to be idle" node_idle
    local out
    out=$(timeout "$TIMEOUT" srun -N1 -n1 echo "$PROBE" 2>/dev/null) || true
    [ "$out" = "$PROBE" ] || die "a probe step did not run (got '$out'); see $LOGS/slurmd.log"
    say "up: $(sinfo -h -o '%P %a %D %t %N')"
}

# Stops one daemon of ours: TERM, then KILL after the timeout.
stop_one() {
    local name=$1 bin=$2 pid end
    pid=$(live_pid "$RUN/$name.pid" "$bin")
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        end=$((SECONDS + TIMEOUT))
        while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        say "stopped $name ($pid)"
    fi
    rm -f "$RUN/$name.pid"
}

stop_daemons() {
    stop_one slurmd /usr/sbin/slurmd
    stop_one slurmctld /usr/sbin/slurmctld
    stop_one munged /usr/sbin/munged
}

stop() {
    [ -d "$RUN" ] || { say "not running"; return 0; }
    exec 9>"$RUN/lock"
    flock -w "$TIMEOUT" 9 || die "another start or stop holds $RUN/lock"
    stop_daemons
}

status() {
    local n
    for n in munged:/usr/sbin/munged slurmctld:/usr/sbin/slurmctld slurmd:/usr/sbin/slurmd; do
        echo "${n%%:*}: $(live_pid "$RUN/${n%%:*}.pid" "${n#*:}" || true)"
    done
    sinfo 2>/dev/null || true
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
