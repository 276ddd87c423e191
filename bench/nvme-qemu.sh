#!/usr/bin/env bash
# The drive's own health log read from a real NVMe controller: QEMU's emulated one,
# in a guest booted from Debian's kernel with a small initramfs that holds drivebench, busybox
# and mkfs.ext4. The guest runs a scenario with /dev/nvme0n1 as its `[target] device` (purged
# as PURGE says, ext4 made without discard, filled), so drivebench reads the controller's
# SMART / health log through the admin passthrough ioctl before and after each phase; the run
# directory comes back to the host (as a base64 tar on the serial console) and the script
# prints the console's health line and each phase's `health` from result.json.
#
# Env: SCENARIO (default scenarios/quickstart.toml), TIME_SCALE (default 0.05), PURGE (the
# `[target] purge`, default discard), NVME_MIB (the emulated namespace, default 1024), OUT
# (where the guest's run directory is unpacked, default runs/nvme-qemu-<UTC timestamp>),
# DRIVEBENCH (a drivebench binary; default: this checkout's release build, built first),
# GUEST_TIMEOUT (seconds, default 900), KEEP (set: keep the guest's work directory), ACCEL
# (QEMU's accelerator, default tcg: emulation, which works inside a virtual machine whose KVM
# does not; kvm where it does).
# Needs root and Debian's qemu-system-x86, linux-image-amd64 and busybox-static
# (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
SCENARIO="${SCENARIO:-scenarios/quickstart.toml}"
TIME_SCALE="${TIME_SCALE:-0.05}"
PURGE="${PURGE:-discard}"
NVME_MIB="${NVME_MIB:-1024}"
OUT="${OUT:-runs/nvme-qemu-$(date -u +%Y%m%dT%H%M%SZ)}"
missing=""
command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86"
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$missing linux-image-amd64"
[ -x /bin/busybox ] || missing="$missing busybox-static"
if [ -n "$missing" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
fi
if [ -z "${DRIVEBENCH:-}" ]; then
  cargo build --release -q
  DRIVEBENCH="${CARGO_TARGET_DIR:-target}/release/drivebench"
fi
KERNEL=$(ls /boot/vmlinuz-* | sort -V | tail -1)
KV=${KERNEL#/boot/vmlinuz-}
WORK=$(mktemp -d /var/tmp/nvme-qemu.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
ROOT="$WORK/root"
mkdir -p "$ROOT"/{bin,sbin,proc,sys,dev,tmp,mnt,etc,drivebench,lib64,lib/x86_64-linux-gnu}

# Programs and the shared libraries they load.
cp /bin/busybox "$ROOT/bin/"
cp "$DRIVEBENCH" "$ROOT/drivebench/drivebench"
cp "$SCENARIO" "$ROOT/drivebench/scenario.toml"
cp "$(command -v mkfs.ext4)" "$ROOT/sbin/"
for lib in $(ldd "$DRIVEBENCH" "$(command -v mkfs.ext4)" | grep -o '/lib[^ ]*' | sort -u); do
  cp -L "$lib" "$ROOT$lib"
done
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"

# The modules for NVMe, ext4 and its checksum, in the order the kernel needs them (decompressed: busybox's
# insmod reads plain ELF).
: >"$ROOT/modules.order"
for m in $(for mod in nvme ext4 crc32c_generic; do modprobe -S "$KV" --show-depends "$mod"; done \
    | awk '$1 == "insmod" {print $2}'); do
  name=$(basename "$m")
  case "$name" in
    *.xz) xz -dc "$m" >"$ROOT/lib/${name%.xz}"; name=${name%.xz} ;;
    *.zst) zstd -qdc "$m" >"$ROOT/lib/${name%.zst}"; name=${name%.zst} ;;
    *) cp "$m" "$ROOT/lib/$name" ;;
  esac
  grep -qx "/lib/$name" "$ROOT/modules.order" || echo "/lib/$name" >>"$ROOT/modules.order"
done

cat >"$ROOT/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
for m in \$(cat /modules.order); do insmod \$m 2>/dev/null; done
for i in \$(seq 50); do [ -b /dev/nvme0n1 ] && break; sleep 0.1; done
cd /drivebench
./drivebench run scenario.toml --time-scale $TIME_SCALE --out /tmp/run \\
  --set target.device=/dev/nvme0n1 --set target.destroy_data=true \\
  --set target.path=/mnt/target --set target.purge=$PURGE >/tmp/console.txt 2>&1
echo "drivebench exit code \$?"
cat /tmp/console.txt
echo ===RUN-BEGIN===
[ -d /tmp/run ] && tar czf - -C /tmp run | base64
echo ===RUN-END===
poweroff -f
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initrd.gz"
truncate -s "${NVME_MIB}M" "$WORK/nvme.img"

timeout "${GUEST_TIMEOUT:-900}" qemu-system-x86_64 -accel "${ACCEL:-tcg}" -m 2048 -smp 2 -nographic -no-reboot \
  -kernel "$KERNEL" -initrd "$WORK/initrd.gz" -append "console=ttyS0 quiet panic=-1 edd=off" \
  -drive "file=$WORK/nvme.img,if=none,id=nvm,format=raw" \
  -device "nvme,serial=drivebench01,drive=nvm" >"$WORK/serial.log" 2>&1 || true
if ! grep -q '^===RUN-END===' "$WORK/serial.log"; then
  echo "the guest did not finish; its console's last lines:" >&2
  tail -n 40 "$WORK/serial.log" >&2
  exit 1
fi

sed -n '/drivebench exit code/,/^===RUN-BEGIN===/p' "$WORK/serial.log" | tr -d '\r' | sed 's/^.*drivebench exit code/drivebench exit code/' | grep -v '^===RUN'
sed -n '/^===RUN-BEGIN===/,/^===RUN-END===/p' "$WORK/serial.log" | tr -d '\r' \
  | { grep -v '^===RUN' || true; } >"$WORK/run.b64"
if [ ! -s "$WORK/run.b64" ]; then
  echo "no run directory came back (a refusal leaves none)"
  exit 0
fi
mkdir -p "$OUT"
base64 -d "$WORK/run.b64" | tar xzf - -C "$OUT" --strip-components=1
echo "run directory: $OUT"
python3 - "$OUT/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("start_state:", json.dumps(r.get("start_state", {}).get("purge")))
for p in r["phases"]:
    h = p.get("health", {})
    d = h.get("delta", {})
    print(f'{p["name"]}: health {h.get("state")} on {h.get("device")}; delta {json.dumps(d)}')
    marks = [row.get("drive_throttle", "not read") for row in p.get("series", [])]
    print(f'{p["name"]}: interval throttle marks {marks}')
PY
