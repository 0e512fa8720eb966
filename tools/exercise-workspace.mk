# generated from chapters/26-exercises.nw; edit the book, not this file
# The workspace of one exercise of "Multi-Head Attention, from the Ground Up".
#   make test        build, then run the exercise's tests
#   make all-tests   build, then run every test of the book
include exercise.mk
.DEFAULT_GOAL := test
SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.RECIPEPREFIX := >
.DELETE_ON_ERROR:
.SUFFIXES:
CFLAGS   ?= -O1 -g
override CFLAGS += $(BOOK_CFLAGS)
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wvla $(WERROR)
CPPFLAGS := -D_POSIX_C_SOURCE=200809L -Isrc -Ilearn -Iio -Icmd -Itables -Itests
LIB_OBJ  := $(patsubst %.c,build/obj/%.o,$(wildcard src/*.c learn/*.c io/*.c))
CMD_OBJ  := $(patsubst %.c,build/obj/%.o,$(filter-out cmd/main.c,$(wildcard cmd/*.c)))
TABLES_OBJ := $(patsubst %.c,build/obj/%.o,\
              $(filter-out tables/tables_main.c,$(wildcard tables/*.c)))
TEST_OBJ := $(patsubst tests/%.c,build/obj/tests/%.o,$(wildcard tests/*.c))
LIB_OBJ  += $(wildcard withheld/src/*.o withheld/learn/*.o withheld/io/*.o)
CMD_OBJ  += $(wildcard withheld/cmd/*.o)
TABLES_OBJ += $(wildcard withheld/tables/*.o)
TEST_OBJ += $(wildcard withheld/tests/*.o)

VIZ_SRC  := $(filter-out viz/main.c,$(wildcard viz/*.c))
ifneq ($(VIZ_SRC),)
VIZ_GIVEN    := $(filter-out withheld/viz/main.o,$(wildcard withheld/viz/*.o))
VIZ_PKGS     := sdl2 SDL2_ttf SDL2_image
VIZ_CFLAGS   := $(shell pkg-config --cflags $(VIZ_PKGS))
VIZ_OBJ      := $(patsubst viz/%.c,build/obj/viz/%.o,$(VIZ_SRC)) $(VIZ_GIVEN)
VIZ_TESTS    := build/viz-tests
VIZ_HEADLESS := SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software \
                MHA_MODEL_DIR=../models/induction
build/obj/viz/%.o: viz/%.c
> @mkdir -p $(@D)
> $(CC) $(CPPFLAGS) -Iviz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
build/obj/tests/viz/%.o: tests/viz/%.c
> @mkdir -p $(@D)
> $(CC) $(CPPFLAGS) -Iviz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
VIZ_TEST_OBJ := $(patsubst tests/viz/%.c,build/obj/tests/viz/%.o,$(wildcard tests/viz/*.c)) \
                $(wildcard withheld/tests/viz/*.o)
build/viz-tests: $(VIZ_TEST_OBJ) build/obj/tests/reached_end.o $(VIZ_OBJ) build/libmha.a
> $(CC) $(CFLAGS) $(REACHED_END) -o $@ $^ -lcriterion $(shell pkg-config --libs $(VIZ_PKGS)) -lm
endif
RUN      := --jobs=2
REACHED_END := -Wl,--wrap=criterion_internal_test_main

.PHONY: test all-tests clean
test: build/tests build/mha $(VIZ_TESTS)
> cd tests && status=0; ../build/tests $(RUN) --filter='$(TESTS)' || status=1; \
>   $(if $(VIZ_TESTS),$(VIZ_HEADLESS) ../build/viz-tests $(RUN) --filter='$(TESTS)' || status=1;) \
>   exit $$status
all-tests: build/tests build/mha $(VIZ_TESTS)
> cd tests && status=0; ../build/tests $(RUN) || status=1; \
>   $(if $(VIZ_TESTS),$(VIZ_HEADLESS) ../build/viz-tests $(RUN) || status=1;) exit $$status
build/obj/%.o: %.c
> @mkdir -p $(@D)
> $(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
build/libmha.a: $(LIB_OBJ)
> rm -f $@ && ar rcs $@ $^
build/libmha-cmd.a: $(CMD_OBJ)
> rm -f $@ && ar rcs $@ $^
build/libmha-tables.a: $(TABLES_OBJ)
> rm -f $@ && ar rcs $@ $^
build/mha: build/obj/cmd/main.o build/libmha-cmd.a build/libmha.a
> $(CC) $(CFLAGS) -o $@ $^ -lm
build/tests: $(TEST_OBJ) build/libmha-cmd.a build/libmha-tables.a build/libmha.a
> $(CC) $(CFLAGS) $(REACHED_END) -o $@ $^ -lcriterion -lm
clean:
> rm -rf build
-include $(wildcard build/obj/*.d build/obj/*/*.d build/obj/tests/*/*.d)
