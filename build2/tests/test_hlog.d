build2/tests/test_hlog.t: tests/unit/tap.h
