build2/tests/test_bench.t: tests/unit/tap.h
