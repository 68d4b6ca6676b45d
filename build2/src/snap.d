build2/src/snap.o: src/snap.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
