build2/tests/test_escape.t: tests/unit/tap.h
