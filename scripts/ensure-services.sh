#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432, database `test`), Redis (127.0.0.1:6379) and an S3
# server (Ceph RGW, 127.0.0.1:7480, scripts/start-rgw.sh) answer: use them when they already
# run, else install them from Debian packages and start them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! answers 5432; then
  echo "PostgreSQL is not answering on 127.0.0.1:5432: installing and starting it"
  "$here/apt-install.sh" postgresql
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || pg_ctlcluster "$version" main start
  for _ in $(seq 1 60); do answers 5432 && break; sleep 1; done
  # A fresh cluster asks a password over TCP: give postgres the one CI's URL carries.
  su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'postgres'\""
  su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='test'\"" | grep -q 1 \
    || su postgres -c "createdb test"
fi

if ! answers 6379; then
  echo "Redis is not answering on 127.0.0.1:6379: installing and starting it"
  "$here/apt-install.sh" redis-server
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do answers 6379 && break; sleep 1; done
fi
if ! answers 7480; then
  echo "No S3 server answers on 127.0.0.1:7480: installing and starting Ceph RGW"
  "$here/apt-install.sh" radosgw ceph-mon ceph-osd
  "$here/start-rgw.sh"
fi
answers 5432 && answers 6379 && answers 7480
