#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs the whole suite
# (`cargo test`, every workspace crate and the one integration-test binary). Arguments go to
# `cargo test` (`bash scripts/test.sh mariadb::` runs one module).
#
# What it installs, each only when missing:
#   as root, with apt-get (packaged services never started: the tests start private servers on
#   ports they pick): mariadb-server, postgresql, chromium (renders report.html),
#   openssh-server and parted (the Ansible test's hosts), xfsprogs (a start state's XFS);
#   with pip: prometheus_client (parses the live metrics page);
#   into ~/.cache/drivebench-ci (DRIVEBENCH_CI_CACHE), no root needed: the TDS emulator
#   iridium_server 0.1.13 (built from crates.io, a few minutes) and Ansible in a venv.
# The first run on a fresh machine takes about 25 minutes (installs and the first build);
# later runs about 12. Without root nothing is installed with apt-get: the tests whose server,
# browser or tool is missing print one "skipped: ..." line each and pass (under CI=true they
# fail instead, so CI never skips by accident).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=
apt_install() { # why, packages...
    local why=$1; shift
    if ! as_root; then
        echo "not installing $* ($why): needs root and apt-get; those tests print skipped"
        return 0
    fi
    echo "installing $* ($why)"
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    rm -f /usr/sbin/policy-rc.d
}

if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
    apt_install "the MariaDB tests start private servers" mariadb-server
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    apt_install "the PostgreSQL tests start private clusters" postgresql
fi
if ! command -v chromium >/dev/null 2>&1; then
    apt_install "report.html is rendered by a headless browser" chromium
fi
if ! command -v sshd >/dev/null 2>&1 && [ ! -x /usr/sbin/sshd ] || ! command -v parted >/dev/null 2>&1; then
    apt_install "the Ansible test's hosts are reached over SSH" openssh-server parted
fi
if ! command -v mkfs.xfs >/dev/null 2>&1 && [ ! -x /usr/sbin/mkfs.xfs ]; then
    apt_install "a start state's XFS is made by mkfs.xfs" xfsprogs
fi
if ! python3 -c "import prometheus_client" >/dev/null 2>&1; then
    echo "installing prometheus_client (its parser checks the live metrics page)"
    pip install -q prometheus_client==0.21.1 || echo "pip failed: the metrics page test prints skipped"
fi
# SQL Server cannot be installed here: its tests run against a TDS emulator (Iridium SQL, not
# Microsoft SQL Server), built once from crates.io and cached outside the repository.
CI_CACHE="${DRIVEBENCH_CI_CACHE:-$HOME/.cache/drivebench-ci}"
if [ ! -x "$CI_CACHE/bin/iridium-server" ]; then
    echo "installing iridium_server 0.1.13 into $CI_CACHE (the TDS emulator; a few minutes, once)"
    cargo install --locked --quiet --root "$CI_CACHE" iridium_server@0.1.13
fi
export IRIDIUM_SERVER="$CI_CACHE/bin/iridium-server"
# The playbooks' tests: Ansible, its collections and ansible-lint from PyPI (pinned in
# ansible/requirements.txt), in a venv cached outside the repository.
ANSIBLE_VENV="$CI_CACHE/ansible-venv"
if ! cmp -s ansible/requirements.txt "$ANSIBLE_VENV/requirements.txt"; then
    echo "installing Ansible into $ANSIBLE_VENV (from PyPI; a minute, once)"
    rm -rf "$ANSIBLE_VENV"
    python3 -m venv "$ANSIBLE_VENV"
    "$ANSIBLE_VENV/bin/pip" install -q -r ansible/requirements.txt
    cp ansible/requirements.txt "$ANSIBLE_VENV/requirements.txt"
fi
export DRIVEBENCH_ANSIBLE_VENV="$ANSIBLE_VENV"
cargo test "$@"
