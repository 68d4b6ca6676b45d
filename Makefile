# SPDX-License-Identifier: GPL-2.0
# latbpf: make [all|run|test|install|uninstall|deb|vmlinux|overhead|soak|clean] [O=build] [V=1]

O ?= build
VERSION := 0.1.0
# LATBPF_COMMIT: for a build from a copy without .git (make deb)
COMMIT := $(or $(LATBPF_COMMIT),$(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown))

# make install: the files the Debian package installs, under PREFIX
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/latbpf
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)

# Every bpf/X.bpf.c is an object with a skeleton; floor's is a tool's
# (tools/floor.c), the others the families' and the target filter's. The
# families themselves are listed in src/families/registry.c.
TOOL_SKELS := floor
BPF_OBJS := $(filter-out $(TOOL_SKELS),$(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c)))

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')
CLANG ?= clang
CC ?= cc
BPFTOOL ?= $(shell PATH="$$PATH:/usr/sbin:/sbin" command -v bpftool || echo bpftool)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS ?= -O2 -g

LAT_CFLAGS := $(CPPFLAGS) $(CFLAGS) $(WARN) -std=gnu11 -MMD -MP -Iinclude -Isrc -I$(O) -D_GNU_SOURCE
LDLIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lz -lm -lpthread -ldl \
	$(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson) \
	$(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) \
	$(shell pkg-config --libs libcrypt 2>/dev/null || echo -lcrypt)
# libmicrohttpd is not linked: src/output/http.c opens it for --prometheus
# only, and GnuTLS (its headers only here) comes with it
# v3: atomics with a result (cmpxchg); used only by tp_btf programs, which
# need 5.12 then, and the raw_tp twins stay loadable on 5.8
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-Wno-unused-function -Ivmlinux/$(ARCH) -Iinclude -Ibpf -MMD -MP

