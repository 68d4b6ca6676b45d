build2/src/report_json.o: src/report_json.c src/lat.h \
 include/latbpf/hist.h include/latbpf/target.h include/latbpf/hiccup.h \
 src/snap.h
src/lat.h:
include/latbpf/hist.h:
include/latbpf/target.h:
include/latbpf/hiccup.h:
src/snap.h:
