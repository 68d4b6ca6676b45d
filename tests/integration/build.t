#!/usr/bin/env bash
# Every BPF object compiles for every architecture with a committed
# vmlinux.h (no root: this checks the headers, not this kernel).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { cannot_run "no clang"; }
for dir in vmlinux/*/; do
	arch=$(basename "$dir")
	for src in bpf/*.bpf.c; do
		# shellcheck disable=SC2046 # the Makefile's flags, word-split
		clang $(make -s --no-print-directory bpf-cflags ARCH="$arch") \
			-c "$src" -o "$T/$arch-$(basename "$src" .c).o" 2>"$T/err"
		ok $? "$src builds for $arch"
		[ -s "$T/err" ] && diag "$(cat "$T/err")"
	done
done
# latbpf bench reads the arm64 generic timer with inline assembly: compile
# it for arm64 too (the cross headers come from tools/install-deps.sh)
if [ "$(uname -m)" = x86_64 ]; then
	for src in src/bench/*.c; do
		clang --target=aarch64-linux-gnu -isystem /usr/aarch64-linux-gnu/include -O2 \
			-Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
			-Iinclude -Isrc -Isrc/core -Isrc/output -DLATBPF_VERSION='"t"' -DLATBPF_COMMIT='"t"' \
			-c "$src" -o "$T/arm64-$(basename "$src" .c).o" 2>"$T/err"
		ok $? "$src builds for arm64"
		[ -s "$T/err" ] && diag "$(cat "$T/err")"
	done
	check "bench reads the arm64 generic timer" \
		sh -c "llvm-objdump -d '$T/arm64-clock.o' | grep -qi 'mrs.*cntvct_el0'"
fi
check "x86 and arm64 headers are committed" test -s vmlinux/x86/vmlinux.h -a -s vmlinux/arm64/vmlinux.h
done_testing
