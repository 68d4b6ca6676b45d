build2/src/main.o: src/main.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h \
 src/bench/bench.h src/lat.h src/schedcore.h src/self.h src/target.h \
 src/tty.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
src/bench/bench.h:
src/lat.h:
src/schedcore.h:
src/self.h:
src/target.h:
src/tty.h:
