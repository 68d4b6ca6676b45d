build2/src/hiccup.o: src/hiccup.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h \
 src/schedcore.h build2/sched.skel.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
src/schedcore.h:
build2/sched.skel.h:
