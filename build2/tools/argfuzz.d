build2/tools/argfuzz: tools/argfuzz.c tools/../tests/unit/argfuzz.h
tools/../tests/unit/argfuzz.h:
