build2/src/block.o: src/block.c src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h \
 include/latbpf/block.h build2/block.skel.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
include/latbpf/block.h:
build2/block.skel.h:
