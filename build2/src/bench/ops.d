build2/src/bench/ops.o: src/bench/ops.c src/bench/bench.h src/lat.h \
 include/latbpf/hist.h include/latbpf/target.h include/latbpf/hiccup.h \
 src/snap.h
src/bench/bench.h:
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
