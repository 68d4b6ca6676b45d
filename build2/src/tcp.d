build2/src/tcp.o: src/tcp.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h \
 include/latbpf/tcp.h build2/tcp.skel.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
include/latbpf/tcp.h:
build2/tcp.skel.h:
