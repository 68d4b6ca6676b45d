build2/tests/test_table.t: tests/unit/tap.h
