build2/bpf/tcp.tmp.bpf.o: bpf/tcp.bpf.c vmlinux/x86/vmlinux.h \
  include/latbpf/tcp.h include/latbpf/hist.h bpf/target.bpf.h \
  include/latbpf/target.h

vmlinux/x86/vmlinux.h:

include/latbpf/tcp.h:

include/latbpf/hist.h:

bpf/target.bpf.h:

include/latbpf/target.h:
