build2/tests/test_fuzz_opts.t: src/snap.h include/latbpf/hist.h
include/latbpf/hist.h:
