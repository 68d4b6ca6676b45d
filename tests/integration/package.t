#!/usr/bin/env bash
# The Debian package as a user meets it (issue 30): built with make deb
# (dpkg-buildpackage) from a fresh clone of this commit, its files under
# O= and none in the clone's parent; lintian finds no error; dpkg -i
# installs it; latbpf --version, man -w, complete -p latbpf in an
# interactive bash and systemd-analyze verify of its units work; its
# dependencies are computed, libmicrohttpd's too (opened at run time); dpkg
# -r removes every file but the conffile, dpkg -P that too, and the machine
# is as it was. make install / make uninstall install and remove the same
# files under PREFIX. The package is built once per run.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
need_root
for tool in git dpkg dpkg-buildpackage dh lintian man systemd-analyze bash; do
	check "$tool is installed (tools/install-deps.sh)" command -v "$tool"
done
status=$(dpkg-query -W -f '${db:Status-Abbrev}' latbpf 2>/dev/null)
case $status in
"" | un*) ;;
*) cannot_run "latbpf is installed here ($status): this test installs and purges its own" ;;
esac

version=$(sed -n 's/^VERSION := //p' Makefile)
arch=$(dpkg --print-architecture)
head=$(git rev-parse HEAD)
check "debian/changelog's version is the Makefile's ($version)" \
	test "$(dpkg-parsechangelog -S Version)" = "$version"
check "the man pages name $version" bash -c "grep -l '\"latbpf $version\"' man/*.8 | wc -l | grep -qx $(ls man/*.8 | wc -l)"

# what http.c opens with dlsym is what debian/dlopen-deps.c links
sed -n '/static const char \*const names\[\] = {/,/};/p' src/output/http.c |
	grep -oE '"(MHD|gnutls)_[a-z_0-9]+"' | tr -d '"' | sort >"$T/dlsym"
grep -oE '\b(MHD|gnutls)_[a-z_0-9]+\b' debian/dlopen-deps.c | sort -u >"$T/linked"
check "debian/dlopen-deps.c links every function http.c opens ($(wc -l <"$T/dlsym"); differ: $(comm -3 "$T/dlsym" "$T/linked" | paste -sd' '))" \
	bash -c "[ -s '$T/dlsym' ] && cmp -s '$T/dlsym' '$T/linked'"

# Built from a fresh clone of this commit, into O=
git clone -q --no-checkout "$PWD" "$T/src" && git -C "$T/src" checkout -q "$head"
ok $? "a fresh clone of $head"
timeout 1200 make -C "$T/src" deb O="$T/out" >"$T/build.log" 2>&1
rc=$?
ok $rc "make deb builds the package ($(tail -1 "$T/build.log"))"
[ $rc -eq 0 ] || diag "$(grep -E 'error|Error' "$T/build.log" | head -5)"
deb=$T/out/deb/latbpf_${version}_${arch}.deb
changes=$T/out/deb/latbpf_${version}_${arch}.changes
check "the .deb, .changes and .buildinfo are in O=/deb" \
	test -f "$deb" -a -f "$changes" -a -f "$T/out/deb/latbpf_${version}_${arch}.buildinfo"
check "nothing landed in the clone's parent" bash -c "! ls '$T'/*.deb '$T'/*.changes '$T'/*.buildinfo 2>/dev/null | grep -q ."
check "the clone is left clean (git status)" test -z "$(git -C "$T/src" status --porcelain)"
[ -f "$deb" ] || done_testing

timeout 300 lintian --fail-on error "$changes" >"$T/lintian" 2>"$T/lintian.err"
rc=$?
diag "lintian: $(grep -c . "$T/lintian") tags: $(cut -d' ' -f1-2 "$T/lintian" | sort | uniq -c | paste -sd';')"
check "lintian: no error (exit $rc; $(grep '^E:' "$T/lintian" | head -3 | paste -sd';'))" \
	bash -c "[ $rc = 0 ] && ! grep -q '^E:' '$T/lintian'"

