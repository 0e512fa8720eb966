# generated from chapters/26-exercises.nw; edit the book, not this file
# The workspace of one exercise of "Multi-Head Attention, from the Ground Up".
#   make test        build, then run the exercise's tests, each read as the grader does
#   make all-tests   build, then run every test of the book
#   make hint N=1    print the first hint (N=2, N=3 give away more)
#   make submit      copy the one graded file to submit/, the file to hand in
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

.PHONY: test all-tests clean hint submit
test: build/tests build/mha $(VIZ_TESTS)
> bash tools/exercise-test.sh '$(TESTS)'
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
hint:
> @n='$(or $(N),1)'; total=$$(grep -c . hints.txt || true); \
>   [[ $$n =~ ^[0-9]+$$ && $$n -ge 1 && $$n -le $$total ]] || \
>   { echo "make hint: this exercise has hints 1 to $$total (make hint N=1)" >&2; exit 2; }; \
>   echo "exercise $(EXERCISE), hint $$n of $$total:"; \
>   sed -n "$${n}p" hints.txt | fold -s -w 76 | sed 's/^/    /'
submit:
> @for key in 'BEGIN EXERCISE $(EXERCISE):' 'END EXERCISE $(EXERCISE) */'; do \
>   grep -qF "$$key" $(GRADED) || \
>   { echo "make submit: the EXERCISE lines of $(GRADED) are damaged" >&2; exit 2; }; done
> @mkdir -p submit && cp $(GRADED) submit/$(EXERCISE).c
> @echo "submit: hand in submit/$(EXERCISE).c, a copy of $(GRADED) (only the lines" \
>   "between its EXERCISE lines are graded)"
-include $(wildcard build/obj/*.d build/obj/*/*.d build/obj/tests/*/*.d)
