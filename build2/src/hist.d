build2/src/hist.o: src/hist.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
