#!/usr/bin/env bash
# The Debian package, built from a build directory and unpacked into a scratch root; nothing
# is installed on this machine, so the test needs no root and leaves no user or unit behind.
# Checks: the file name; the control fields, with a dependency for every library the binaries
# link (readelf, ldd, dpkg -S); the maintainer scripts and conffiles; the layout; the systemd unit
# (its paths exist in the package, its hardening, `systemd-analyze verify` silent); and the
# unpacked parlor-server, started with the unpacked default config, answering /readyz and
# refusing a config with a bad key. 10 s on an idle two-core machine (30 s on a busy one),
# half of it cpack.
#
#   tests/package/package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

build="$(cd "${1:?usage: package_test.sh BUILD_DIR SOURCE_DIR}" && pwd)"
source_dir="$(cd "${2:?usage: package_test.sh BUILD_DIR SOURCE_DIR}" && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -KILL "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "package_test: FAIL: $*" >&2
  exit 1
}
say() { echo "package_test: $*"; }

# The server must see only the settings this test gives it: a PARLOR_* variable of the
# caller's environment would override the config file under test.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^PARLOR_' || true)

# --- Build the package from the existing build directory. cpack -B keeps its output and its
# staging tree in the scratch directory, so the build directory is left as it was.
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
arch="$(dpkg --print-architecture)"
started=$SECONDS
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack failed"
fi
deb="$work/out/parlor_${version}_${arch}.deb"
[ -f "$deb" ] || fail "expected $(basename "$deb"); cpack made: $(ls "$work/out")"
say "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) in $((SECONDS - started)) s"

# --- Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = parlor ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', not $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture is '$(field Architecture)'"
[[ "$(field Maintainer)" == *"<"*"@"*">" ]] || fail "Maintainer is '$(field Maintainer)'"
depends="$(field Depends)"
# Whether Depends names the package $1 (with or without a version).
depends_on() {
  local item
  local -a items
  IFS=',' read -ra items <<<"$depends"
  for item in "${items[@]}"; do
    item="${item# }"
    [ "${item%% *}" = "$1" ] && return 0
  done
  return 1
}
depends_on adduser || fail "Depends lacks adduser (postinst runs it): $depends"

# --- Maintainer scripts and conffiles.
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  [ -x "$work/control/$script" ] || fail "no executable $script in the package"
  bash -n "$work/control/$script" || fail "$script does not parse"
done
grep -q 'adduser --system' "$work/control/postinst" || fail "postinst does not add a system user"
grep -q 'install -d -o parlor -g parlor' "$work/control/postinst" ||
  fail "postinst does not make /var/lib/parlor parlor's"
[ "$(cat "$work/control/conffiles")" = /etc/parlor/parlor.conf ] ||
  fail "conffiles is '$(cat "$work/control/conffiles")'"

# --- Layout: every file owned by root, nothing outside /usr and /etc, nothing in /usr/local.
if dpkg-deb -c "$deb" | awk '$2 != "root/root"' | grep .; then fail "files not owned by root"; fi
root="$work/root"
dpkg-deb -x "$deb" "$root"
tops="$(cd "$root" && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')"
[ "$tops" = "./etc ./usr " ] || fail "top-level directories: $tops"
[ ! -e "$root/usr/local" ] || fail "the package installs into /usr/local"
for tool in parlor-server parlor-bot parlor-load parlor-sim; do
  [ -x "$root/usr/bin/$tool" ] || fail "no /usr/bin/$tool"
done
for doc in README.md OPERATIONS.md PROTOCOL.md; do
  [ -f "$root/usr/share/doc/parlor/$doc" ] || fail "no /usr/share/doc/parlor/$doc"
done
unit="$root/usr/lib/systemd/system/parlor.service"
config="$root/etc/parlor/parlor.conf"
[ -f "$unit" ] || fail "no /usr/lib/systemd/system/parlor.service"
[ -f "$config" ] || fail "no /etc/parlor/parlor.conf"
# The web client is shipped when it was built (make web) before the package.
if [ -f "$source_dir/client-web/dist/index.html" ]; then
  [ -f "$root/usr/share/parlor/web/index.html" ] || fail "client-web/dist is built but not shipped"
  web=yes
else
  say "client-web/dist is not built: the package has no web client (make web)"
  web=no
fi

