#!/usr/bin/env bash
# dpkg-query's formats (${Status}) are dpkg's fields, not shell expansions:
# shellcheck disable=SC2016
# The package installed for real, the way an operator installs it, into a clean Debian 12
# chroot made by debootstrap (no container needed): `dpkg -i` (which stops at the missing
# libraries), `apt-get -f install`, then the system user, the state directory, the config's
# owner and mode, the conffile, the unit's enablement, the server started as `parlor` with
# the installed config answering /readyz and /, `systemd-analyze verify` on the installed
# unit, installing again keeping an edited config, `dpkg --remove` keeping the config and the
# games and `dpkg --purge` deleting them.
# Needs root and Debian's archive; about 3 minutes the first time (debootstrap), under a
# minute after. Not a ctest test for those reasons: the package test (package_test.sh), which
# runs with every `make test`, unpacks the package without installing it.
#
#   tests/package/chroot_install.sh PACKAGE.deb CHROOT_DIR
#
# CHROOT_DIR is made with `debootstrap --variant=minbase bookworm` when it does not exist and
# reused (a fresh copy of it for each run) when it does.
set -euo pipefail

deb="$(realpath "${1:?usage: chroot_install.sh PACKAGE.deb CHROOT_DIR}")"
base="${2:?usage: chroot_install.sh PACKAGE.deb CHROOT_DIR}"
[ "$(id -u)" = 0 ] || { echo "chroot_install: needs root (chroot, mounts)" >&2; exit 1; }

fail() {
  echo "chroot_install: FAIL: $*" >&2
  exit 1
}
say() { echo "chroot_install: $*"; }

if [ ! -x "$base/usr/bin/dpkg" ]; then
  command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
  say "debootstrap bookworm into $base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >/dev/null
fi

# Each run installs into a copy, so the base stays clean for the next run.
root="$(mktemp -d /tmp/parlor-chroot-run.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -KILL "$server_pid" 2>/dev/null || true; fi
  # Unmount before deleting: rm -rf through a bind mount of /proc or /dev would reach the host.
  for mount in dev/pts dev proc; do
    if mountpoint -q "$root/$mount"; then umount -l "$root/$mount"; fi
  done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
cp -a "$base/." "$root/"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# dpkg -i alone fails on a clean system (the libraries are missing) and leaves the package
# unconfigured; apt-get -f install fetches them and configures it. That is the documented way.
in_root apt-get update -qq
if in_root dpkg -i "/tmp/$(basename "$deb")" >"$root/tmp/dpkg.log" 2>&1; then
  say "dpkg -i configured the package at once (the libraries were there)"
else
  grep -q "dependency problems" "$root/tmp/dpkg.log" || { cat "$root/tmp/dpkg.log" >&2; fail "dpkg -i"; }
  say "dpkg -i stopped at the missing libraries, as expected on a clean system"
fi
in_root apt-get -f install -y -qq >"$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; fail "apt-get -f install"; }
say "apt-get -f install set up $(grep -c '^Setting up' "$root/tmp/apt.log" || true) packages"
status="$(in_root dpkg-query -W -f='${Status}' parlor)"
[ "$status" = "install ok installed" ] || fail "parlor is '$status'"
say "installed: $(in_root dpkg-query -W -f='${Package} ${Version}' parlor)"

# The system user: a system uid, no login shell, home the state directory.
IFS=: read -r _ _ uid _ _ home shell < <(in_root getent passwd parlor) || fail "no parlor user"
((uid < 1000)) || fail "parlor's uid $uid is not a system uid"
[ "$home" = /var/lib/parlor ] || fail "parlor's home is $home"
[[ "$shell" == */nologin || "$shell" == /bin/false ]] || fail "parlor's shell is $shell"
in_root getent group parlor >/dev/null || fail "no parlor group"
[ "$(in_root stat -c '%U:%G %a' /var/lib/parlor)" = "parlor:parlor 750" ] ||
  fail "/var/lib/parlor is $(in_root stat -c '%U:%G %a' /var/lib/parlor)"
[ "$(in_root stat -c '%U:%G %a' /etc/parlor/parlor.conf)" = "root:parlor 640" ] ||
  fail "/etc/parlor/parlor.conf is $(in_root stat -c '%U:%G %a' /etc/parlor/parlor.conf)"
in_root dpkg-query -W -f='${Conffiles}' parlor | grep -q '/etc/parlor/parlor.conf' ||
  fail "/etc/parlor/parlor.conf is not a conffile"
# No systemd runs in a chroot: postinst only records the enablement (deb-systemd-helper).
[ -L "$root/etc/systemd/system/multi-user.target.wants/parlor.service" ] ||
  fail "the unit is not enabled (no multi-user.target.wants link)"
say "user parlor (uid $uid, $shell), /var/lib/parlor parlor:parlor 750, config root:parlor 640, unit enabled"

