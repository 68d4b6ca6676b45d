build2/src/tty.o: src/tty.c src/tty.h
src/tty.h:
