#!/usr/bin/env bash
# Every BPF object compiles for every architecture with a committed
# vmlinux.h (no root: this checks the headers, not this kernel).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { echo "1..0 # SKIP no clang"; exit 0; }
for dir in vmlinux/*/; do
	arch=$(basename "$dir")
	for src in bpf/*.bpf.c; do
		clang -g -O2 -target bpf -D__TARGET_ARCH_"$arch" -Wall -Werror -Wno-unused-function \
			-I"$dir" -Iinclude -Ibpf -c "$src" -o "$T/$arch-$(basename "$src" .c).o" 2>"$T/err"
		ok $? "$src builds for $arch"
		[ -s "$T/err" ] && diag "$(cat "$T/err")"
	done
done
check "x86 and arm64 headers are committed" test -s vmlinux/x86/vmlinux.h -a -s vmlinux/arm64/vmlinux.h
done_testing
