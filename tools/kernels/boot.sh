#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boots a kernel fetched by fetch.sh under qemu (TCG: no KVM needed) with
# the host's / shared read-only over virtio-9p, runs a bash command file in
# a chroot of it, and exits with the command's status.
#
# usage: tools/kernels/boot.sh KDIR CMDFILE SCRATCH LOG
#   KDIR     a directory made by fetch.sh
#   CMDFILE  run as /tmp/cmd.sh in the guest
#   SCRATCH  a host directory that is the guest's /tmp (writable)
#   LOG      the serial console
# env: SMP (2), MEM (MiB, 2048), TMO (seconds, 1200), DISK (a raw image:
#      the guest's /dev/vda, mounted on /var/tmp), MONITOR (a unix socket
#      for qemu's monitor: registers of a guest that hangs)
set -u
kd=$1 cmd=$2 scratch=$3 log=$4
here=$(cd "$(dirname "$0")" && pwd)
smp=${SMP:-2} mem=${MEM:-2048} tmo=${TMO:-1200}
mkdir -p "$scratch"
cp "$cmd" "$scratch/cmd.sh"
# the initramfs: busybox, /init and the modules of this kernel
rd=$scratch/initrd.gz
r=$(mktemp -d)
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/mnt" "$r/mods"
cp /bin/busybox "$r/bin/busybox"
cp "$here/init" "$r/init"
cp "$kd"/mods/*.ko "$kd/mods/order" "$r/mods/"
(cd "$r" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null) | gzip -1 >"$rd"
rm -rf "$r"
mon=()
[ -z "${MONITOR:-}" ] || mon=(-monitor "unix:$MONITOR,server,nowait")
disk=()
[ -z "${DISK:-}" ] || disk=(-drive "file=$DISK,if=virtio,format=raw,cache=unsafe")
# quiet, but with the kernel's warnings and their call traces (a BUG's
# trace is printed at the default level, 4)
timeout -s KILL "$tmo" qemu-system-x86_64 -accel "tcg,thread=${TCG_THREAD:-single}" -cpu max -smp "$smp" -m "$mem" \
	-nographic -no-reboot -nic none -kernel "$kd/vmlinuz" -initrd "$rd" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap \
	-virtfs local,path="$scratch",mount_tag=scratch,security_model=passthrough "${disk[@]}" "${mon[@]}" \
	-append "console=ttyS0 panic=-1 quiet loglevel=5 nokaslr latbpf.cmd=/tmp/cmd.sh" \
	</dev/null >"$log" 2>&1 &
q=$!
# A guest whose kernel stalls does not come back, and its command's own
# bounds need timers that may be what stalled (6.1-rt, 2026-12-02: a
# "scheduling while atomic" in tcp.t, then "timer wakeup didn't happen"
# every 63 s until TMO, 45 minutes of CI): the second stall report (or
# soft lockup) ends the boot, with the kernel's lines in the log.
while kill -0 "$q" 2>/dev/null; do
	sleep 5
	if [ "$(grep -acE 'rcu: INFO: .*detected stalls|watchdog: BUG: soft lockup' "$log")" -ge 2 ]; then
		echo "boot.sh: the guest's kernel stalled; stopped (${log##*/}):" >&2
		grep -aE '\] (BUG|WARNING|rcu: INFO|watchdog: BUG)' "$log" | head -5 >&2
		kill -TERM "$q"
		break
	fi
done
wait "$q"
rc=$(sed -n 's/^GUEST_RC=\([0-9]*\).*/\1/p' "$log" | tail -1)
exit "${rc:-98}"