# --- A dependency for every shared library the binaries link directly (their NEEDED entries;
# what those load in turn is their packages' business), by the package that ships it on this
# machine. ldd says where each one is found, by /lib or by /usr/lib (Debian 12 merged them);
# dpkg knows one of the two, or the library's real path.
candidates() { printf '%s\n' "$1" "/usr$1" "${1#/usr}" "$(realpath "$1")"; }
# dpkg -S reads the whole file database (a second a call here): one call for all libraries.
declare -A libs_of=()
for tool in parlor-server parlor-bot parlor-load parlor-sim; do
  binary="$root/usr/bin/$tool"
  libraries="$(ldd "$binary")"
  while read -r soname; do
    lib="$(awk -v so="$soname" '$1 == so && $2 == "=>" { print $3 }' <<<"$libraries")"
    [ -n "$lib" ] || fail "$tool needs $soname, which ldd does not find"
    libs_of[$lib]="$tool"
  done < <(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
declare -A owner=()
while IFS= read -r line; do
  owner[${line#*: }]="${line%%:*}"
done < <(for lib in "${!libs_of[@]}"; do candidates "$lib"; done | sort -u |
  xargs dpkg -S 2>/dev/null || true)
declare -A needed=()
for lib in "${!libs_of[@]}"; do
  pkg=""
  while read -r candidate; do
    pkg="${owner[$candidate]:-}"
    [ -n "$pkg" ] && break
  done < <(candidates "$lib")
  [ -n "$pkg" ] || fail "${libs_of[$lib]} links $lib, which no Debian package ships"
  needed[$pkg]="${libs_of[$lib]}"
done
((${#needed[@]} >= 5)) || fail "the binaries link only ${!needed[*]}"
for pkg in "${!needed[@]}"; do
  depends_on "$pkg" || fail "${needed[$pkg]} links a library of $pkg, which Depends lacks: $depends"
done
say "Depends covers ${#needed[@]} linked library packages: ${!needed[*]}"

# --- The unit: it runs what the package ships, as parlor, confined.
exec_start="$(sed -n 's/^ExecStart=//p' "$unit")"
read -r binary flag config_path _ <<<"$exec_start"
[[ "$binary" == /usr/bin/parlor-server && -x "$root$binary" ]] || fail "ExecStart runs $binary"
[[ "$flag" == --config && "$config_path" == /etc/parlor/parlor.conf ]] ||
  fail "ExecStart does not pass the shipped config: $exec_start"
for line in User=parlor Group=parlor NoNewPrivileges=yes ProtectSystem=strict \
  ReadWritePaths=/var/lib/parlor PrivateTmp=yes ProtectHome=yes CapabilityBoundingSet= \
  'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' SystemCallFilter=@system-service; do
  grep -qxF "$line" "$unit" || fail "the unit lacks the line $line"
done
# The server writes its store where the unit lets it, and serves what the package ships.
setting() { sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" "$config"; }
data_dir="$(setting data-dir)"
[[ "$data_dir/" == /var/lib/parlor/* ]] || fail "data-dir $data_dir is outside ReadWritePaths"
if [ "$web" = yes ]; then
  [ -f "$root$(setting static-dir)/index.html" ] || fail "static-dir $(setting static-dir) is not shipped"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
  # verify resolves ExecStart on this machine, where nothing is installed: check a copy that
  # runs the unpacked binary. verify exits 0 on unknown keys and bad values and only prints
  # them, so any output fails.
  mkdir "$work/unit"
  sed "s|^ExecStart=/usr/bin/|ExecStart=$root/usr/bin/|" "$unit" >"$work/unit/parlor.service"
  verify_output="$(systemd-analyze verify "$work/unit/parlor.service" 2>&1)" ||
    fail "systemd-analyze verify: $verify_output"
  [ -z "$verify_output" ] || fail "systemd-analyze verify: $verify_output"
  # Exposure 0 (locked down) to 10 (unconfined); the unit scores about 1.
  exposure="$(systemd-analyze security --offline=yes "$work/unit/parlor.service" 2>&1 |
    sed -n 's/.*Overall exposure level for parlor.service: \([0-9.]*\).*/\1/p')"
  [ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level"
  awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "exposure level $exposure over 2.0"
  say "systemd-analyze verify is silent; exposure level $exposure"
else
  say "systemd-analyze is not installed: the unit was not verified"
fi

# --- The unpacked server with the unpacked default config. Only what cannot hold outside an
# installed system is overridden by flags (which win over the file): a free port, a scratch
# data directory, the web client in the scratch root.
server_flags=(--port 0 --data-dir "$work/state" --static-dir "$root$(setting static-dir)")
# The files exist before the server starts: its redirections are made by the background child,
# which a busy machine may not have run yet when the loop below first reads them.
: >"$work/server.out"
: >"$work/server.err"
"$root/usr/bin/parlor-server" --config "$config" "${server_flags[@]}" \
  >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
port=""
for _ in $(seq 150); do
  port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/server.out")"
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the server exited: $(cat "$work/server.err")"
  sleep 0.1
done
[ -n "$port" ] || fail "no 'listening on 127.0.0.1:PORT' (bind from the config) in 15 s: $(cat "$work/server.out" "$work/server.err")"
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
ready="$(http_status /readyz)"
[ "$ready" = 200 ] || fail "/readyz answered '$ready'"
if [ "$web" = yes ]; then
  page="$(http_get /)" || true
  [[ "$page" == *"<html"* ]] || fail "/ is not the web client"
fi
[ -f "$work/state/parlor.db" ] || fail "no SQLite store (store = sqlite) in the data directory"
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" = 0 ] || fail "the server exited $status on SIGTERM: $(tail -5 "$work/server.err")"
say "the unpacked server answered /readyz on 127.0.0.1:$port and stopped cleanly"

# --- The same config with a misspelt key: the start stops, naming the key and its line.
cp "$config" "$work/bad.conf"
echo 'prot = 9000' >>"$work/bad.conf"
bad_line="$(wc -l <"$work/bad.conf")"
status=0
"$root/usr/bin/parlor-server" --config "$work/bad.conf" "${server_flags[@]}" \
  >/dev/null 2>"$work/bad.err" || status=$?
[ "$status" != 0 ] || fail "a config with an unknown key started the server"
grep -qF "$work/bad.conf:$bad_line: unknown key \"prot\"" "$work/bad.err" ||
  fail "the error does not name the key and line: $(cat "$work/bad.err")"
say "a bad key stops the start (exit $status): $(cat "$work/bad.err")"
say "passed in $((SECONDS - started)) s"
