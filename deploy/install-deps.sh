#!/usr/bin/env bash
# Installs everything Parlor needs to build, run and test on Debian 12, idempotently.
# Debian packages via apt-get (as root, or through sudo); npm packages from the
# committed lockfiles. Prints what it did.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev nlohmann-json3-dev libssl-dev libsqlite3-dev libpq-dev libmimalloc-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  openssl chromium
  redis-server libhiredis-dev
  python3 clang-format clang-tidy
  # `make fuzz`: clang 14 and its libFuzzer and sanitizer runtimes (the fuzz preset).
  clang-14 libclang-rt-14-dev
  # The PostgreSQL server: the store's tests start their own from its binaries
  # (/usr/lib/postgresql/15/bin); none is needed running.
  postgresql-15
  # A local cluster (deploy/cluster/up.sh): HAProxy 2.6 in front of the nodes; curl for its
  # readiness checks.
  haproxy curl
  # nginx 1.22: the proxy test runs deploy/nginx/parlor.conf (and deploy/haproxy/parlor-tls.cfg)
  # for real; no nginx is needed running.
  nginx
  # promtool, which checks /metrics, the alert rules and their unit tests (deploy/prometheus);
  # no Prometheus server is needed running.
  prometheus
)
# The machine image may bring its own Node.js (with npm bundled); Debian's npm package would
# conflict with it, so Debian's Node.js is installed only when there is none.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  echo "install-deps: installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  echo "install-deps: Debian packages installed"
  # Installing postgresql-15 may create and start Debian's default cluster (15/main). Nothing
  # here uses it: the tests start their own servers. Stop it and keep it from starting at
  # boot; the cluster itself stays (pg_ctlcluster 15 main start brings it back).
  if [[ " ${missing[*]} " == *" postgresql-15 "* ]] && command -v pg_lsclusters >/dev/null; then
    while read -r version cluster _port status _rest; do
      [ "$version" = 15 ] || continue
      if [ "$status" = online ]; then
        "${sudo_cmd[@]}" pg_ctlcluster "$version" "$cluster" stop
        echo "install-deps: stopped the PostgreSQL cluster $version/$cluster the package started"
      fi
      start_conf="/etc/postgresql/$version/$cluster/start.conf"
      if [ -f "$start_conf" ] && grep -qx auto "$start_conf"; then
        echo manual | "${sudo_cmd[@]}" tee "$start_conf" >/dev/null
        echo "install-deps: PostgreSQL cluster $version/$cluster set to start manually"
      fi
    done < <(pg_lsclusters --no-header 2>/dev/null || true)
  fi
  # Installing prometheus may start Debian's Prometheus server (port 9090), which nothing here
  # uses: stop it and keep it from starting at boot.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null &&
    systemctl is-enabled prometheus >/dev/null 2>&1; then
    "${sudo_cmd[@]}" systemctl disable --now prometheus >/dev/null 2>&1 || true
    echo "install-deps: stopped and disabled the Prometheus service the package started"
  fi
  # Installing nginx may start Debian's default site on port 80, which nothing here uses: stop
  # it and keep it from starting at boot (the proxy test runs its own nginx).
  if [[ " ${missing[*]} " == *" nginx "* ]] && command -v systemctl >/dev/null &&
    systemctl is-enabled nginx >/dev/null 2>&1; then
    "${sudo_cmd[@]}" systemctl disable --now nginx >/dev/null 2>&1 || true
    echo "install-deps: stopped and disabled the nginx service the package started"
  fi
  # Debian's haproxy service, where an init system starts it, listens on no port (its
  # /etc/haproxy/haproxy.cfg has no frontend): nothing to stop. up.sh runs its own.
else
  echo "install-deps: all ${#packages[@]} Debian packages already installed"
fi

# npm packages, only where a lockfile is committed and node_modules is older than it.
for dir in client-ts client-web tests/e2e; do
  lock="$here/$dir/package-lock.json"
  [ -f "$lock" ] || continue
  stamp="$here/$dir/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
    echo "install-deps: npm ci in $dir"
    (cd "$here/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  else
    echo "install-deps: npm packages in $dir up to date"
  fi
done
