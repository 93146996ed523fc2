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
# What a previous start left (memstore kept nothing worth keeping): stop it, start afresh.
if [ -d "$dir/run" ]; then
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
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

ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
monmaptool --create --add a 127.0.0.1:6789 --fsid "$fsid" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
ceph-mon -c "$conf" -i a

osd_uuid="$(uuidgen)"
osd_id="$(ceph -c "$conf" osd new "$osd_uuid")"
ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" 2>/dev/null
# (its stderr only says it found no cluster network and logs to the monitor)
ceph-osd -c "$conf" -i "$osd_id" 2>/dev/null

radosgw -c "$conf" -n client.rgw.a
for _ in $(seq 1 120); do answers "$port" && break; sleep 0.25; done
answers "$port"
radosgw-admin -c "$conf" user create --uid=soundstage --display-name="Soundstage tests" \
  --access-key="$access_key" --secret="$secret_key" >/dev/null
echo "Ceph RGW answering on 127.0.0.1:$port after $(( $(date +%s%3N) - started )) ms"
