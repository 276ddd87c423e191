#!/usr/bin/env bash
# A fleet of test hosts on this machine, for the playbooks' own test (tests/ansible.rs):
# network namespaces joined by a bridge on addresses chosen here, each with an sshd on its
# address and a generated key, so Ansible reaches them over real SSH. The filesystem is shared,
# so every host gets its own paths (drivebench_prefix, targets).
#
#   netns_fleet.sh up DIR N     make N hosts (h1..hN); DIR/hosts.yml lists them
#   netns_fleet.sh down DIR     stop their processes and remove them
set -euo pipefail

NET=10.231.77
BRIDGE=dbfleet0

up() {
    local dir=$1 n=$2
    remove_hosts # what a killed earlier test left
    mkdir -p "$dir/ssh" && chmod 700 "$dir/ssh"
    ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/client" <<<y >/dev/null
    ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/host" <<<y >/dev/null
    cp "$dir/ssh/client.pub" "$dir/ssh/authorized_keys"
    mkdir -p /run/sshd
    ip link add "$BRIDGE" type bridge 2>/dev/null || true
    ip addr replace "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    for i in $(seq 1 "$n"); do
        local ns="dbfleet-h$i" addr="$NET.$((10 + i))"
        ip netns add "$ns"
        ip link add "vfl$i" type veth peer name eth0 netns "$ns"
        ip link set "vfl$i" master "$BRIDGE" up
        ip netns exec "$ns" ip link set lo up
        ip netns exec "$ns" ip addr add "$addr/24" dev eth0
        ip netns exec "$ns" ip link set eth0 up
        cat > "$dir/ssh/sshd_h$i.conf" <<CONF
ListenAddress $addr
HostKey $dir/ssh/host
AuthorizedKeysFile $dir/ssh/authorized_keys
PidFile $dir/ssh/sshd_h$i.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
StrictModes no
UsePAM no
Subsystem sftp internal-sftp
CONF
        ip netns exec "$ns" /usr/sbin/sshd -f "$dir/ssh/sshd_h$i.conf" -E "$dir/ssh/sshd_h$i.log"
    done
    for i in $(seq 1 "$n"); do
        for _ in $(seq 50); do
            ssh -q -i "$dir/ssh/client" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
                -o BatchMode=yes "root@$NET.$((10 + i))" true && break
            sleep 0.2
        done
    done
}

remove_hosts() {
    for ns in $(ip netns list | awk '/^dbfleet-h/ {print $1}'); do
        ip netns pids "$ns" | xargs -r kill -TERM 2>/dev/null || true
        sleep 0.5
        ip netns pids "$ns" | xargs -r kill -KILL 2>/dev/null || true
        ip netns delete "$ns" || true
    done
    # A namespace outlives its name while a process is still in it: delete the veth pairs
    # from this side, which removes both ends wherever the other is.
    for link in $(ip -o link show | awk -F': ' '$2 ~ /^vfl[0-9]+@/ {split($2, a, "@"); print a[1]}'); do
        ip link delete "$link" 2>/dev/null || true
    done
    ip link delete "$BRIDGE" 2>/dev/null || true
}

down() {
    remove_hosts
    rm -rf "$1/ssh"
}

case "${1:-}" in
    up) up "$2" "$3" ;;
    down) down "$2" ;;
    *) echo "usage: $0 up DIR N | down DIR" >&2; exit 2 ;;
esac
