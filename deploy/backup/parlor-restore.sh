#!/usr/bin/env bash
# Restores parlor-server's SQLite store from a backup: parlor-restore.sh BACKUP_FILE DATA_DIR.
# The server must be stopped: the script takes the store's lock (DATA_DIR/parlor.db.lock,
# the one a running server holds) for the whole restore and refuses when it cannot. The
# current database, with its WAL and its redo log, is kept beside it as
# parlor.db.before-restore-TIME. The backup's redo log (its table backup_redo_log) becomes the
# directory's, which the server replays when it next starts. A backup of an older schema is
# migrated by the server then too.
# docs/OPERATIONS.md, "Backup and restore".
set -euo pipefail

fail() { echo "parlor-restore: $*" >&2; exit 1; }
[ $# -eq 2 ] || fail "usage: parlor-restore.sh BACKUP_FILE DATA_DIR"
backup="$1"
dir="$2"
command -v sqlite3 >/dev/null || fail "the sqlite3 command is not installed (apt-get install sqlite3)"
command -v flock >/dev/null || fail "the flock command is not installed (util-linux)"
[ -f "$backup" ] || fail "no backup at $backup"
[ "$(sqlite3 "$backup" 'PRAGMA integrity_check')" = ok ] || fail "$backup is damaged"
[ "$(sqlite3 "$backup" 'PRAGMA application_id')" = 1347570770 ] ||
  fail "$backup is not a Parlor store"
mkdir -p "$dir"
db="$dir/parlor.db"

exec 9>>"$db.lock"
flock -n 9 || fail "a server is running on $dir ($db.lock is locked); stop it first"
if [ -e "$db" ]; then
  kept="$db.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
  # The WAL holds committed writes not yet in the main file: keep them with it.
  for suffix in "" -wal -shm .redo-0 .redo-1; do
    if [ -e "$db$suffix" ]; then mv "$db$suffix" "$kept$suffix"; fi
  done
  echo "parlor-restore: the previous store is kept as $kept"
fi
# A redo log left without its database would be replayed over the backup's.
rm -f "$db.redo-0" "$db.redo-1"
cp "$backup" "$db.partial"
if [ "$(sqlite3 "$db.partial" "SELECT count(*) FROM sqlite_master WHERE name = 'backup_redo_log'")" = 1 ]; then
  quoted="${db//\'/\'\'}"
  sqlite3 -bail "$db.partial" "SELECT writefile('$quoted.redo-' || (generation % 2), bytes) FROM backup_redo_log;
DROP TABLE backup_redo_log;" >/dev/null || fail "cannot write the redo log of $backup into $dir"
  sync
fi
mv "$db.partial" "$db"
echo "parlor-restore: $backup -> $db; start the server"