SRCS := $(filter-out src/main.c,$(wildcard src/*/*.c))
# the syscall table is generated (tools/gen-syscalls.sh)
OBJS := $(SRCS:src/%.c=$(O)/src/%.o) $(O)/syscall_table.o
SKELS := $(BPF_OBJS:%=$(O)/%.skel.h)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(O)/tests/%.t,$(wildcard tests/unit/*.c))
TOOLS := $(patsubst tools/%.c,$(O)/tools/%,$(wildcard tools/*.c))

.DELETE_ON_ERROR:
.SECONDARY: $(SKELS) $(patsubst %,$(O)/bpf/%.bpf.o,$(BPF_OBJS) $(TOOL_SKELS)) \
	$(patsubst %,$(O)/bpf/%.tmp.bpf.o,$(BPF_OBJS) $(TOOL_SKELS))
.PHONY: all run test unit install uninstall deb vmlinux overhead soak clean deps bpf-cflags \
	test-kernels FORCE

all: $(O)/latbpf $(TOOLS) $(UNIT_TESTS) $(O)/tests/mapkeys

deps:
	$(Q)tools/install-deps.sh --check >/dev/null || tools/install-deps.sh

$(O)/bpf/%.tmp.bpf.o: bpf/%.bpf.c | $(O)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/bpf/%.bpf.o: $(O)/bpf/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(O)/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# System call names from the compiler's own <asm/unistd.h> (linux-libc-dev),
# so the loader names the calls of the architecture it is built for.
$(O)/syscall_table.c: tools/gen-syscalls.sh | $(O)
	$(call msg,GEN,$@)
	$(Q)tools/gen-syscalls.sh $(CC) > $@

$(O)/syscall_table.o: $(O)/syscall_table.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) -c $< -o $@

# call_0..7 differ by a cycle or two: their loops and callees start on a
# 64-byte line each, so where the code lands does not rank them
$(O)/src/bench/call.o: LAT_CFLAGS += -falign-loops=64

# The version and commit, rewritten only when they change: what includes
# it is rebuilt after a commit, and nothing else is.
$(O)/version.h: FORCE | $(O)
	$(Q)printf '#define LATBPF_VERSION "%s"\n#define LATBPF_COMMIT "%s"\n' \
		'$(VERSION)' '$(COMMIT)' >$@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
FORCE:

$(O)/src/%.o: src/%.c $(SKELS) | $(O)/version.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LAT_CFLAGS) -c $< -o $@

$(O)/latbpf: $(O)/src/main.o $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Unit tests link the loader's objects (not main.o) and need no root.
$(O)/tests/%.t: tests/unit/%.c $(OBJS) | $(O)/tests $(O)/version.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $^ -o $@ $(LDLIBS)

# The fuzz test runs the parsers it feeds under ASan and UBSan: its own
# copies of their objects, the rest as built.
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRCS := src/cli/opts.c src/core/escape.c src/core/provenance.c src/bench/options.c
# (its generator, argfuzz.h, named: the .d of a multi-source build lacks it)
$(O)/tests/test_fuzz_opts.t: tests/unit/test_fuzz_opts.c $(FUZZ_SRCS) tests/unit/argfuzz.h \
		$(filter-out $(FUZZ_SRCS:src/%.c=$(O)/src/%.o),$(OBJS)) | $(O)/tests $(O)/version.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $(FUZZ_SAN) $(filter-out %.h,$^) -o $@ $(LDLIBS)

# threads.t's reader of a map's keys, built here: the guests of make
# test-kernels run it, where gcc took seconds under TCG
$(O)/tests/mapkeys: tests/mapkeys.c | $(O)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $< -o $@ $(LDLIBS)

$(O)/tools/%: tools/%.c | $(O)/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $< -o $@ -lpthread -lm

$(O)/tools/floor: tools/floor.c $(O)/src/core/proc.o $(O)/floor.skel.h | $(O)/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(LAT_CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS)

$(O) $(O)/bpf $(O)/tests $(O)/tools:
	$(Q)mkdir -p $@

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/run-demo.sh $(O)

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh $(O)

unit: $(UNIT_TESTS)
	$(Q)prove -f $(UNIT_TESTS)

# The flags every BPF object builds with (ARCH=... for another architecture):
# tests/integration/build.t compiles with these for each committed vmlinux.h.
bpf-cflags:
	@echo $(BPF_CFLAGS)

# The kernel-dependent tests on Debian's 6.1 and 6.1-rt under qemu
# (tools/kernels/test-kernels.sh; KERNELS=... for others).
test-kernels: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/kernels/test-kernels.sh $(O)

overhead: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/overhead.sh $(O)

# A long run under process, thread and pid churn (tools/soak.sh; not in CI):
# SOAK_MINUTES=30, SOAK_SAMPLE_S=10, results in $(O)/soak/ (SOAK_OUT=...).
soak: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/soak.sh $(O)

MANPAGES := $(wildcard man/*.8)
DOCS := README.md $(wildcard docs/*)
# what install copies, as mode:source:destination (a .in with the paths it
# names filled in); uninstall removes the destinations
INSTALLED = 0755:$(O)/latbpf:$(SBINDIR)/latbpf \
	$(foreach m,$(MANPAGES),0644:$(m):$(MANDIR)/man8/$(notdir $(m))) \
	0644:completion/latbpf.bash:$(BASHCOMPDIR)/latbpf \
	0644:systemd/latbpf-exporter.service.in:$(UNITDIR)/latbpf-exporter.service \
	0644:systemd/latbpf-exporter.socket:$(UNITDIR)/latbpf-exporter.socket \
	0644:systemd/latbpf-exporter.default:$(SYSCONFDIR)/default/latbpf-exporter \
	0644:systemd/web-config.example.yml:$(DOCDIR)/examples/web-config.yml \
	$(foreach d,$(DOCS),0644:$(d):$(DOCDIR)/$(d))

install: $(O)/latbpf
	$(Q)set -e; for f in $(INSTALLED); do \
		m=$${f%%:*}; r=$${f#*:}; src=$${r%%:*}; dst=$(DESTDIR)$${r#*:}; \
		echo "  INSTALL  $$dst"; install -D -m $$m $$src $$dst; \
		case $$src in *.in) sed -i -e 's|@SBINDIR@|$(SBINDIR)|g' \
			-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $$dst ;; esac; \
	done

uninstall:
	$(Q)for f in $(INSTALLED); do \
		dst=$(DESTDIR)$${f##*:}; [ ! -e $$dst ] || { echo "  RM       $$dst"; rm -f $$dst; }; \
	done
	$(Q)rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# The Debian package (debian/), built with dpkg-buildpackage from a copy of
# the tree's files (tracked, and new ones git does not ignore) in
# $(O)/deb/latbpf-VERSION: dpkg-buildpackage writes the .deb, .buildinfo
# and .changes next to the tree it builds, so they land in $(O)/deb/, not
# in the checkout's parent.
DEB_DIR = $(O)/deb
deb:
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/latbpf-$(VERSION)
	$(Q)if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null; \
	else \
		tar --exclude=./$(O) --exclude=./.git -cf - .; \
	fi | tar -C $(DEB_DIR)/latbpf-$(VERSION) -xf -
	$(Q)cd $(DEB_DIR)/latbpf-$(VERSION) && \
		LATBPF_COMMIT=$(COMMIT) dpkg-buildpackage -us -uc -b -Jauto
	$(Q)ls $(DEB_DIR)/*.deb

vmlinux:
	tools/gen-vmlinux.sh $(ARCH)

clean:
	rm -rf $(O)

-include $(wildcard $(O)/bpf/*.d $(O)/src/*.d $(O)/src/*/*.d $(O)/tests/*.d $(O)/tools/*.d)
