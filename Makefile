# Makefile for "Multi-Head Attention, from the Ground Up" -- a literate C program.
#
# The web (book.nw and chapters/*.nw) is the single source.  `make tangle`
# writes the committed sources in src/ tests/ viz/; the compiler reads a second
# tangle under build/L/ made with `notangle -L`, so errors and gdb point into
# the chapters.  See README.md for the commands a reader needs.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS   += --no-builtin-rules

# The web, in reading order: file order decides the order of += definitions.
NW      := book.nw $(sort $(wildcard chapters/*.nw))

CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wvla
CPPFLAGS:= -D_POSIX_C_SOURCE=200809L -I$(BUILD)/L/src -I$(BUILD)/L/cmd -I$(BUILD)/L/book
LDLIBS  := -lm

# Debian packages the project needs, by the command or file that proves each
# is present.  `make deps` installs only the missing ones.
DEPS_PKGS := noweb libcriterion-dev gcc clang make pkg-config \
             texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern \
             valgrind texlive-pictures
# Chapter 9 (fast): OpenMP threads (Clang's runtime is libomp).  OpenBLAS and
# PyTorch are needed only for the benchmark's comparisons and the golden
# fixtures, so `make bench` and `make golden` install them (deps-bench), not
# every build.
DEPS_PKGS += libomp-dev
BENCH_PKGS := libopenblas-dev python3-torch python3-numpy
override CFLAGS += -fopenmp

.PHONY: all deps deps-bench tangle test check lint book demo bench clean golden check-tangle clang-build train-figure
all: $(BUILD)/mha $(BUILD)/libmha.a $(BUILD)/mha-tables $(BUILD)/tests

deps: PKGS = $(DEPS_PKGS)
deps-bench: PKGS = $(BENCH_PKGS)
deps deps-bench:
	@missing=""; \
	for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [[ -n "$$missing" ]]; then \
	  echo "make $@: installing missing Debian packages:$$missing"; \
	  sudo=""; [[ $$(id -u) -eq 0 ]] || sudo=sudo; \
	  $$sudo apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# ---------------------------------------------------------------- tangling
# Every root of the web is an output path.  Each committed file gets a banner
# naming the chapter that defines its root; cpif leaves unchanged files alone.
ROOTS_CMD = noroots $(NW) | sed -n 's/^<<\[\[\(.*\)\]\]>>$$/\1/p'

tangle: | deps
	@tmp=$$(mktemp); trap 'rm -f "$$tmp"' EXIT; \
	for root in $$($(ROOTS_CMD)); do \
	  chapter=$$(grep -l -F "<<[[$$root]]>>=" $(NW) | head -n 1); \
	  case "$$root" in \
	    *.py|*.mk|*.sh) banner="# generated from $$chapter; edit the book, not this file" ;; \
	    *)              banner="/* generated from $$chapter; edit the book, not this file */" ;; \
	  esac; \
	  mkdir -p "$$(dirname "$$root")" "$(BUILD)/L/$$(dirname "$$root")"; \
	  notangle -R"[[$$root]]" $(NW) > "$$tmp"; \
	  { echo "$$banner"; cat "$$tmp"; } | cpif "$$root"; \
	  case "$$root" in \
	    *.c|*.h) notangle -L -R"[[$$root]]" $(NW) > "$$tmp"; \
	             { echo "$$banner"; cat "$$tmp"; } | cpif "$(BUILD)/L/$$root" ;; \
	  esac; \
	done

# The build reads the #line copies; they are refreshed whenever the web changes.
$(BUILD)/.tangled: $(NW) | deps
	@$(MAKE) --no-print-directory tangle
	@mkdir -p $(BUILD) && touch $@

# Three libraries, by what a file is: src/ the attention library (no main,
# no printing), cmd/ the mha command, book/ the printers of the book's tables.
LIB_SRC   = $(sort $(wildcard src/*.c))
CMD_SRC   = $(filter-out cmd/main.c,$(sort $(wildcard cmd/*.c)))
BOOK_SRC  = $(filter-out book/tables_main.c,$(sort $(wildcard book/*.c)))
LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ   = $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
BOOK_OBJ  = $(BOOK_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC  = $(sort $(wildcard tests/*.c))
TEST_OBJ  = $(TEST_SRC:%.c=$(BUILD)/obj/%.o)

# A #line copy is current once the tangle has run; cpif keeps the timestamps of
# unchanged files, so only what a chapter edit really touched is recompiled.
$(BUILD)/L/%: $(BUILD)/.tangled
	@:

define compile_rule
$(BUILD)/obj/$(1)/%.o: $(BUILD)/L/$(1)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(WARN) -MMD -MP -c $$< -o $$@
endef
$(foreach dir,src cmd book,$(eval $(call compile_rule,$(dir))))

$(BUILD)/obj/tests/%.o: $(BUILD)/L/tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD)/L/tests $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/tests/*/*.d)

$(BUILD)/libmha.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/libmha-cmd.a: $(CMD_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/libmha-book.a: $(BOOK_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/mha: $(BUILD)/obj/cmd/main.o $(BUILD)/libmha-cmd.a $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/mha-tables: $(BUILD)/obj/book/tables_main.o $(BUILD)/libmha-book.a $(BUILD)/libmha-cmd.a $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests: $(TEST_OBJ) $(BUILD)/libmha-cmd.a $(BUILD)/libmha-book.a $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

# ---------------------------------------------------------------- using it
test: $(BUILD)/tests $(BUILD)/mha
	cd tests && ../$(BUILD)/tests --jobs=2

# The viewer when a display is there (chapter 11), else the terminal heatmaps.
demo: $(BUILD)/mha $(BUILD)/mha-viz
	@if [[ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]]; then \
	  echo "make demo: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no viewer;" \
	       "showing the terminal heatmaps of 'mha demo' instead"; \
	  $(BUILD)/mha demo; \
	else \
	  status=0; $(BUILD)/mha-viz || status=$$?; \
	  if [[ $$status -eq 3 ]]; then \
	    echo "make demo: the viewer could not open a window; showing 'mha demo' instead"; \
	    $(BUILD)/mha demo; \
	  else exit $$status; fi; \
	fi

# The batched chapter's table: the naive and batched versions at two shapes,
# one thread, by `mha bench` (the harness is the Measuring appendix).  The
# table goes into the book (figures/ is committed, so the book shows what was
# measured, on the machine it names).
BENCH_SHAPES := "--batch 1 --seq 256 --dim 256 --heads 4" "--batch 2 --seq 512 --dim 512 --heads 8"
BENCH_IMPLS  := naive batched
bench: $(BUILD)/mha
	@mkdir -p figures
	@for shape in $(BENCH_SHAPES); do for impl in $(BENCH_IMPLS); do \
	  $(BUILD)/mha bench --impl $$impl $$shape --threads 1 --reps 7; done; done | tee $(BUILD)/bench.txt
	@cpu=$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); \
	awk -v cpu="$$cpu" -v cores="$$(nproc)" -v day="$$(date +%Y-%m-%d)" -v cc="$(CC) $(CFLAGS)" ' \
	  { for (i = 1; i <= NF; i++) { split($$i, kv, "="); v[kv[1]] = kv[2] } \
	    shape = v["B"] " & " v["L"] " & " v["E"] " & " v["H"]; \
	    if (v["impl"] == "naive") base[shape] = v["ms"]; \
	    rows[++n] = shape " & " v["impl"] " & " v["ms"] " & " v["gflops"] " & " \
	                sprintf("%.1f", base[shape] / v["ms"]) "\\\\" } \
	  END { print "\\begin{tabular}{rrrrlrrr}\\toprule"; \
	        print "$$B$$ & $$L$$ & $$E$$ & $$H$$ & version & ms (median) & GFLOP/s & speed-up \\\\ \\midrule"; \
	        for (i = 1; i <= n; i++) print rows[i]; \
	        print "\\bottomrule\\end{tabular}\\\\[1ex]"; \
	        print "\\footnotesize Measured " day " on " cpu " (" cores " cores, one used), " cc "." }' \
	  $(BUILD)/bench.txt > figures/bench-batched.tex
	@echo "bench: wrote figures/bench-batched.tex"

# The training runs that chapter 15's figure and summary are drawn from.
train-figure: $(BUILD)/mha
	@mkdir -p figures
	$(BUILD)/mha train --history figures/training-2layer.tsv
	$(BUILD)/mha train --layers 1 --history figures/training-1layer.tsv

# PyTorch golden cases for the tests (needs python3-torch; the results are committed).
golden: | deps deps-bench
	/usr/bin/python3 tests/make_golden.py tests/golden

# ---------------------------------------------------------------- the viewer (chapters 12-viewer, 28-viewer-plumbing)
# build/mha-viz, the SDL2 viewer tangled into viz/; its tests (tests/viz/) need
# SDL, so they are a second test program, run headless by `make test`, plus a
# smoke test with a real window under Xvfb.  `make figures` draws the book's
# screenshots without a display.
DEPS_PKGS  += libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev fonts-dejavu-core xvfb xauth
VIZ_PKGS   := sdl2 SDL2_ttf SDL2_image
VIZ_CFLAGS  = $(shell pkg-config --cflags $(VIZ_PKGS) 2>/dev/null)
VIZ_LIBS    = $(shell pkg-config --libs $(VIZ_PKGS) 2>/dev/null)
VIZ_SRC     = $(filter-out main.c,$(notdir $(wildcard viz/*.c)))
VIZ_OBJ     = $(VIZ_SRC:%.c=$(BUILD)/obj/viz/%.o)
VIZ_FIGURES := figures/viewer-sentence.png figures/viewer-rose.png figures/viewer-switches.png
VIZ_HEADLESS := SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software
.PHONY: test-viz figures
all: $(BUILD)/mha-viz

$(BUILD)/obj/viz/%.o: $(BUILD)/L/viz/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD)/L/viz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/viz/%.o: $(BUILD)/L/tests/viz/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD)/L/viz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

-include $(wildcard $(BUILD)/obj/viz/*.d $(BUILD)/obj/tests/viz/*.d)

$(BUILD)/mha-viz: $(BUILD)/obj/viz/main.o $(VIZ_OBJ) $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(VIZ_LIBS) $(LDLIBS)

VIZ_TEST_OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tests/viz/*.c)))
$(BUILD)/viz-tests: $(VIZ_TEST_OBJ) $(VIZ_OBJ) $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion $(VIZ_LIBS) $(LDLIBS)

test: test-viz
test-viz: $(BUILD)/viz-tests $(BUILD)/mha-viz
	cd tests && $(VIZ_HEADLESS) ../$(BUILD)/viz-tests --jobs=2
	@dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; viz=$$(realpath $(BUILD)/mha-viz); \
	out=$$(cd "$$dir" && xvfb-run -a -s "-screen 0 1400x900x24" env SDL_VIDEODRIVER=x11 \
	       "$$viz" --press s --quit-after 40 2>&1) || { echo "$$out"; exit 1; }; \
	echo "$$out" | grep -q '^mha-viz: window 1280x800, renderer .*, driver x11$$' || \
	  { echo "test-viz: no window under Xvfb: $$out"; exit 1; }; \
	[[ "$$(head -c 8 "$$dir/mha-viz-001.png" | od -An -tx1 | tr -d ' ')" == 89504e470d0a1a0a ]] || \
	  { echo "test-viz: the s key saved no PNG from the window"; exit 1; }; \
	echo "test-viz: a real window under Xvfb, and its PNG: $$out"

# The screenshots are committed: the book uses them as they are, and only
# `make figures` draws them again (they show a measured time, so every drawing
# differs a little).
figures: $(BUILD)/mha-viz
	rm -f $(VIZ_FIGURES)
	$(MAKE) --no-print-directory $(VIZ_FIGURES)
figures/viewer-sentence.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --step 9 --hover 8,1 --size 1280x760 --screenshot $@
figures/viewer-rose.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --text "a rose is a rose is a rose" --step 8 \
	  --press m --size 1280x760 --screenshot $@
figures/viewer-switches.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --step 11 --press 'cp]]]3' --size 1280x760 --screenshot $@
$(BUILD)/book.pdf: | $(VIZ_FIGURES)
# ---------------------------------------------------------------- end of the viewer

# ---------------------------------------------------------------- training in the viewer (chapter 14-training-viewer)
# The viewer's trained model is the committed checkpoint models/induction/
# (written by `mha train --out models/induction`); MHA_MODEL_DIR overrides
# the compiled-in path at run time.  Its tests join the viewer's
# test program; its screenshot trains 700 steps on the worker (about 30 s).
VIZ_CFLAGS += -DMHA_MODEL_DIR='"$(CURDIR)/models/induction"'
VIZ_FIGURES += figures/viewer-training.png
figures/viewer-training.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --train --train-steps 700 --size 1280x760 --screenshot $@
$(BUILD)/book.pdf: | figures/viewer-training.png figures/viewer-trained.png
VIZ_FIGURES += figures/viewer-trained.png
figures/viewer-trained.png: | $(BUILD)/mha-viz
	MHA_MODEL_DIR=models/induction $(VIZ_HEADLESS) $(BUILD)/mha-viz --trained --step 24 \
	  --size 1280x760 --screenshot $@
# The worker and the window under ThreadSanitizer: the whole viewer is built
# again with -fsanitize=thread under $(BUILD)/tsan, and the race program runs.
.PHONY: test-training-race
check: test-training-race
test-training-race: | deps
	$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan CFLAGS='-O1 -g -fsanitize=thread' \
	  $(BUILD)/tsan/race-training
	$(VIZ_HEADLESS) OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 $(BUILD)/tsan/race-training
# (It lives in tests/race/, apart from the test programs' sources, for it has a main.)
$(BUILD)/obj/tests/race/%.o: $(BUILD)/L/tests/race/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(BUILD)/L/viz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(BUILD)/race-training: $(BUILD)/obj/tests/race/race_training.o $(VIZ_OBJ) $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(VIZ_LIBS) $(LDLIBS)
# ---------------------------------------------------------------- end of training in the viewer

# ---------------------------------------------------------------- the book
$(BUILD)/book.tex: $(NW) | deps
	@mkdir -p $(BUILD)
	noweave -delay -index $(NW) > $@

book: $(BUILD)/book.pdf
$(BUILD)/book.pdf: $(BUILD)/book.tex $(BUILD)/mha-tables
	@mkdir -p $(BUILD)/tables
	$(BUILD)/mha-tables $(BUILD)/tables
	cd $(BUILD) && for pass in 1 2 3 4; do \
	  TEXINPUTS=.:tables:../figures: pdflatex -interaction=nonstopmode -halt-on-error book.tex > book.log || \
	    { grep -A5 '^!' book.log; exit 1; }; \
	  [[ ! -e book.idx ]] || makeindex -q book.idx; \
	  [[ $$pass -lt 2 ]] || ! grep -q 'Rerun to get' book.log || continue; [[ $$pass -lt 2 ]] || break; \
	done
	@! grep -E '^LaTeX Warning: (Reference|Citation).*undefined' $(BUILD)/book.log
	@echo "book: $(BUILD)/book.pdf ($$(grep -c '' $(BUILD)/book.log) log lines, no errors)"

# ---------------------------------------------------------------- checks
lint: | deps
	@stray=$$(noroots $(NW) | grep -v '^<<\[\[' || true); \
	if [[ -n "$$stray" ]]; then echo "lint: chunks that are neither used nor file roots:"; echo "$$stray"; exit 1; fi
	@echo "lint: every root of the web is an output path"

# Everything the web tangles to, which re-tangling must leave as committed.
TANGLED_DIRS := src cmd book tests viz tools bench figures/bench_report.py
check-tangle: tangle
	@changed=$$(git diff --name-only -- $(TANGLED_DIRS); git ls-files --others --exclude-standard -- $(TANGLED_DIRS)); \
	if [[ -n "$$changed" ]]; then \
	  echo "check: re-tangling changed files that git has not seen (edit the book, tangle, git add):"; \
	  echo "$$changed"; exit 1; fi
	@echo "check: re-tangling leaves $(TANGLED_DIRS) unchanged"

clang-build:
	$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/clang all $(BUILD)/clang/tests

# ---------------------------------------------------------------- hardening (chapter 12)
# make sanitize: the library and the whole suite under ASan + UBSan.
# make valgrind: the command-line tests and real mha runs under memcheck.
# make tsan:     the reentrancy test under ThreadSanitizer.
# make fuzz:     each libFuzzer target for FUZZ_SECONDS; any finding fails.
# `make check` runs all four.  Each uses its own BUILD directory.  The fuzz
# targets work in a private directory, so they get absolute paths.
.PHONY: sanitize valgrind tsan fuzz
# Keep the #line copies: deleted as intermediates, they were missing when a
# later build in the same directory needed to recompile one of them.
.PRECIOUS: $(BUILD)/L/%
DEPS_PKGS += libclang-rt-14-dev   # libFuzzer and the sanitizer runtimes for clang
SAN_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/asan CFLAGS="$(SAN_CFLAGS)" \
	  $(BUILD)/asan/tests $(BUILD)/asan/mha
	cd tests && $(SAN_ENV) MHA_BINARY=../$(BUILD)/asan/mha ../$(BUILD)/asan/tests --jobs=2

# The passes' recipes are scripts tangled from the hardening appendix.
valgrind: $(BUILD)/mha $(BUILD)/tests
	bash tools/valgrind.sh $(BUILD)

# Criterion's runner cannot start under ThreadSanitizer, so the reentrancy
# check (tests/reentrancy.c) also has a program of its own.
$(BUILD)/tsan-reentrancy: $(BUILD)/obj/tests/tsan/tsan_reentrancy.o $(BUILD)/obj/tests/reentrancy.o \
                          $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

tsan:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan CFLAGS="-O1 -g -fsanitize=thread" \
	  $(BUILD)/tsan/tsan-reentrancy
	@# libgomp is not built with ThreadSanitizer, so TSan cannot see OpenMP's own
	@# barriers and reports races inside chapter 9's parallel regions that are not
	@# there.  The question here is reentrancy between two callers' threads, so the
	@# library runs each call on one OpenMP thread.
	OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(BUILD)/tsan/tsan-reentrancy

FUZZ_SECONDS      ?= 60
FUZZ_MSAN_SECONDS ?= 20
# MemorySanitizer needs every line it runs instrumented, and the OpenMP runtime
# (libomp) that chapter 9's code calls is not: under MSan the command-line and
# forward targets stop in libomp at once, on values it initialised itself.
# So the MSan pass covers the reader alone, which never enters OpenMP.
FUZZ_MSAN_TARGETS := npy
FUZZ_TARGETS := npy cli forward
FUZZ_CFLAGS  := $(SAN_CFLAGS) -fsanitize=fuzzer-no-link
MSAN_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=memory -fsanitize-memory-track-origins \
                -fsanitize=fuzzer-no-link
$(BUILD)/fuzz-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz_harness.o $(BUILD)/libmha-cmd.a $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Each target runs FUZZ_SECONDS under ASan + UBSan, then FUZZ_MSAN_SECONDS
# under MemorySanitizer (uninitialised reads, which ASan does not see).
fuzz:
	$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/fuzz CFLAGS="$(FUZZ_CFLAGS)" \
	  $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz-%)
	$(MAKE) --no-print-directory CC=clang BUILD=$(BUILD)/fuzz-msan CFLAGS="$(MSAN_CFLAGS)" \
	  $(FUZZ_MSAN_TARGETS:%=$(BUILD)/fuzz-msan/fuzz-%)
	bash tools/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_MSAN_SECONDS) "$(FUZZ_TARGETS)" "$(FUZZ_MSAN_TARGETS)"

check: lint check-tangle
	$(MAKE) --no-print-directory test
	$(MAKE) --no-print-directory clang-build
	$(MAKE) --no-print-directory book
	$(MAKE) --no-print-directory exercises-verify book-student
	$(MAKE) --no-print-directory sanitize   # chapter 12
	$(MAKE) --no-print-directory valgrind
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory fuzz

# ---------------------------------------------------------------- exercises (chapter 13)
# The exercises are marked in the web; tools/exercise.sh (tangled from
# chapter 13) lists them, writes and grades workspaces, and filters the web
# for the student edition, which leaves out the answers appendix.
EXERCISE_TOOL = NW="$(NW)" EXERCISE_CFLAGS="$(filter-out -O% -g,$(CFLAGS))" bash tools/exercise.sh
NW_STUDENT   := $(filter-out chapters/95-answers.nw,$(NW))
.PHONY: exercises exercise exercise-check exercises-verify book-student

exercises: | deps
	@$(EXERCISE_TOOL) list

exercise: | deps
	@[[ -n "$(EX)" ]] || { echo "usage: make exercise EX=id [DIR=path]" >&2; exit 2; }
	@$(EXERCISE_TOOL) create "$(EX)" "$(or $(DIR),$(BUILD)/exercises/$(EX))"
	@echo "exercise: wrote $(or $(DIR),$(BUILD)/exercises/$(EX)) (see its README.md)"

exercise-check: | deps
	@[[ -n "$(EX)" && -n "$(DIR)" ]] || { echo "usage: make exercise-check EX=id DIR=path" >&2; exit 2; }
	@$(EXERCISE_TOOL) check "$(EX)" "$(DIR)"

exercises-verify: | deps
	@$(EXERCISE_TOOL) verify

book-student: $(BUILD)/book-student.pdf
$(BUILD)/student/book-student.tex: $(NW) tools/exercise.sh | deps
	@rm -rf $(BUILD)/student && mkdir -p $(BUILD)/student
	NW="$(NW_STUDENT)" bash tools/exercise.sh student-web $(BUILD)/student/web > $(BUILD)/student/files
	noweave -delay -index $$(cat $(BUILD)/student/files) > $@
	@for id in $$($(EXERCISE_TOOL) list | awk '$$3 == "coding" { print $$1 }'); do \
	  grep -qF "(your code here: exercise $$id)" $$(cat $(BUILD)/student/files) || \
	    { echo "book-student: exercise $$id is not hidden"; exit 1; }; \
	done
$(BUILD)/book-student.pdf: $(BUILD)/student/book-student.tex $(BUILD)/mha-tables
	@mkdir -p $(BUILD)/tables
	$(BUILD)/mha-tables $(BUILD)/tables
	cd $(BUILD)/student && for pass in 1 2 3 4; do \
	  TEXINPUTS=.:$(CURDIR)/$(BUILD)/tables:$(CURDIR)/figures: pdflatex -interaction=nonstopmode -halt-on-error book-student.tex > book-student.log || \
	    { grep -A5 '^!' book-student.log; exit 1; }; \
	  [[ ! -e book-student.idx ]] || makeindex -q book-student.idx; \
	  [[ $$pass -lt 2 ]] || ! grep -q 'Rerun to get' book-student.log || continue; [[ $$pass -lt 2 ]] || break; \
	done
	@! grep -E '^LaTeX Warning: (Reference|Citation).*undefined' $(BUILD)/student/book-student.log
	cp $(BUILD)/student/book-student.pdf $@
# ---------------------------------------------------------------- end of exercises

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------- the fast chapters
# `make bench` also runs the fast chapters' comparison: the blocked version
# against PyTorch (bench/bench_torch.py, run by Debian's /usr/bin/python3) and
# an OpenBLAS layer (bench/sgemm_openblas.c, built only here, with mha bench's
# helpers from libmha-cmd.a), in one run.  The harness is the Measuring
# appendix.  It writes figures/bench-fast.txt (the raw lines), bench-fast.tex,
# bench-steps.tex, bench-decode.tex, bench-numbers.tex and roofline.pdf.
FAST_BIG     := --batch 1 --seq 2048 --dim 768 --heads 12
FAST_BATCH   := --batch 8 --seq 512 --dim 512 --heads 8
FAST_SMALL   := --batch 1 --seq 256 --dim 256 --heads 4
FAST_THREADS ?= 2
TORCH_PY     := /usr/bin/python3

$(BUILD)/sgemm-openblas: bench/sgemm_openblas.c $(BUILD)/libmha-cmd.a $(BUILD)/libmha.a | deps-bench
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $< -o $@ $(BUILD)/libmha-cmd.a $(BUILD)/libmha.a \
	  -lopenblas $(LDLIBS)

.PHONY: bench-fast
bench: bench-fast
bench-fast: $(BUILD)/mha $(BUILD)/sgemm-openblas | deps deps-bench
	@m="$(BUILD)/mha bench"; t=$(FAST_THREADS); o=$(BUILD)/sgemm-openblas; \
	py="$(TORCH_PY) bench/bench_torch.py --reps 7"; \
	{ for n in 1 $$t; do $$m --peak --threads $$n; $$m --bandwidth --threads $$n; done; \
	  $$m --denormals; \
	  for i in naive batched; do $$m --impl $$i $(FAST_SMALL) --threads 1 --reps 7; done; \
	  for n in 1 $$t; do $$m --impl blocked $(FAST_SMALL) --threads $$n --reps 7; done; \
	  for n in 1 $$t; do $$py --threads $$n "1 256 256 4 0"; done; $$o 1 256 256 4 0 7 $$t; \
	  for n in 1 $$t; do $$m --impl blocked $(FAST_BIG) --threads $$n --reps 7; done; \
	  for p in proj attention; do $$m --impl blocked $(FAST_BIG) --threads $$t --reps 7 --part $$p; done; \
	  $$m --impl blocked $(FAST_BIG) --threads $$t --reps 7 --part proj --half-kc; \
	  for n in 1 $$t; do $$py --threads $$n "1 2048 768 12 0"; done; $$o 1 2048 768 12 0 7 $$t; \
	  $$m --impl blocked $(FAST_BIG) --causal --threads $$t --reps 7; \
	  for n in 1 $$t; do $$py --threads $$n "1 2048 768 12 1"; done; $$o 1 2048 768 12 1 7 $$t; \
	  $$m --impl batched $(FAST_BATCH) --threads 1 --reps 3; \
	  for n in 1 $$t; do $$m --impl blocked $(FAST_BATCH) --threads $$n --reps 7; done; \
	  for i in scalar avx2; do MHA_ISA=$$i $$m --impl blocked $(FAST_BATCH) --threads 1 --reps 7; done; \
	  for n in 1 $$t; do $$py --threads $$n "8 512 512 8 0"; done; $$o 8 512 512 8 0 7 $$t; \
	  for i in naive batched; do $$m --decode --cache 4096 --dim 768 --heads 12 --impl $$i --threads 1 --reps 15; done; \
	  for n in 1 $$t; do $$m --decode --cache 4096 --dim 768 --heads 12 --impl blocked --threads $$n --reps 15; done; \
	  for n in 1 $$t; do $$py --threads $$n --reps 15 --decode "1 768 12 4096"; done; \
	} | tee $(BUILD)/bench-fast.txt
	@cp $(BUILD)/bench-fast.txt figures/bench-fast.txt
	@cpu=$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); \
	$(TORCH_PY) figures/bench_report.py $(BUILD)/bench-fast.txt figures \
	  "$$cpu, $$(nproc) cores, measured $$(date +%Y-%m-%d) with $(CC) $(CFLAGS)"
	@mkdir -p $(BUILD)/roofline && cp figures/roofline.tex $(BUILD)/roofline/ && \
	  (cd $(BUILD)/roofline && pdflatex -interaction=nonstopmode -halt-on-error roofline.tex > roofline.log) && \
	  cp $(BUILD)/roofline/roofline.pdf figures/roofline.pdf
	@echo "bench: wrote figures/bench-fast.tex bench-steps.tex bench-decode.tex bench-numbers.tex roofline.pdf"
