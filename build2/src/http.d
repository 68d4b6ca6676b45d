build2/src/http.o: src/http.c src/http.h src/lat.h include/latbpf/hist.h \
 include/latbpf/target.h include/latbpf/hiccup.h src/snap.h
src/http.h:
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
