# A private single-node Slurm for one test, sourced by tests/slurm/test_*.sh: munged with its own
# key and socket, slurmctld and slurmd on a free port range (a site's own Slurm on the default
# ports is never touched), and with `start_cluster accounting` slurmdbd on a private MariaDB, so
# that sacct answers. Daemons run as SlurmUser=root (no account has to be created); only the
# daemons started here are stopped, by PID, when the test exits. Skips (exit 77) where the
# Debian packages cannot be installed or the test is not root. With `two-nodes`, the host holds
# two Slurm nodes, n1 and n2 (a slurmd each, on ports of their own, each node its own TmpFS for
# PMIx), so that jobs span nodes as on a cluster.
#   source tests/slurm/private_cluster.sh; start_cluster [accounting] [two-nodes]
# Sets: work (a scratch folder, kept if a check failed), host, cpus, SLURM_CONF; fail() counts
# failures.

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
failures=0
pids=()

stop_daemons() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$failures" -eq 0 ]; then rm -rf "$work"; else echo "kept $work for inspection"; fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# The first of `count` consecutive free ports from a start that differs between processes.
free_ports() {
  local count="$1" port=$((20000 + $$ % 20000)) i
  while :; do
    for ((i = 0; i < count; i++)); do port_free $((port + i)) || break; done
    [ "$i" -eq "$count" ] && { echo "$port"; return; }
    port=$((port + count))
  done
}

# Waits up to 20 s for a command to succeed.
wait_for() {
  for _ in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

start_mariadb() {  # a private MariaDB for slurmdbd, on a socket and a port of its own
  mariadb-install-db --no-defaults --datadir="$work/db" --user=root >"$work/db-install.out" 2>&1 ||
    { fail "mariadb-install-db failed"; tail -5 "$work/db-install.out"; exit 1; }
  mariadbd --no-defaults --datadir="$work/db" --socket="$work/db.sock" --port="$db_port" \
    --bind-address=127.0.0.1 --user=root --skip-grant-tables --log-error="$work/db.err" \
    --pid-file="$work/db.pid" >"$work/db.out" 2>&1 &
  pids+=($!)
  wait_for mariadb --no-defaults -S "$work/db.sock" -e "select 1" ||
    { fail "MariaDB did not come up"; tail -5 "$work/db.err"; exit 1; }
}

start_slurmdbd() {
  cat >"$work/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
PidFile=$work/slurmdbd.pid
LogFile=$work/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$work/slurmdbd.conf"
  slurmdbd -D >"$work/slurmdbd.out" 2>&1 &
  pids+=($!)
  wait_for sacctmgr -n list cluster || {
    fail "slurmdbd did not come up"; sacctmgr -n list cluster; tail -5 "$work/slurmdbd.log"; exit 1; }
  sacctmgr -i add cluster tracewarp-test >/dev/null
}

start_cluster() {
  local accounting="" two_nodes="" option
  for option in "$@"; do
    case "$option" in accounting) accounting=accounting ;; two-nodes) two_nodes=yes ;; esac
  done
  [ "$(id -u)" -eq 0 ] || skip "needs root to run private Slurm daemons as SlurmUser=root"
  bash "$src/scripts/install-deps.sh" --slurm >/dev/null 2>&1 ||
    skip "Debian's Slurm, munge and MariaDB packages could not be installed"
  for tool in munged slurmctld slurmd sbatch scontrol sinfo slurmdbd sacct sacctmgr mariadbd; do
    command -v "$tool" >/dev/null || skip "$tool not found after installing the packages"
  done

  work=$(mktemp -d /tmp/tracewarp-slurm.XXXXXX)
  chmod 755 "$work"
  trap stop_daemons EXIT
  local port
  port=$(free_ports 5)
  db_port=$((port + 2)) dbd_port=$((port + 3))
  host=$(hostname -s)
  cpus=$(nproc)
  local memory_mib=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
  mkdir -p "$work/state" "$work/spool/$host" "$work/munge" "$work/spool/n1" "$work/spool/n2" "$work/tmp-n1" \
    "$work/tmp-n2"

  dd if=/dev/urandom of="$work/munge/key" bs=128 count=1 status=none
  chmod 600 "$work/munge/key"
  munged --foreground --force --key-file="$work/munge/key" --socket="$work/munge/socket" \
    --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" \
    >"$work/munged.out" 2>&1 &
  pids+=($!)

  export SLURM_CONF="$work/slurm.conf"
  local storage="AccountingStorageType=accounting_storage/none"
  if [ "$accounting" = accounting ]; then
    storage="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbd_port
AccountingStoragePass=$work/munge/socket"  # the munge socket the accounting connections use
  fi
  # cgroup plugins fail in containers ("cgroup namespace 'freezer' not mounted") while srun still
  # exits 0, so the cluster uses linuxproc and task/none, and the tests check outputs, not codes.
  # Two partitions on the one node: debug (the default) and long.
  cat >"$SLURM_CONF" <<EOF
ClusterName=tracewarp-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$storage
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
EOF
  local nodes="$host"
  if [ -n "$two_nodes" ]; then
    nodes="n1,n2"
    cat >>"$SLURM_CONF" <<EOF
TmpFS=$work/tmp-%n
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=$cpus RealMemory=$((memory_mib / 2)) State=UNKNOWN
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 4)) CPUs=$cpus RealMemory=$((memory_mib / 2)) State=UNKNOWN
EOF
  else
    echo "NodeName=$host CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN" >>"$SLURM_CONF"
  fi
  cat >>"$SLURM_CONF" <<EOF
PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP
PartitionName=long Nodes=$nodes MaxTime=INFINITE State=UP
EOF

  if [ "$accounting" = accounting ]; then
    start_mariadb
    start_slurmdbd
  fi
  local started
  started=$(date +%s%N)
  slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
  pids+=($!)
  if [ -n "$two_nodes" ]; then
    for node in n1 n2; do
      slurmd -D -N "$node" -f "$SLURM_CONF" >"$work/slurmd-$node.out" 2>&1 &
      pids+=($!)
    done
  else
    slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
    pids+=($!)
  fi
  local ready=no
  for _ in $(seq 100); do
    if scontrol ping 2>/dev/null | grep -q UP &&
      [ "$(sinfo -h -N -o %t 2>/dev/null | sort -u)" = idle ]; then ready=yes; break; fi
    sleep 0.2
  done
  if [ "$ready" != yes ]; then
    fail "the private cluster did not come up"
    tail -5 "$work"/*.out "$work/munge/log" 2>/dev/null
    exit 1
  fi
  echo "cluster up in $((($(date +%s%N) - started) / 1000000)) ms on ports $port-$((port + 3))" \
    "${accounting:+with accounting}"
}
