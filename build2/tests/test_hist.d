build2/tests/test_hist.t: tests/unit/tap.h
