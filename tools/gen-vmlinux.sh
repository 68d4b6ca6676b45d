#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerates vmlinux/<arch>/vmlinux.h from a BTF source. Builds never run
# this: they use the committed header, so they do not depend on the build
# host's own BTF.
#   tools/gen-vmlinux.sh [ARCH [SOURCE]]
# ARCH defaults to this host's (x86, arm64). SOURCE defaults to
# /sys/kernel/btf/vmlinux; it may also be a vmlinux ELF, a raw BTF blob, a
# kernel Image/vmlinuz, or a distro kernel package (.deb), from which the
# BTF blob embedded in the image is extracted. For arm64 on a Debian x86 host:
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get download linux-image-6.1.0-56-arm64:arm64   (what linux-image-arm64 depends on)
#   tools/gen-vmlinux.sh arm64 linux-image-6.1.0-56-arm64_*_arm64.deb
# (the committed arm64 header came from Debian 12's 6.1.0-56-arm64 this way)
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
arch=${1:-$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')}
src=${2:-/sys/kernel/btf/vmlinux}
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$src" in
*.deb)
	dpkg-deb -x "$src" "$tmp/deb"
	src=$(ls "$tmp"/deb/boot/vmlinuz-* | head -1)
	;;
esac
if [ "$src" != /sys/kernel/btf/vmlinux ] && ! bpftool btf dump file "$src" format raw >/dev/null 2>&1; then
	# a kernel image: find the BTF header (magic 0xeb9f, version 1,
	# hdr_len 24), gunzipping first if the image is compressed
	python3 - "$src" "$tmp/vmlinux.btf" <<'PY'
import gzip, struct, sys
data = open(sys.argv[1], 'rb').read()
if data[:2] == b'\x1f\x8b':
    data = gzip.decompress(data)
best, off = None, 0
while (off := data.find(b'\x9f\xeb\x01\x00\x18\x00\x00\x00', off)) >= 0:
    hl, to, tl, so, sl = struct.unpack_from('<IIIII', data, off + 4)
    total = hl + max(to + tl, so + sl)
    if best is None or total > best[1]:
        best = (off, total)
    off += 1
if not best:
    sys.exit('no BTF found in ' + sys.argv[1])
open(sys.argv[2], 'wb').write(data[best[0]:best[0] + best[1]])
PY
	src=$tmp/vmlinux.btf
fi
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$src" format c >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(wc -l <"$out") lines)"
