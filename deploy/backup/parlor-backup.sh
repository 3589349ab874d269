#!/usr/bin/env bash
# Online backup of parlor-server's SQLite store: parlor-backup.sh DATA_DIR BACKUP_FILE.
# Safe while the server runs and serves: SQLite's VACUUM INTO copies one committed snapshot
# (every move acknowledged before it started, none half-written) in a read transaction, so
# the server's writer is not stopped. The copy is checked (integrity, Parlor's application
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
[ "$(sqlite3 "$partial" 'PRAGMA integrity_check')" = ok ] || fail "the copy of $db is damaged"
# 0x50524C52, "PRLR": the file is Parlor's.
[ "$(sqlite3 "$partial" 'PRAGMA application_id')" = 1347570770 ] ||
  fail "$db is not a Parlor store"
mv "$partial" "$out"
trap - EXIT
echo "parlor-backup: $db -> $out (schema version $(sqlite3 "$out" 'PRAGMA user_version'))"
