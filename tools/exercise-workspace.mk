# generated from chapters/13-exercises.nw; edit the book, not this file
# The workspace of one exercise of "Multi-Head Attention, from the Ground Up".
#   make test        build, then run the exercise's tests
#   make all-tests   build, then run every test of the book
include exercise.mk
SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.RECIPEPREFIX := >
.DELETE_ON_ERROR:
.SUFFIXES:
CFLAGS   ?= -O1 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wvla $(WERROR)
CPPFLAGS := -D_POSIX_C_SOURCE=200809L -Isrc -Itests
LIB_OBJ  := $(patsubst src/%.c,build/obj/%.o,$(filter-out src/main.c src/tables_main.c,$(wildcard src/*.c)))
TEST_OBJ := $(patsubst tests/%.c,build/obj/tests/%.o,$(wildcard tests/*.c))

.PHONY: test all-tests clean
test: build/tests build/mha
> cd tests && ../build/tests --jobs=2 --timeout=60 --filter='$(TESTS)'
all-tests: build/tests build/mha
> cd tests && ../build/tests --jobs=2 --timeout=60
build/obj/%.o: src/%.c
> @mkdir -p $(@D)
> $(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
build/obj/tests/%.o: tests/%.c
> @mkdir -p $(@D)
> $(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
build/libmha.a: $(LIB_OBJ)
> rm -f $@ && ar rcs $@ $^
build/mha: build/obj/main.o build/libmha.a
> $(CC) $(CFLAGS) -o $@ $^ -lm
build/tests: $(TEST_OBJ) build/libmha.a
> $(CC) $(CFLAGS) -o $@ $^ -lcriterion -lm
clean:
> rm -rf build
-include $(wildcard build/obj/*.d build/obj/tests/*.d)
