build2/bpf/floor.tmp.bpf.o: bpf/floor.bpf.c vmlinux/x86/vmlinux.h \
  include/latbpf/hist.h

vmlinux/x86/vmlinux.h:

include/latbpf/hist.h:
