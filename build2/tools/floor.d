build2/tools/floor: tools/floor.c build2/floor.skel.h
build2/floor.skel.h:
