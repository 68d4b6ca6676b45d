build2/tools/latwork: tools/latwork.c