dpkg-deb -f "$deb" Depends >"$T/depends"
diag "Depends: $(cat "$T/depends")"
for lib in libbpf1 libc6 libyaml-0-2 libcrypt1 libjansson4 libmicrohttpd12 libgnutls30; do
	check "Depends names $lib, with a version from its symbols" grep -q "$lib" "$T/depends"
done
check "Depends on libmicrohttpd12 with a version (dpkg-shlibdeps, not by hand)" \
	grep -qE 'libmicrohttpd12 \(>= [0-9.]+\)' "$T/depends"

# Installed
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./#/#; s#/$##' | sed '/^$/d' >"$T/paths"
while read -r p; do [ -e "$p" ] && echo "$p"; done <"$T/paths" >"$T/existed"
trap 'dpkg -P latbpf >/dev/null 2>&1; cleanup' EXIT
timeout 300 dpkg -i "$deb" >"$T/install.log" 2>&1
ok $? "dpkg -i installs it ($(tail -1 "$T/install.log"))"
dpkg -L latbpf >"$T/listed"
check "latbpf is in /usr/sbin, where libbpf-tools puts runqlat" test -x /usr/sbin/latbpf
check "and on root's PATH: $(command -v latbpf)" test "$(command -v latbpf)" = /usr/sbin/latbpf
out=$(/usr/sbin/latbpf --version)
check "latbpf --version: $out (this commit)" test "$out" = "latbpf $version (${head:0:12})"
for page in latbpf latbpf-bench latbpf-report; do
	out=$(man -w "$page" 2>&1)
	check "man -w $page: $out" test "$out" = "/usr/share/man/man8/$page.8.gz"
