build2/src/hlog.o: src/hlog.c src/hlog.h include/latbpf/hist.h
src/hlog.h:
include/latbpf/hist.h:
