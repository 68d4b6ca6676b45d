build2/tools/demo: tools/demo.c
