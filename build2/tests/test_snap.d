build2/tests/test_snap.t: tests/unit/tap.h
