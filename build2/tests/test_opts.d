build2/tests/test_opts.t: tests/unit/tap.h
