#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Regenerates vmlinux/<arch>/vmlinux.h from a BTF source. Builds never run
# this: they use the committed header, so they do not depend on the build
# host's own BTF.
#   tools/gen-vmlinux.sh [ARCH [BTF]]
# ARCH defaults to this host's (x86, arm64); BTF defaults to
# /sys/kernel/btf/vmlinux. BTF may also be a vmlinux ELF or a raw BTF blob
# (for another architecture, e.g. extracted from a distro kernel package).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
arch=${1:-$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')}
btf=${2:-/sys/kernel/btf/vmlinux}
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(wc -l <"$out") lines) from $btf"
