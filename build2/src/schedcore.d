build2/src/schedcore.o: src/schedcore.c src/schedcore.h src/lat.h \
 include/latbpf/hist.h include/latbpf/target.h include/latbpf/hiccup.h \
 src/snap.h build2/sched.skel.h
src/schedcore.h:
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
build2/sched.skel.h:
