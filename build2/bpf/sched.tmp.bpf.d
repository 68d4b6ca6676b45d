build2/bpf/sched.tmp.bpf.o: bpf/sched.bpf.c vmlinux/x86/vmlinux.h \
  include/latbpf/sched.h include/latbpf/hist.h bpf/target.bpf.h \
  include/latbpf/target.h bpf/compat.bpf.h bpf/clock.bpf.h \
  bpf/hiccup.bpf.h include/latbpf/hiccup.h bpf/fault.bpf.h \
  include/latbpf/fault.h

vmlinux/x86/vmlinux.h:

include/latbpf/sched.h:

include/latbpf/hist.h:

bpf/target.bpf.h:

include/latbpf/target.h:

bpf/compat.bpf.h:

bpf/clock.bpf.h:

bpf/hiccup.bpf.h:

include/latbpf/hiccup.h:

bpf/fault.bpf.h:

include/latbpf/fault.h:
