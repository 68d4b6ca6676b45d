build2/src/bench/run.o: src/bench/run.c src/bench/bench.h src/lat.h \
 include/latbpf/hist.h include/latbpf/target.h include/latbpf/hiccup.h \
 src/snap.h
src/bench/bench.h:
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
