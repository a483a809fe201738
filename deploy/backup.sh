#!/bin/sh
# Scheduled backups for compose.yaml's `backup` service (the postgres image, which has pg_dump):
# every BACKUP_INTERVAL_SECONDS one `pg_dump --format=custom` of the database into BACKUP_DIR as
# rummy-<UTC time>.dump, then dumps older than BACKUP_KEEP_DAYS days are deleted. Old dumps are
# deleted only after a dump succeeded, so a database that stays out of reach never costs the
# last good backups. `sh backup.sh once` makes one round and exits (tests, a manual backup).
# The connection comes from libpq's variables: PGHOST, PGDATABASE, PGUSER, PGPASSWORD.
# Restore: docs/backup.md.
set -u

dir=${BACKUP_DIR:-/backups}
interval=${BACKUP_INTERVAL_SECONDS:-86400}
keep_days=${BACKUP_KEEP_DAYS:-14}

backup_once() {
  stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
  partial="$dir/.rummy-$stamp.dump.partial"
  # Written under a hidden name and renamed when whole: a dump in the folder is a complete one.
  if pg_dump --format=custom --file="$partial"; then
    mv "$partial" "$dir/rummy-$stamp.dump"
    echo "backup: wrote $dir/rummy-$stamp.dump"
    find "$dir" -maxdepth 1 -name 'rummy-*.dump' -mmin +$((keep_days * 1440)) -print -delete |
      sed 's/^/backup: deleted /'
  else
    rm -f "$partial"
    echo "backup: pg_dump failed; old dumps kept" >&2
    return 1
  fi
}

mkdir -p "$dir"
if [ "${1:-}" = once ]; then
  backup_once
  exit
fi
while true; do
  backup_once || true
  sleep "$interval"
done
