#!/usr/bin/env bash
# Online backup of parlor-server's SQLite store: parlor-backup.sh DATA_DIR BACKUP_FILE.
# Safe while the server runs and serves: SQLite's VACUUM INTO copies one committed snapshot
# in a read transaction, so the server's writer is not stopped. The moves of the games under
# way are not in the database but in its redo log (server/store/README.md): the log's file of
# the snapshot's generation is copied after it into the backup's table backup_redo_log, and a
# restored server replays its frames after the snapshot's (every move acknowledged before the
# backup ended; a frame cut by the copy was still being written, and is ignored). The copy is checked (integrity, Parlor's application
# id) before it takes its final name; a failed backup leaves no BACKUP_FILE behind.
# Needs the sqlite3 command (Debian: sqlite3). docs/OPERATIONS.md, "Backup and restore".
set -euo pipefail

fail() { echo "parlor-backup: $*" >&2; exit 1; }
[ $# -eq 2 ] || fail "usage: parlor-backup.sh DATA_DIR BACKUP_FILE"
db="$1/parlor.db"
out="$2"
command -v sqlite3 >/dev/null || fail "the sqlite3 command is not installed (apt-get install sqlite3)"
[ -f "$db" ] || fail "no store at $db"
[ ! -e "$out" ] || fail "$out exists; name a new file"

partial="$out.partial"
rm -f "$partial"
trap 'rm -f "$partial"' EXIT
# SQL quotes a ' as ''; the busy timeout rides out a checkpoint of the server's.
quoted="${partial//\'/\'\'}"
sqlite3 -bail "$db" ".timeout 10000" "VACUUM INTO '$quoted'" ||
  fail "VACUUM INTO failed on $db"
generation="$(sqlite3 "$partial" 'SELECT generation FROM redo_state')" ||
  fail "the copy of $db has no redo_state (is the server older than this script?)"
log="$db.redo-$((generation % 2))"
[ -f "$log" ] || fail "no redo log at $log"
cp "$log" "$partial.redo"
trap 'rm -f "$partial" "$partial.redo"' EXIT
# A frame's generation is bytes 8-15 of its header (little-endian): the file must still begin
# with the snapshot's generation, which a server starting two more during the copy overwrites.
[ "$(od -An -tu8 -j8 -N8 "$partial.redo" | tr -d ' ')" = "$generation" ] ||
  fail "the server moved its redo log past the snapshot during the backup; run it again"
quoted_log="${partial//\'/\'\'}.redo"
sqlite3 -bail "$partial" "CREATE TABLE backup_redo_log (generation INTEGER NOT NULL, bytes BLOB NOT NULL);
INSERT INTO backup_redo_log VALUES ($generation, readfile('$quoted_log'));" ||
  fail "cannot add the redo log to the copy of $db"
rm -f "$partial.redo"
[ "$(sqlite3 "$partial" 'PRAGMA integrity_check')" = ok ] || fail "the copy of $db is damaged"
# 0x50524C52, "PRLR": the file is Parlor's.
[ "$(sqlite3 "$partial" 'PRAGMA application_id')" = 1347570770 ] ||
  fail "$db is not a Parlor store"
mv "$partial" "$out"
trap - EXIT
echo "parlor-backup: $db -> $out (schema version $(sqlite3 "$out" 'PRAGMA user_version'))"
