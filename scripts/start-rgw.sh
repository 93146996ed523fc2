#!/usr/bin/env bash
# A throwaway S3 server for tests: Ceph's RADOS Gateway on 127.0.0.1:${RGW_PORT:-7480}, over
# one monitor and one in-memory OSD (memstore: no block device, nothing survives a restart),
# pool size 1, no cephx between the daemons (S3 request signatures are still checked), and
# one S3 user with the fixed test credentials below. Idempotent: an RGW already answering
# is left alone. Needs Debian's `radosgw ceph-mon ceph-osd` (scripts/ensure-services.sh
# installs them).
set -euo pipefail

port="${RGW_PORT:-7480}"
dir="${SOUNDSTAGE_CEPH_DIR:-/var/lib/soundstage-ceph}"
# The test user's credentials (.ci/run hands the same to the tests).
access_key="${SOUNDSTAGE_TEST_S3_ACCESS_KEY:-soundstage-test-access}"
secret_key="${SOUNDSTAGE_TEST_S3_SECRET_KEY:-soundstage-test-secret-0123456789abcdef}"

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if answers "$port"; then
  exit 0
fi

started=$(date +%s%3N)
conf="$dir/ceph.conf"
fresh_dir() {
  # What a previous start left (memstore kept nothing worth keeping): stop it, start afresh.
  if [ -d "$dir/run" ]; then
    for pidfile in "$dir"/run/*.pid; do
      [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    for _ in $(seq 1 40); do answers 6789 || answers "$port" || break; sleep 0.25; done
  fi
  rm -rf "$dir"
  mkdir -p "$dir"/{mon/a,osd/0,run,log,rgw}
  fsid="$(uuidgen)"
  cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:6789
mon initial members = a
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd objectstore = memstore
memstore device bytes = 2147483648
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
keyring = $dir/keyring
[mon.a]
mon data = $dir/mon/a
[osd.0]
osd data = $dir/osd/0
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$port
rgw data = $dir/rgw
rgw dns name = 127.0.0.1
CONF
}

# Each step names itself when it fails; a failed start is retried on a fresh directory (a
# daemon slow to come up on a loaded machine), and the daemons' logs are shown.
step() {
  local name="$1"
  shift
  "$@" || {
    local code=$?
    echo "start-rgw: step '$name' failed with exit code $code" >&2
    return "$code"
  }
}

start_cluster() {
  fresh_dir
  step keyring ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null || return
  step monmap monmaptool --create --add a 127.0.0.1:6789 --fsid "$fsid" "$dir/monmap" >/dev/null || return
  step mon-mkfs ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" || return
  step mon-start ceph-mon -c "$conf" -i a || return
  local osd_uuid osd_id
  osd_uuid="$(uuidgen)"
  osd_id="$(step osd-new timeout 120 ceph -c "$conf" --connect-timeout 60 osd new "$osd_uuid")" || return
  # (ceph-osd's stderr, kept with the logs, says it found no cluster network and logs to the monitor)
  step osd-mkfs ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" 2>>"$dir/log/ceph-osd.stderr.log" || return
  step osd-start ceph-osd -c "$conf" -i "$osd_id" 2>>"$dir/log/ceph-osd.stderr.log" || return
  step rgw-start radosgw -c "$conf" -n client.rgw.a || return
  for _ in $(seq 1 240); do answers "$port" && break; sleep 0.25; done
  step rgw-answers answers "$port" || return
  step s3-user timeout 120 radosgw-admin -c "$conf" user create --uid=soundstage \
    --display-name="Soundstage tests" --access-key="$access_key" --secret="$secret_key" >/dev/null
}

for attempt in 1 2 3; do
  if start_cluster; then
    break
  fi
  echo "start-rgw: attempt $attempt failed; the daemons' logs end with:" >&2
  tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true
  [ "$attempt" -lt 3 ] || exit 1
done
echo "Ceph RGW answering on 127.0.0.1:$port after $(( $(date +%s%3N) - started )) ms"
