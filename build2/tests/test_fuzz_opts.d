build2/tests/test_fuzz_opts.t: include/latbpf/hist.h
