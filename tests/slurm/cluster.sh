#!/bin/sh
# A real single-node Slurm cluster for the tests, started without systemd:
#   sh tests/slurm/cluster.sh start DIR   start munged, slurmctld and slurmd with state under DIR
#   sh tests/slurm/cluster.sh stop DIR    stop them (by pid) and keep DIR for inspection
# After start, DIR/env holds the variables the Slurm clients need (SLURM_CONF). Ports come from
# the environment (KS_SLURM_PORT, default a free pair chosen from the pid) so parallel runs do
# not collide. The node declares two GPUs backed by /dev/null-like character devices so that
# `--gres=gpu:1` schedules on a machine without GPUs. Exit status: 0 up, 77 Slurm or munge not
# installed, 1 it did not come up (DIR/*.log say why).
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }

stop() {
	for p in slurmd slurmctld munged; do
		[ -f "$dir/$p.pid" ] || continue
		pid=$(cat "$dir/$p.pid" 2>/dev/null)
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		alive=0
		for p in slurmd slurmctld munged; do
			pid=$(cat "$dir/$p.pid" 2>/dev/null)
			[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ $alive -eq 0 ] && break
		sleep 0.3
	done
	for p in slurmd slurmctld munged; do
		pid=$(cat "$dir/$p.pid" 2>/dev/null)
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
		rm -f "$dir/$p.pid"
	done
	return 0
}

case "$cmd" in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac

for b in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || { echo "cluster.sh: $b not installed" >&2; exit 77; }
done
PATH="$PATH:/usr/sbin"
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/dev"
chmod 0755 "$dir" "$dir/munge"
port=${KS_SLURM_PORT:-$((20000 + ($$ % 2000) * 2))}
host=$(hostname -s 2>/dev/null || echo localhost)

# munge: a private key and socket; the clients and daemons find it through AuthInfo.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 0600 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
	--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed" \
	>/dev/null 2>&1 || { echo "cluster.sh: munged did not start (see $dir/munged.log)" >&2; exit 1; }

for i in 0 1; do
	[ -e "$dir/dev/gpu$i" ] || mknod "$dir/dev/gpu$i" c 1 3 || exit 1
done
cat >"$dir/gres.conf" <<GRES
AutoDetect=off
NodeName=$host Name=gpu File=$dir/dev/gpu[0-1]
GRES
cat >"$dir/slurm.conf" <<CONF
ClusterName=kscoretest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
echo "SLURM_CONF=$dir/slurm.conf; export SLURM_CONF" >"$dir/env"
export SLURM_CONF="$dir/slurm.conf"

setsid slurmctld -D -i -f "$dir/slurm.conf" >"$dir/slurmctld.out" 2>&1 </dev/null &
echo $! >"$dir/slurmctld.pid"
setsid slurmd -D -f "$dir/slurm.conf" -N "$host" >"$dir/slurmd.out" 2>&1 </dev/null &
echo $! >"$dir/slurmd.pid"

# Up when the node is idle (it registered and the partition can run jobs).
i=0
while [ $i -lt 100 ]; do
	st=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
	case "$st" in idle*|mix*) exit 0 ;; esac
	i=$((i + 1)); sleep 0.2
done
echo "cluster.sh: the node did not become idle (state '$st'); see $dir/slurmctld.log and $dir/slurmd.log" >&2
stop
exit 1
