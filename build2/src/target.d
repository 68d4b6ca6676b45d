build2/src/target.o: src/target.c src/target.h src/lat.h \
 include/latbpf/hist.h include/latbpf/target.h include/latbpf/hiccup.h \
 src/snap.h
src/target.h:
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
