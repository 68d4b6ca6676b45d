build2/tests/test_hiccup.t: tests/unit/tap.h