done
MANPAGER=cat timeout 30 man latbpf 2>/dev/null >"$T/man.txt"
check "man latbpf renders its OPTIONS and WEB CONFIGURATION" bash -c "grep -q '^OPTIONS' '$T/man.txt' && grep -q '^WEB CONFIGURATION' '$T/man.txt'"
# an interactive login shell, as a user opens one: bash-completion loads
# latbpf's completion on demand, from the package's file
out=$(timeout 30 bash -lic '_completion_loader latbpf >/dev/null 2>&1; complete -p latbpf' </dev/null 2>/dev/null)
check "complete -p latbpf in an interactive bash: $out" test "$out" = "complete -F _latbpf latbpf"
out=$(timeout 30 bash -lic '_completion_loader latbpf >/dev/null 2>&1
	COMP_WORDS=(latbpf --probes h); COMP_CWORD=2; COMP_LINE="latbpf --probes h"; COMP_POINT=${#COMP_LINE}
	_latbpf; echo "${COMPREPLY[*]}"' </dev/null 2>/dev/null)
check "and it completes: latbpf --probes h<TAB> -> $out" test "$out" = hiccup
timeout 60 systemd-analyze verify /lib/systemd/system/latbpf-exporter.service \
	/lib/systemd/system/latbpf-exporter.socket >"$T/verify" 2>&1
rc=$?
check "systemd-analyze verify: the service and the socket (exit $rc: $(head -3 "$T/verify" | paste -sd';'))" \
	bash -c "[ $rc = 0 ] && ! grep -q latbpf '$T/verify'"
timeout 60 systemd-analyze security --offline=true /lib/systemd/system/latbpf-exporter.service \
	>"$T/security" 2>&1
level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) \(.*\)/\1 \2/p' "$T/security")
diag "systemd-analyze security: $level"
check "systemd-analyze security: exposure 3.0 or less, OK ($level)" \
	bash -c "[ -n '$level' ] && awk -v l='${level%% *}' 'BEGIN { exit !(l + 0 <= 3.0) }'"
check "its ExecStart is the installed binary" grep -qx 'ExecStart=/usr/sbin/latbpf --no-tui $ARGS' \
	/lib/systemd/system/latbpf-exporter.service
check "EnvironmentFile is the conffile /etc/default/latbpf-exporter" \
	bash -c "dpkg-query -W -f '\${Conffiles}' latbpf | grep -q '/etc/default/latbpf-exporter'"
check "the service is not enabled or started by the install" \
	bash -c "! ls /etc/systemd/system/*/latbpf-exporter.* 2>/dev/null | grep -q ."

# Removed: every file the package brought, but its conffile; purged: that too
timeout 120 dpkg -r latbpf >"$T/remove.log" 2>&1
ok $? "dpkg -r removes it"
conffile=/etc/default/latbpf-exporter
left=$(while read -r p; do
	[ "$p" = /. ] || grep -qxF "$p" "$T/existed" || [ "$p" = "$conffile" ] || [ ! -e "$p" ] || echo "$p"
done <"$T/listed")
check "dpkg -r: every file of dpkg -L is gone but the conffile (left: $(echo $left | cut -c1-200))" \
	test -z "$left"
check "dpkg -r keeps the conffile until a purge" test -f "$conffile"
timeout 120 dpkg -P latbpf >"$T/purge.log" 2>&1
ok $? "dpkg -P purges it"
left=$(while read -r p; do
	[ "$p" = /. ] || grep -qxF "$p" "$T/existed" || [ ! -e "$p" ] || echo "$p"
done <"$T/listed")
check "dpkg -P: nothing of it is left (left: $(echo $left | cut -c1-200))" test -z "$left"
check "dpkg knows it no more" bash -c "! dpkg-query -W -f '\${db:Status-Abbrev}' latbpf 2>/dev/null | grep -q '^[^u]'"
check "no maintainer scripts or lists left in /var/lib/dpkg/info" bash -c "! ls /var/lib/dpkg/info/latbpf.* 2>/dev/null | grep -q ."
check "no systemd state left by deb-systemd-helper" \
	bash -c "! grep -rqs latbpf /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked"
trap cleanup EXIT

# make install: the same files under PREFIX (the man pages not gzipped,
# no Debian changelog and copyright); make uninstall: none left. From the
# package's build folder (the same commit's objects: not compiled a second
# time, 34 s here)
mi=$(ls -d "$T"/out/deb/latbpf-*/debian/build)
timeout 600 make -C "$T/src" install O="$mi" DESTDIR="$T/root" PREFIX=/usr SYSCONFDIR=/etc \
	UNITDIR=/lib/systemd/system >"$T/mi.log" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
(cd "$T/root" && find . -type f | sed 's#^\.##' | sort) >"$T/mi.files"
dpkg-deb -c "$deb" | awk '$1 ~ /^-/ { print $6 }' | sed 's#^\./#/#; s#\.8\.gz$#.8#' |
	grep -vE '^/usr/share/doc/latbpf/(changelog\.gz|copyright)$' | sort >"$T/deb.files"
check "make install installs the package's files ($(wc -l <"$T/mi.files"); differ: $(comm -3 "$T/mi.files" "$T/deb.files" | paste -sd' '))" \
	bash -c "[ -s '$T/mi.files' ] && cmp -s '$T/mi.files' '$T/deb.files'"
check "the same units, word for word" bash -c "dpkg-deb --fsys-tarfile '$deb' | tar -xOf - ./lib/systemd/system/latbpf-exporter.service | cmp -s - '$T/root/lib/systemd/system/latbpf-exporter.service'"
timeout 120 make -C "$T/src" uninstall O="$mi" DESTDIR="$T/root" PREFIX=/usr SYSCONFDIR=/etc \
	UNITDIR=/lib/systemd/system >"$T/mu.log" 2>&1
ok $? "make uninstall"
check "make uninstall removes every file ($(find "$T/root" -type f | head -3 | paste -sd' '))" \
	test -z "$(find "$T/root" -type f)"
done_testing