# The installed unit as systemd reads it, where everything it names exists (the binary, the
# user): systemd-analyze from Debian's systemd, installed into the chroot for this. verify
# exits 0 on unknown keys and bad values and only prints them, so any output fails.
in_root apt-get install -y -qq --no-install-recommends systemd >"$root/tmp/systemd.log" 2>&1 ||
  { cat "$root/tmp/systemd.log" >&2; fail "apt-get install systemd"; }
verify_output="$(in_root systemd-analyze verify /usr/lib/systemd/system/parlor.service 2>&1)" ||
  fail "systemd-analyze verify: $verify_output"
[ -z "$verify_output" ] || fail "systemd-analyze verify: $verify_output"
exposure="$(in_root systemd-analyze security --offline=yes /usr/lib/systemd/system/parlor.service 2>&1 |
  sed -n 's/.*Overall exposure level for parlor.service: \([0-9.]*\).*/\1/p')"
say "systemd-analyze verify is silent on the installed unit; exposure level $exposure"

# The installed server, as the unit runs it: user parlor, in /var/lib/parlor, with the
# installed config. Only the port is overridden: the chroot shares this machine's network, where
# 8080 may be taken.
chroot --userspec=parlor:parlor "$root" env -i PATH=/usr/bin:/bin HOME=/var/lib/parlor \
  /bin/sh -c 'cd /var/lib/parlor && exec /usr/bin/parlor-server --config /etc/parlor/parlor.conf --port 0' \
  >"$root/tmp/server.out" 2>"$root/tmp/server.err" &
server_pid=$!
port=""
for _ in $(seq 150); do
  port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$root/tmp/server.out")"
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the server exited: $(cat "$root/tmp/server.err")"
  sleep 0.1
done
[ -n "$port" ] || fail "the server did not listen: $(cat "$root/tmp/server.err")"
# An HTTP GET to the server on loopback through bash's /dev/tcp (curl is not among Parlor's
# dependencies): prints the whole response, status line first.
# The inner script's $0 and $1 are its own arguments:
# shellcheck disable=SC2016
http_get() {
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" &&
    printf "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" "$1" >&3 &&
    cat <&3' "$port" "$1"
}
# The status code alone. No pipes: under pipefail, a reader that stops early (head, grep -q)
# fails the pipeline when the writer gets SIGPIPE.
http_status() {
  local response status_line code
  response="$(http_get "$1")" || return 0
  status_line="${response%%$'\r'*}"
  read -r _ code _ <<<"$status_line"
  echo "$code"
}
[ "$(http_status /readyz)" = 200 ] || fail "/readyz is not 200"
page="$(http_get /)" || true
[[ "$page" == *"<html"* ]] || fail "/ is not the web client"
# By number: this machine's names for the chroot's uids differ.
[ "$(stat -c %u "$root/var/lib/parlor/parlor.db")" = "$uid" ] || fail "the store is not parlor's"
kill -TERM "$server_pid"
code=0
wait "$server_pid" || code=$?
server_pid=""
[ "$code" = 0 ] || fail "the server exited $code on SIGTERM"
say "the installed server ran as parlor, answered /readyz and / on 127.0.0.1:$port, stopped cleanly"

# Installing again (as an upgrade does: postinst runs with the old version) keeps an edited
# config, the store and the user, and leaves their owners as they were.
echo "max-rooms = 500" >>"$root/etc/parlor/parlor.conf"
store_before="$(stat -c '%u %a %s' "$root/var/lib/parlor/parlor.db")"
in_root dpkg -i "/tmp/$(basename "$deb")" >"$root/tmp/reinstall.log" 2>&1 ||
  { cat "$root/tmp/reinstall.log" >&2; fail "installing the package again"; }
grep -qx "max-rooms = 500" "$root/etc/parlor/parlor.conf" || fail "reinstalling lost the config's edit"
[ "$(in_root id -u parlor)" = "$uid" ] || fail "reinstalling changed parlor's uid"
[ "$(stat -c '%u %a %s' "$root/var/lib/parlor/parlor.db")" = "$store_before" ] ||
  fail "reinstalling touched the store"
[ "$(in_root stat -c '%U:%G %a' /etc/parlor/parlor.conf)" = "root:parlor 640" ] ||
  fail "reinstalling changed the config's owner or mode"
say "installing again kept the edited config, the store and the user"

# Removing keeps what is the operator's: the config and the games.
in_root dpkg --remove parlor >/dev/null
[ ! -e "$root/usr/bin/parlor-server" ] || fail "remove left /usr/bin/parlor-server"
[ -f "$root/etc/parlor/parlor.conf" ] || fail "remove deleted the config"
[ -f "$root/var/lib/parlor/parlor.db" ] || fail "remove deleted the store"
in_root dpkg --purge parlor >/dev/null
[ ! -e "$root/var/lib/parlor" ] || fail "purge left /var/lib/parlor"
[ ! -e "$root/etc/parlor" ] || fail "purge left /etc/parlor"
in_root getent passwd parlor >/dev/null || fail "purge deleted the parlor user"
say "dpkg --remove kept the config and the store; --purge deleted them and kept the user; passed"
