build2/src/sched.o: src/sched.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h \
 include/latbpf/sched.h src/schedcore.h build2/sched.skel.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
include/latbpf/sched.h:
src/schedcore.h:
build2/sched.skel.h:
