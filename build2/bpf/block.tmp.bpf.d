build2/bpf/block.tmp.bpf.o: bpf/block.bpf.c vmlinux/x86/vmlinux.h \
  include/latbpf/block.h include/latbpf/hist.h bpf/target.bpf.h \
  include/latbpf/target.h bpf/compat.bpf.h

vmlinux/x86/vmlinux.h:

include/latbpf/block.h:

include/latbpf/hist.h:

bpf/target.bpf.h:

include/latbpf/target.h:

bpf/compat.bpf.h:
