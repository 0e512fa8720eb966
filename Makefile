# Makefile for "Multi-Head Attention, from the Ground Up" -- a literate C program.
#
# The web (book.nw and chapters/*.nw) is the single source.  `make tangle`
# writes the committed sources in src/ learn/ io/ cmd/ tables/ tests/ viz/ tools/; the
# compiler reads a second tangle under build/L/ made with `notangle -L`, so
# errors and gdb point into the chapters.  One section per concern:
#   the web        deps, tangle
#   the library    src/   -> build/libmha.a       (attention only: no main, no printing, no files)
#   the model      learn/ -> build/libmha-learn.a (the small model, its trainer, designed heads)
#   the files      io/    -> build/libmha-io.a    (npy, layer files, checkpoint, the writer)
#   the command    cmd/   -> build/mha            (one file per subcommand)
#   the viewer     viz/   -> build/mha-viz
#   the tests      tests/ -> build/tests-lib (libmha.a alone), build/tests, build/viz-tests
#   the tables     tables/ -> build/mha-tables (the printers of the book's tables)
#   the book       build/book.pdf and build/companion.pdf; the student's edition
#   the checks     lint, check-tangle, sanitizers, valgrind, fuzzing, exercises: `make check`
#   the benchmark  `make bench`
# Recipes longer than a few lines are scripts in tools/, tangled from the book.

SHELL       := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS   += --no-builtin-rules

CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif
BUILD   ?= build
# The #line copies the compiler reads are the same for every build (only the
# flags differ), so the builds made inside this one ($(BUILD)/asan, /clang, /tsan,
# /fuzz, /coverage) share its copies and tangle nothing again.
LDIR    ?= $(BUILD)/L
export LDIR
TANGLED := $(dir $(LDIR)).tangled
# The checks build with one compiler per core (JOBS); the top level stays serial.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
PAR     := -j$(JOBS)
CFLAGS  ?= -O2 -g
override CFLAGS += -fopenmp
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wvla
CPPFLAGS:= -D_POSIX_C_SOURCE=200809L
# Each folder sees its own headers and those of the folders below it.
INC_SRC   := -I$(LDIR)/src
INC_LEARN := -I$(LDIR)/learn $(INC_SRC)
INC_IO    := -I$(LDIR)/io $(INC_LEARN)
INC_CMD   := -I$(LDIR)/cmd $(INC_IO)
INC_TABLES := -I$(LDIR)/tables $(INC_CMD)
LDLIBS  := -lm

.PHONY: all pieces-model pieces-figures viz-idle-cpu deps deps-tangle deps-bench deps-onnx deps-corpus deps-coverage tangle test corpus austen-baselines austen-model \
        austen-figures austen-quick austen-check austen-heads austen-prune heads-study \
        induction-heads austen-repeat austen-run circuit-model circuit-figures bench-lm profile-lm lm-torch-check \
        test-viz \
        check lint check-tangle check-figures clang-build book \
        book-student demo figures bench golden train-figure clean sanitize valgrind tsan fuzz \
        test-training-race exercises exercise exercise-check exercises-verify exercises-class grade hint exercise-sheet \
        exercise-lab alloc-sweep alloc-command io-sweep coverage
all: $(BUILD)/mha $(BUILD)/mha-viz $(BUILD)/mha-tables $(BUILD)/tests-lib $(BUILD)/tests \
     $(BUILD)/viz-tests

# ================================================================ the web
# Debian packages: `make deps` installs the missing ones (through sudo when not
# root).  OpenBLAS and PyTorch serve only the benchmark and the golden cases.
DEPS_PKGS  := noweb libcriterion-dev gcc clang make pkg-config valgrind libomp-dev \
              libclang-rt-14-dev texlive-latex-base texlive-latex-recommended \
              texlive-fonts-recommended texlive-pictures lmodern \
              libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev fonts-dejavu-core xvfb xauth \
              poppler-utils python3 bubblewrap
BENCH_PKGS := libopenblas-dev python3-torch python3-numpy texlive-latex-extra  # standalone.cls: the roofline
COVERAGE_PKGS := gcovr            # only `make coverage` needs it
CORPUS_PKGS := r-cran-janeaustenr  # the novels (brings R); only `make corpus` needs it
deps: PKGS = $(DEPS_PKGS)
deps-tangle: PKGS = noweb          # `make tangle` needs noweb and nothing else:
deps-tangle: TOOLS = notangle noroots       # its commands on the PATH are enough
deps-bench: PKGS = $(BENCH_PKGS)
deps-corpus: PKGS = $(CORPUS_PKGS)
deps-coverage: PKGS = $(COVERAGE_PKGS)
# ONNX Runtime, an optional peer of the attention core in `make bench` only: the npm
# package with its install scripts off (they fetch GPU libraries; the CPU one ships in
# the package), in $(BUILD)/onnx, never committed.  Without npm or the network the
# benchmark leaves its rows out.
ONNX_VERSION := 1.30.0
deps-bench: deps-onnx
deps-onnx:
	@[[ -f $(BUILD)/onnx/node_modules/onnxruntime-node/package.json ]] && exit 0; \
	command -v npm > /dev/null && command -v node > /dev/null && mkdir -p $(BUILD)/onnx && \
	  timeout 600 npm install --prefix $(BUILD)/onnx --ignore-scripts --no-audit --no-fund \
	    --fetch-retries 1 onnxruntime-node@$(ONNX_VERSION) > $(BUILD)/onnx/npm.log 2>&1 || \
	  echo "make deps-onnx: onnxruntime-node not installed (no npm or no network, see" \
	       "$(BUILD)/onnx/npm.log); make bench leaves ONNX Runtime out"
deps deps-tangle deps-bench deps-corpus deps-coverage:
	@[[ -n "$(TOOLS)" ]] && (for t in $(TOOLS); do command -v "$$t" > /dev/null || exit 1; done) && exit 0; \
	missing=$$(for p in $(PKGS); do dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | \
	            grep -q 'install ok installed' || echo "$$p"; done); \
	[[ -z "$$missing" ]] && exit 0; echo "make $@: installing missing Debian packages:" $$missing; \
	sudo=""; [[ $$(id -u) -eq 0 ]] || sudo=sudo; $$sudo apt-get update -qq; \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing

# The web, in reading order: file order decides the order of continued chunks.
NW        := book.nw $(sort $(wildcard chapters/*.nw))
ROOTS_CMD  = noroots $(NW) | sed -n 's/^<<\[\[\(.*\)\]\]>>$$/\1/p'
# Every root is an output path; each file gets a banner naming every chapter that
# feeds it, in the web's order, and an unchanged file (and its timestamp) is left
# alone.  notangle is noweb's front end, markup, piped into its back end, nt, and
# it reads the whole web every time; with two hundred roots, two or three times
# each, that was most of the tangle's time.  So the web is marked up once, in two
# streams (with tabs kept for the #line copies, as notangle -L does), and nt reads
# the stream for each root: the file itself, and for a C file its #line copy,
# whose directives also name the chapters that feed it; another root names them
# with a marker instead; the roots are shared between two shells, alternately.
# (noweb's mnt would write every root in one pass, but it takes its temporary
# file from /tmp whatever TMPDIR says.)  The temporary files
# go in $(BUILD)/tmp, so a read-only /tmp does not stop the tangle.  noweb's cpif
# is not used: it leaves its temporary file's path unquoted, and fails in a
# folder whose path has a space.
# Each chunk's name is kept as a comment at the head of its code in the committed
# C files, /* <<name>> */, so that a reader can walk from the code back to the
# book; the #line copies the compiler reads are made without them.  A chunk gets
# its comment when only C files use it, and not when a use of it sits in a
# preprocessor line or continues one, where a line of its own would end the
# directive (lint checks that none does).  The filter reads noweb's markup twice: the uses,
# then the stream.
define CHUNK_NAMES_AWK
function reach(n, kind,   k, list, m) {
    if (kind == "c") { if (n in c) return; c[n] = 1 } else { if (n in o) return; o[n] = 1 }
    m = split(uses[n], list, "\n")
    for (k = 2; k <= m; k++) reach(list[k], kind)
}
function clean(s) { gsub(/\*\//, "* /", s); gsub(/\/\*/, "/ *", s); return s }
FNR == 1 { pass++ }
pass == 1 && /^@begin docs/ { cur = ""; next }
pass == 1 && /^@defn / { cur = substr($$0, 7); if (cur ~ /^\[\[[^][ ]*\]\]$$/) root[cur] = 1; next }
pass == 1 && /^@text / { line = line substr($$0, 7); next }
pass == 1 && /^@nl/ { continued = line ~ /\\$$/; line = ""; next }
pass == 1 && /^@use / && cur != "" { n = substr($$0, 6); uses[cur] = uses[cur] "\n" n
                                     if (line ~ /^[ \t]*#/ || continued) directive[n] = 1; next }
pass == 2 && FNR == 1 { for (r in root) reach(r, r ~ /\.[ch]\]\]$$/ ? "c" : "o") }
pass == 2 { print }
pass == 2 && /^@defn / { name = substr($$0, 7)
                         named = !(name in root) && (name in c) && !(name in o) && !(name in directive)
                         next }
pass == 2 && /^@nl/ && named { print "@text /* <<" clean(name) ">> */"; print "@nl"; named = 0 }
endef
export CHUNK_NAMES_AWK
tangle: | deps-tangle
	@mkdir -p "$(BUILD)/tmp" && export TMPDIR="$$(cd "$(BUILD)/tmp" && pwd)" && \
	  scratch=$$(mktemp -d) && first= && \
	  trap '[[ -z "$$first" ]] || kill "$$first" 2>/dev/null || true; rm -rf "$$scratch"' EXIT && \
	  lib=$$(sed -n 's/^LIB=//p' "$$(command -v notangle)"); \
	  [[ -x "$$lib/markup" && -x "$$lib/nt" ]] || \
	    { echo "make tangle: noweb's markup and nt are not in '$$lib'" >&2; exit 1; }; \
	  put() { { echo "$$banner"; cat "$$1"; } > "$$scratch/$$w.out"; \
	          cmp -s "$$scratch/$$w.out" "$$2" || cp "$$scratch/$$w.out" "$$2"; }; \
	  roots=($$($(ROOTS_CMD))); \
	  [[ $${#roots[@]} -gt 0 ]] || { echo "make tangle: noroots found no file roots in the web" >&2; exit 1; }; \
	  dirs=(); for root in "$${roots[@]}"; do d=.; [[ "$$root" != */* ]] || d=$${root%/*}; \
	    dirs+=("$$d" "$(LDIR)/$$d"); done; mkdir -p "$${dirs[@]}"; \
	  "$$lib/markup" $(NW) > "$$scratch/markup"; "$$lib/markup" -t $(NW) > "$$scratch/web-t"; \
	  awk "$$CHUNK_NAMES_AWK" "$$scratch/markup" "$$scratch/markup" > "$$scratch/web"; \
	  tangle_roots() { local w=$$1 root chapters; shift; for root in "$$@"; do \
	  if [[ "$$root" == *.[ch] ]]; then \
	    "$$lib/nt" -t -L -R"[[$$root]]" < "$$scratch/web-t" > "$$scratch/$$w.lines"; \
	    chapters=$$(sed -n 's/^#line [0-9]* "\(.*\)"$$/\1/p' "$$scratch/$$w.lines"); \
	  else \
	    chapters=$$("$$lib/nt" -t -L'@@MHA-CHAPTER %F%N' -R"[[$$root]]" < "$$scratch/web-t" | \
	                sed -n 's/.*@@MHA-CHAPTER \(.*\)$$/\1/p'); \
	  fi; \
	  chapters=" $${chapters//$$'\n'/ } "; \
	  chapters=$$(for f in $(NW); do [[ "$$chapters" != *" $$f "* ]] || printf '%s, ' "$$f"; done); \
	  case "$$root" in *.py|*.mk|*.sh|*.awk) open='#'; close='' ;; *) open='/*'; close=' */' ;; esac; \
	  banner="$$open generated from $${chapters%, }; edit the book, not this file$$close"; \
	  "$$lib/nt" -R"[[$$root]]" < "$$scratch/web" > "$$scratch/$$w.file"; put "$$scratch/$$w.file" "$$root"; \
	  [[ "$$root" != *.[ch] ]] || put "$$scratch/$$w.lines" "$(LDIR)/$$root"; done; }; \
	  even=(); odd=(); for i in "$${!roots[@]}"; do \
	    if (( i % 2 )); then odd+=("$${roots[i]}"); else even+=("$${roots[i]}"); fi; done; \
	  tangle_roots a "$${even[@]}" & first=$$!; tangle_roots b "$${odd[@]}"; \
	  wait $$first; first=; \
	  mkdir -p $(dir $(TANGLED)) && touch $(TANGLED)

# The build reads the #line copies, refreshed whenever the web changes; the tangle
# keeps the timestamps of unchanged files, so an edit recompiles only what it
# touched.  They are kept: deleted as intermediates, a later build in the same
# directory could miss them.
$(TANGLED): $(NW) | deps
	@$(MAKE) --no-print-directory tangle
	@mkdir -p $(@D) && touch $@
$(LDIR)/%: $(TANGLED)
	@:
.PRECIOUS: $(LDIR)/%

# One compile rule per folder: $(1) the folder, $(2) its include paths and extra flags.
define compile_rule
$(BUILD)/obj/$(1)/%.o: $(LDIR)/$(1)/%.c | deps
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $(2) $$(CFLAGS) $$(WARN) -MMD -MP -c $$< -o $$@
endef
objects = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(2),$(sort $(wildcard $(1)/*.c))))

# ================================================================ the library
LIB_OBJ := $(call objects,src)
$(eval $(call compile_rule,src,$$(INC_SRC)))
$(BUILD)/libmha.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# ================================================================ the model and the files
LEARN_OBJ := $(call objects,learn)
$(eval $(call compile_rule,learn,$$(INC_LEARN)))
$(BUILD)/libmha-learn.a: $(LEARN_OBJ)
	rm -f $@ && ar rcs $@ $^
IO_OBJ := $(call objects,io)
$(eval $(call compile_rule,io,$$(INC_IO)))
$(BUILD)/libmha-io.a: $(IO_OBJ)
	rm -f $@ && ar rcs $@ $^
LIBS_BELOW_CMD := $(BUILD)/libmha-io.a $(BUILD)/libmha-learn.a $(BUILD)/libmha.a

# ================================================================ the command
CMD_OBJ := $(call objects,cmd,cmd/main.c)
$(eval $(call compile_rule,cmd,$$(INC_CMD)))
$(BUILD)/libmha-cmd.a: $(CMD_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/mha: $(BUILD)/obj/cmd/main.o $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The viewer when a display is there, else the terminal heatmaps.
demo: $(BUILD)/mha $(BUILD)/mha-viz
	@status=3; [[ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]] || { status=0; $(BUILD)/mha-viz || status=$$?; }; \
	[[ $$status -eq 3 ]] || exit $$status; \
	echo "make demo: no viewer window (no display, or it could not open);" \
	     "showing the terminal heatmaps of 'mha demo' instead"; $(BUILD)/mha demo

# The training runs that the learning chapter's figure is drawn from.
train-figure: $(BUILD)/mha
	@mkdir -p figures
	$(BUILD)/mha train --history figures/training-2layer.tsv
	$(BUILD)/mha train --layers 1 --history figures/training-1layer.tsv

# Jane Austen's six novels from Debian's r-cran-janeaustenr, split into a
# training and a held-out part (chapter "A language model of Jane Austen");
# the text is never committed.  The script prints both files' SHA-256.
corpus: $(BUILD)/corpus/valid.txt
$(BUILD)/corpus/valid.txt: tools/corpus.sh | deps deps-corpus
	bash tools/corpus.sh $(BUILD)/corpus
$(BUILD)/corpus/train.txt: $(BUILD)/corpus/valid.txt
	@:

# The n-gram baselines on that split (chapter "A language model of Jane
# Austen"): the table the book prints.  AUSTEN_TOKENIZER names a tokenizer
# directory for the token models; without it one of AUSTEN_VOCAB tokens is
# learned from the training text.
AUSTEN_VOCAB     ?= 2048
AUSTEN_TOKENIZER ?=
austen-baselines: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm baselines --train $(BUILD)/corpus/train.txt --valid $(BUILD)/corpus/valid.txt \
	  $(if $(AUSTEN_TOKENIZER),--tokenizer $(AUSTEN_TOKENIZER),--vocab $(AUSTEN_VOCAB)) \
	  --out figures/austen-baselines.tsv

# The committed model (chapter "A small GPT that reads Austen"): one run of
# `mha lm train` on the corpus into models/austen, the resume state beside
# the build; its history and training time become figures, then
# austen-figures scores the held-out text and writes two samples.
AUSTEN_MODEL  := --vocab 2048 --layers 4 --heads 8 --dim 256 --context 128 --batch 16 \
                 --steps 3600 --lr 0.003 --eval-every 200 --seed 1
AUSTEN_PROMPT := It was a fine morning, and
CORPUS        := --text $(BUILD)/corpus/train.txt --valid $(BUILD)/corpus/valid.txt
austen-model: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	rm -rf $(BUILD)/austen.state
	start=$$(date +%s) && $(BUILD)/mha lm train $(CORPUS) --out models/austen \
	  --state $(BUILD)/austen.state $(AUSTEN_MODEL) | tee $(BUILD)/austen-train.log && \
	tokens=$$(sed -n 's/^mha lm train: [0-9]* parameters, \([0-9]*\) training tokens.*/\1/p' \
	          $(BUILD)/austen-train.log) && \
	echo "seconds=$$(( $$(date +%s) - start )) threads=$${OMP_NUM_THREADS:-$$(nproc)} batch=16" \
	     "train_tokens=$$tokens cpu=$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
	     "(family $$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
	     "model $$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1))" > figures/austen-training.txt
	cp $(BUILD)/austen.state/history.tsv figures/austen-history.tsv
	$(MAKE) --no-print-directory austen-figures
austen-figures: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm eval models/austen --text $(BUILD)/corpus/valid.txt > $(BUILD)/austen-eval.txt
	for t in 0.7 1.0; do \
	  echo "# temperature=$$t seed=1 tokens=150 prompt=$(AUSTEN_PROMPT)" && \
	  $(BUILD)/mha lm generate models/austen --prompt "$(AUSTEN_PROMPT)" --tokens 150 \
	    --temperature $$t --seed 1 || exit 1; \
	done > $(BUILD)/austen-samples.txt
	mv $(BUILD)/austen-eval.txt figures/austen-eval.txt
	mv $(BUILD)/austen-samples.txt figures/austen-samples.txt

# The quick configuration: a usable model in minutes, whose held-out score
# must be below AUSTEN_QUICK_BPC (a run on two cores reached 1.875 in 15 minutes
# while other work shared the machine).
AUSTEN_QUICK     := --vocab 1024 --layers 4 --heads 8 --dim 128 --context 128 --batch 16 \
                    --steps 1000 --eval-every 100 --lr 3e-3
AUSTEN_QUICK_BPC := 1.90
austen-quick: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	rm -rf $(BUILD)/austen-quick $(BUILD)/austen-quick.state
	$(BUILD)/mha lm train $(CORPUS) --out $(BUILD)/austen-quick $(AUSTEN_QUICK)
	@score=$$($(BUILD)/mha lm eval $(BUILD)/austen-quick --text $(BUILD)/corpus/valid.txt) && \
	echo "austen-quick: $$score" && bpc=$$(sed 's/.*bits_per_char=\([0-9.]*\).*/\1/' <<< "$$score") && \
	awk -v b="$$bpc" -v t=$(AUSTEN_QUICK_BPC) 'BEGIN { exit !(b < t) }' || \
	  { echo "austen-quick: $$bpc bits per character, not below $(AUSTEN_QUICK_BPC)" >&2; exit 1; }

# make check: the committed model, scored again on the held-out text, gives
# the recorded figure within 0.002 bits per character.
austen-check: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	@sha=$$(sha256sum $(BUILD)/corpus/valid.txt | cut -d' ' -f1); \
	grep -qx "valid_sha256 $$sha" models/austen/model.txt || \
	  { echo "austen-check: $(BUILD)/corpus/valid.txt is not the held-out text of models/austen" >&2; exit 1; }
	@now=$$($(BUILD)/mha lm eval models/austen --text $(BUILD)/corpus/valid.txt) && \
	recorded=$$(cat figures/austen-eval.txt) && echo "austen-check: now      $$now" && \
	echo "austen-check: recorded $$recorded" && \
	awk -v a="$$now" -v b="$$recorded" 'BEGIN { n = split(a, x, /[ =]/); m = split(b, y, /[ =]/); \
	  if (n != m || n != 12) exit 1; \
	  for (i = 2; i <= n; i += 2) \
	    if (x[i-1] == "bits_per_char" ? (x[i] - y[i] > 0.002 || y[i] - x[i] > 0.002) : \
	        x[i-1] != "loss" && x[i] != y[i]) { print "austen-check: " x[i-1] " differs" > "/dev/stderr"; exit 1 } }'

# What each head of the Austen model does (chapter "What the heads of the
# Austen model do"): `mha lm heads` on the held-out text; its table, written
# into the model folder, is committed as the figure the book prints.
AUSTEN_DIR ?= models/austen
austen-heads: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm heads $(AUSTEN_DIR) --text $(BUILD)/corpus/valid.txt
	cp $(AUSTEN_DIR)/heads.tsv figures/austen-heads.tsv

# Which heads the Austen model needs (the same chapter): `mha lm prune` on
# the held-out text, every head's importance and the greedy order; its
# table, written into the model folder, is committed as the figure.
austen-prune: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm prune $(AUSTEN_DIR) --text $(BUILD)/corpus/valid.txt
	cp $(AUSTEN_DIR)/prune.tsv figures/austen-prune.tsv

# The positive control and the copying gain (chapter "What the heads of the
# Austen model do"): `mha lm heads` on the committed induction model, which
# it measures on random tokens, and `mha lm repeat` on the Austen model.
induction-heads: $(BUILD)/mha
	$(BUILD)/mha lm heads models/induction
	cp models/induction/heads.tsv figures/induction-heads.tsv
austen-repeat: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm repeat $(AUSTEN_DIR) --text $(BUILD)/corpus/valid.txt > $(BUILD)/austen-repeat.txt
	mv $(BUILD)/austen-repeat.txt figures/austen-repeat.txt

# The runs of the section "Why no induction head formed", never run by make
# check: each trains the small GPT with its options, its heads measured at
# every evaluation, and commits its state.txt and heads-history.tsv under
# figures/runs.  The copy run reads random letters written by python3 from
# a fixed seed.  AUSTEN_RUN picks one; each takes from ten minutes to an hour
# on two cores, and carries on from its state in AUSTEN_RUNS_WORK when it
# was stopped (STOP_AT=K stops one after step K).
AUSTEN_RUNS_WORK ?= $(BUILD)/runs
RUN_copy      := --vocab 256 --layers 2 --heads 4 --dim 64 --context 64 --batch 16 --steps 8000 \
                 --eval-every 500 --repeat 1.0
RUN_bytes-256 := --vocab 256 --layers 2 --context 256 --batch 8 --steps 4000 --eval-every 250 \
                 --repeat 1.0
RUN_circuit   := --vocab 256 --layers 2 --context 128 --batch 8 --steps 24000 --eval-every 500 \
                 --repeat 0.5
RUN_pieces    := --tokenizer models/austen --layers 2 --context 256 --batch 8 --steps 8000 \
                 --eval-every 250 --repeat 0.25
RUN_pieces-half := --tokenizer models/austen --layers 2 --context 256 --batch 8 --steps 8000 \
                 --eval-every 250 --repeat 0.5
RUN_spread    := --tokenizer models/austen --layers 2 --context 256 --batch 8 --steps 12000 \
                 --eval-every 250 --repeat 0.5 --token-sd 0.2 --position-sd 0.5
RUN_spread-plain := --tokenizer models/austen --layers 2 --context 256 --batch 8 --steps 12000 \
                 --eval-every 250 --repeat 0 --token-sd 0.2 --position-sd 0.5
RUN_spread-curriculum := --tokenizer models/austen --layers 2 --context 256 --batch 8 \
                 --steps 12000 --eval-every 250 --repeat 0.5 --repeat-until 7000 \
                 --token-sd 0.2 --position-sd 0.5
RUN_curriculum := --vocab 256 --layers 2 --context 128 --batch 8 --steps 24000 --eval-every 500 \
                 --repeat 0.5 --repeat-until 16000
AUSTEN_RUN ?= circuit
$(AUSTEN_RUNS_WORK)/random.txt $(AUSTEN_RUNS_WORK)/random-valid.txt:
	@mkdir -p $(AUSTEN_RUNS_WORK)
	python3 -c "import random; random.seed(1); a='abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,'; \
	  open('$(AUSTEN_RUNS_WORK)/random.txt','w').write(''.join(random.choice(a) for _ in range(400000))); \
	  open('$(AUSTEN_RUNS_WORK)/random-valid.txt','w').write(''.join(random.choice(a) for _ in range(40000)))"
austen-run: $(BUILD)/mha $(BUILD)/corpus/valid.txt $(AUSTEN_RUNS_WORK)/random.txt
	@w=$(AUSTEN_RUNS_WORK)/$(AUSTEN_RUN) && \
	if [ "$(AUSTEN_RUN)" = copy ]; then text="--text $(AUSTEN_RUNS_WORK)/random.txt --valid $(AUSTEN_RUNS_WORK)/random-valid.txt"; \
	else text="$(CORPUS)"; fi && \
	if [ -f $$w.state/state.txt ]; then $(BUILD)/mha lm train $$text --out $$w --state $$w.state \
	  --resume $$w.state $(if $(STOP_AT),--stop-at $(STOP_AT)); \
	else $(BUILD)/mha lm train $$text --out $$w --state $$w.state $(RUN_$(AUSTEN_RUN)) \
	  $(if $(STOP_AT),--stop-at $(STOP_AT)); fi && \
	mkdir -p figures/runs && cp $$w.state/state.txt figures/runs/$(AUSTEN_RUN)-state.txt && \
	cp $$w.state/heads-history.tsv figures/runs/$(AUSTEN_RUN)-heads-history.tsv

# The model of the circuit run (the same chapter): the last checkpoint of
# `make austen-run AUSTEN_RUN=circuit` copied to models/austen-circuit (or
# CIRCUIT_RUN's to CIRCUIT_DIR, its figures named CIRCUIT_FIG), its
# heads measured, its held-out score, and its copying gain whole and with
# its strongest induction head (the best prefix_matching past block 0), then
# its strongest previous-token head of block 0, removed.
CIRCUIT_DIR ?= models/austen-circuit
CIRCUIT_RUN ?= circuit
CIRCUIT_FIG ?= circuit
# Names the circuit may copy: two that the novels use often, two that they
# never use (neither Quibble nor Zamfira is in the corpus).
CIRCUIT_PROMPTS := "When Mr. Elton called on Harriet, and then Mr. " \
                   "When Mr. Quibble called on Harriet, and then Mr. " \
                   "Colonel Brandon rode to the house, and Colonel " \
                   "Mrs. Zamfira Pell had come. I saw Mrs. "
circuit-model: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	rm -rf $(CIRCUIT_DIR) && mkdir -p $(CIRCUIT_DIR)
	cp $(AUSTEN_RUNS_WORK)/$(CIRCUIT_RUN)/*.npy $(AUSTEN_RUNS_WORK)/$(CIRCUIT_RUN)/model.txt \
	  $(AUSTEN_RUNS_WORK)/$(CIRCUIT_RUN)/merges.txt $(AUSTEN_RUNS_WORK)/$(CIRCUIT_RUN)/vocab.txt $(CIRCUIT_DIR)/
	$(MAKE) --no-print-directory circuit-figures
# The same for the pieces run with wider embeddings (AUSTEN_RUN=spread):
# models/austen-pieces and figures/pieces-*, its prompts without their last
# space (a piece carries the space before its word).
pieces-model pieces-figures: %: $(BUILD)/mha
	$(MAKE) --no-print-directory $(subst pieces,circuit,$@) CIRCUIT_RUN=spread \
	  CIRCUIT_DIR=models/austen-pieces CIRCUIT_FIG=pieces CIRCUIT_TRIM=1
circuit-figures: $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(BUILD)/mha lm heads $(CIRCUIT_DIR) --text $(BUILD)/corpus/valid.txt > /dev/null
	cp $(CIRCUIT_DIR)/heads.tsv figures/$(CIRCUIT_FIG)-heads.tsv
	$(BUILD)/mha lm eval $(CIRCUIT_DIR) --text $(BUILD)/corpus/valid.txt > $(BUILD)/$(CIRCUIT_FIG)-eval.txt
	induction=$$(awk -F'\t' '$$1 ~ /^[0-9]+$$/ && $$1 > 0 && $$11 > best { best = $$11; h = $$1 ":" $$2 } END { print h }' \
	  $(CIRCUIT_DIR)/heads.tsv) && \
	previous=$$(awk -F'\t' '$$1 == "0" && $$3 > best { best = $$3; h = $$1 ":" $$2 } END { print h }' \
	  $(CIRCUIT_DIR)/heads.tsv) && \
	{ $(BUILD)/mha lm repeat $(CIRCUIT_DIR) --text $(BUILD)/corpus/valid.txt && \
	  $(BUILD)/mha lm repeat $(CIRCUIT_DIR) --text $(BUILD)/corpus/valid.txt --mask $$induction | sed "s/$$/ mask=$$induction/" && \
	  $(BUILD)/mha lm repeat $(CIRCUIT_DIR) --text $(BUILD)/corpus/valid.txt --mask $$previous | sed "s/$$/ mask=$$previous/"; } \
	  > $(BUILD)/$(CIRCUIT_FIG)-repeat.txt
	mv $(BUILD)/$(CIRCUIT_FIG)-eval.txt figures/$(CIRCUIT_FIG)-eval.txt
	mv $(BUILD)/$(CIRCUIT_FIG)-repeat.txt figures/$(CIRCUIT_FIG)-repeat.txt
	for p in $(CIRCUIT_PROMPTS); do $(if $(CIRCUIT_TRIM),p="$${p% }";) \
	  printf '%s\t%s\n' "$$p" "$$($(BUILD)/mha lm generate $(CIRCUIT_DIR) --prompt "$$p" \
	    --tokens 12 --temperature 0 | head -n 1)"; \
	done > $(BUILD)/$(CIRCUIT_FIG)-names.txt
	mv $(BUILD)/$(CIRCUIT_FIG)-names.txt figures/$(CIRCUIT_FIG)-names.txt

# The whole study of the heads (chapter "What the heads of the Austen model
# do"), never run by make check: the heads' roles and the pruning of the
# committed model, each made only when its table is missing, then the
# number-of-heads runs of tools/heads-study.sh, which skips every run that
# has its row in figures/heads-count.tsv and carries on a stopped one from
# its state in HEADS_STUDY_WORK.  From nothing: about an hour on two cores.
HEADS_STUDY_WORK ?= $(BUILD)/heads-study
heads-study: figures/austen-heads.tsv figures/austen-prune.tsv $(BUILD)/mha $(BUILD)/corpus/valid.txt
	bash tools/heads-study.sh $(BUILD)/mha $(BUILD)/corpus/train.txt $(BUILD)/corpus/valid.txt \
	  models/austen $(HEADS_STUDY_WORK) figures/heads-count.tsv
figures/austen-heads.tsv: | $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(MAKE) --no-print-directory AUSTEN_DIR=models/austen austen-heads
figures/austen-prune.tsv: | $(BUILD)/mha $(BUILD)/corpus/valid.txt
	$(MAKE) --no-print-directory AUSTEN_DIR=models/austen austen-prune

# tools/lm_eval_torch.py against `mha lm eval` (chapter "A small GPT that
# reads Austen"): a tiny model trained here on a chapter of the book; the
# token ids of a few texts must be equal, and the scores of another chapter
# within 1e-4 bits per character.  Needs /usr/bin/python3 with torch.
LM_TORCH_TEXTS := 'The caf\xc3\xa9, 1234 na\xc3\xafve  x' 'a\tb\n\n  c 2x y3 \xce\xb1\xce\xb2\xce\xb3 \xff!' \
                  "x$$(printf 'he%.0s' {1..40}) end"
lm-torch-check: $(BUILD)/mha
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(BUILD)/mha lm train --text chapters/15-language-model.nw --valid chapters/16-austen-model.nw \
	  --out "$$dir/model" --vocab 300 --layers 2 --heads 2 --dim 16 --context 16 --batch 4 \
	  --steps 40 --eval-every 20 --lr 0.01 > /dev/null && \
	for text in $(LM_TORCH_TEXTS); do \
	  text=$$(printf "$$text"); \
	  ours=$$($(BUILD)/mha lm encode "$$dir/model" --text "$$text" | grep -v '^tokens=' | cut -f1 | tr '\n' ' '); \
	  theirs=$$(/usr/bin/python3 tools/lm_eval_torch.py "$$dir/model" --encode "$$text"); \
	  [[ "$$ours" == "$$theirs " ]] || { echo "lm-torch-check: ids differ: $$ours / $$theirs" >&2; exit 1; }; \
	done && \
	ours=$$($(BUILD)/mha lm eval "$$dir/model" --text chapters/05-masking.nw) && \
	theirs=$$(/usr/bin/python3 tools/lm_eval_torch.py "$$dir/model" --text chapters/05-masking.nw) && \
	echo "mha:     $$ours" && echo "PyTorch: $$theirs" && \
	awk -v a="$$ours" -v b="$$theirs" 'BEGIN { n = split(a, x, /[ =]/); split(b, y, /[ =]/); \
	  for (i = 2; i <= n; i += 2) \
	    if (x[i-1] == "bits_per_char" ? (x[i] - y[i] > 1e-4 || y[i] - x[i] > 1e-4) : \
	        x[i-1] != "loss" && x[i] != y[i]) { print "lm-torch-check: " x[i-1] " differs" > "/dev/stderr"; exit 1 } }'

# PyTorch golden cases for the tests (the results are committed).
golden: | deps deps-bench
	/usr/bin/python3 tests/make_golden.py tests/golden
	/usr/bin/python3 tests/make_lm_golden.py tests/golden

# ================================================================ the viewer
# build/mha-viz, the SDL2 viewer.  Its trained model is the committed
# checkpoint models/induction/ (written by `mha train --out models/induction`),
# found in the working directory or beside the program; MHA_MODEL_DIR overrides it.
VIZ_PKGS     := sdl2 SDL2_ttf SDL2_image
VIZ_CFLAGS    = $(shell pkg-config --cflags $(VIZ_PKGS) 2>/dev/null)
VIZ_LIBS      = $(shell pkg-config --libs $(VIZ_PKGS) 2>/dev/null)
VIZ_HEADLESS := SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software
VIZ_OBJ      := $(call objects,viz,viz/main.c)
$(eval $(call compile_rule,viz,-I$$(LDIR)/viz $$(INC_IO) $$(VIZ_CFLAGS)))
$(BUILD)/mha-viz: $(BUILD)/obj/viz/main.o $(VIZ_OBJ) $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ $(VIZ_LIBS) $(LDLIBS)

# The screenshots the book shows are committed, and only `make figures` draws
# them again (they show a measured time, so every drawing differs a little);
# the training one trains 700 steps on the worker (about 30 s).
VIZ_FIGURES := figures/viewer-sentence.png figures/viewer-rose.png figures/viewer-switches.png \
               figures/viewer-training.png figures/viewer-trained.png figures/viewer-austen.png
figures: $(BUILD)/mha-viz
	rm -f $(VIZ_FIGURES)
	$(MAKE) --no-print-directory $(VIZ_FIGURES)
figures/viewer-sentence.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --designed --step 9 --hover 8,1 --size 1080x540 --screenshot $@
figures/viewer-rose.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --designed --text "a rose is a rose is a rose" --step 8 \
	  --press m --size 1080x540 --screenshot $@
figures/viewer-switches.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --designed --step 11 --press 'cp]]]3' --size 1080x540 --screenshot $@
figures/viewer-training.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --train --train-steps 700 --size 1080x540 --screenshot $@
figures/viewer-trained.png: | $(BUILD)/mha-viz
	MHA_MODEL_DIR=models/induction $(VIZ_HEADLESS) $(BUILD)/mha-viz --trained --step 24 \
	  --size 1080x540 --screenshot $@
# The book prints every screenshot turned across the page at 0.648 point a
# pixel (book.nw's \screenshot), where the viewer's smallest text, 11 pixels,
# prints at 7 points: a window of 1080 x 540 fills the text column, and the
# Austen view, which needs 700 pixels' height for its 32 heads, takes the margin too.
# (Below 900 pixels' height the viewer draws at its natural scale.)
figures/viewer-austen.png: | $(BUILD)/mha-viz
	$(VIZ_HEADLESS) $(BUILD)/mha-viz --model models/austen --press 'ggggggg<<<' \
	  --size 1000x700 --screenshot $@

# ================================================================ the tests
# The library's own suites link libmha.a alone, with the shared helpers of
# tests/check.c and the float64 reference; every other suite, which runs the
# command or reads the book's tables, is in build/tests.
LIB_SUITES   := tests/test_shape.c tests/test_sdpa.c tests/test_naive.c tests/test_batched.c \
                tests/test_masking.c tests/test_kv_cache.c tests/test_fast.c \
                tests/test_backward.c tests/test_fast_backward.c
LIB_TESTS    := tests/check.c tests/oracle.c $(LIB_SUITES)
LIB_TEST_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_TESTS))
TEST_OBJ := $(call objects,tests,$(LIB_SUITES))
$(BUILD)/obj/tests/%.o: $(LDIR)/tests/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(LDIR)/tests $(INC_TABLES) -I$(LDIR)/viz $(VIZ_CFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@
$(BUILD)/tests-lib: $(LIB_TEST_OBJ) $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion $(LDLIBS)
$(BUILD)/tests: $(TEST_OBJ) $(BUILD)/libmha-cmd.a $(BUILD)/libmha-tables.a $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion $(LDLIBS)
$(BUILD)/viz-tests: $(call objects,tests/viz) $(VIZ_OBJ) $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ -lcriterion $(VIZ_LIBS) $(LDLIBS)

# The training worker and the window under ThreadSanitizer: the viewer is
# built again with -fsanitize=thread under $(BUILD)/tsan, and the race program
# (tests/race/, apart from the suites, for it has a main) runs.
$(BUILD)/race-training: $(BUILD)/obj/tests/race/race_training.o $(VIZ_OBJ) $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ $(VIZ_LIBS) $(LDLIBS)
test-training-race: | deps
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/tsan CFLAGS='-O1 -g -fsanitize=thread' \
	  $(BUILD)/tsan/race-training
	$(VIZ_HEADLESS) OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 $(BUILD)/tsan/race-training

# The viewer at rest in a real window costs under 3% of a core (half a
# minute under Xvfb; not part of test or check).
viz-idle-cpu: $(BUILD)/mha-viz
	bash tools/viz-idle-cpu.sh $(BUILD)/mha-viz

test: $(BUILD)/tests-lib $(BUILD)/tests $(BUILD)/mha $(BUILD)/viz-tests $(BUILD)/mha-viz
	cd tests && ../$(BUILD)/tests-lib --jobs=2
	cd tests && ../$(BUILD)/tests --jobs=2
	cd tests && $(VIZ_HEADLESS) ../$(BUILD)/viz-tests --jobs=2
	bash tools/viewer-smoke.sh $(BUILD)/mha-viz
	bash tools/viz-layers.sh $(BUILD)/obj/viz

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)

# ================================================================ the tables
TABLES_OBJ := $(call objects,tables,tables/tables_main.c)
$(eval $(call compile_rule,tables,$$(INC_TABLES)))
$(BUILD)/libmha-tables.a: $(TABLES_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/mha-tables: $(BUILD)/obj/tables/tables_main.o $(BUILD)/libmha-tables.a \
                     $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# ================================================================ the book

# The web is printed as two volumes: build/book.pdf, the book (the ideas, the
# heads, the speed), and build/companion.pdf, the complete listings.
# tools/book-volumes.sh cuts the cross-referenced web into each volume's files
# in the reader's order; tools/book-latex.sh runs pdflatex on both until every
# page reference, within each and between them, has settled (each reads the
# other's labels), and fails on references left undefined, references still
# moving, or a line more than 10pt too wide.  A finished pass seals its side files
# (.aux .out .toc, the index's, .xref) with their checksums; side files whose
# seal is missing or broken, left by a stopped pass, are thrown away before the
# next (tools/book-latex-test.sh, run by make check, shows it).
BOOK_TEXINPUTS = .:$(CURDIR)/$(BUILD)/tables:$(CURDIR)/figures:

book: $(BUILD)/book.pdf $(BUILD)/companion.pdf
$(BUILD)/book.tex: $(NW) tools/exercise.sh tools/exercise-hints.awk tools/book-volumes.sh | deps
	@rm -rf $(BUILD)/teacher && mkdir -p $(BUILD)/teacher
	NW="$(NW)" bash tools/exercise.sh teacher-web $(BUILD)/teacher
	cd $(BUILD)/teacher && bash "$(CURDIR)/tools/book-volumes.sh" companion $(NW) > "$(abspath $(BUILD)/companion.tex)"
	cd $(BUILD)/teacher && bash "$(CURDIR)/tools/book-volumes.sh" book $(NW) > "$(abspath $@)"
$(BUILD)/companion.tex: $(BUILD)/book.tex
	@:
$(BUILD)/book.pdf: $(BUILD)/book.tex $(BUILD)/companion.tex $(BUILD)/mha-tables tools/book-latex.sh \
                   tools/book-log-check.sh tools/book-text-check.sh tools/book-pages.txt | $(VIZ_FIGURES)
	@mkdir -p $(BUILD)/tables && $(BUILD)/mha-tables $(BUILD)/tables
	TEXINPUTS="$(BOOK_TEXINPUTS)" bash tools/book-latex.sh $(BUILD) book companion
	NW="$(NW)" bash tools/book-text-check.sh $(BUILD)/book.pdf $(BUILD)/companion.pdf
	@echo "book: $@ and $(BUILD)/companion.pdf, no errors"
$(BUILD)/companion.pdf: $(BUILD)/book.pdf
	@:

# The student's edition of the book: no answers appendix, every exercise's
# solution hidden.  Its references into the companion are the teacher's
# companion's: there is one companion for both editions.  The web is woven
# from inside its copy, so that the files' names, and with them noweb's
# labels, are the teacher's.
EXERCISE_TOOL = NW="$(NW)" BUILD="$(BUILD)" EXERCISE_TRUSTED="$(TRUSTED)" EXERCISE_CFLAGS="$(filter-out -O% -g,$(CFLAGS))" bash tools/exercise.sh
NW_STUDENT   := $(filter-out chapters/95-answers.nw,$(NW))
book-student: $(BUILD)/book-student.pdf
$(BUILD)/student/book-student.tex: $(NW) tools/exercise.sh tools/book-volumes.sh | deps
	@rm -rf $(@D) && mkdir -p $(@D)
	NW="$(NW_STUDENT)" bash tools/exercise.sh student-web $(@D)/web > $(@D)/files
	cd $(@D)/web && bash "$(CURDIR)/tools/book-volumes.sh" book $$(sed 's|^$(@D)/web/||' ../files) | \
	  sed 's/^\\newif\\ifstudentedition$$/&\\studenteditiontrue/' > "$(abspath $@)"
	grep -qF '\ifstudentedition\studenteditiontrue' $@
	@$(EXERCISE_TOOL) list | awk '$$3 == "coding" { print $$1 }' | while read -r id; do \
	  grep -qF "(your code here: exercise $$id)" $$(cat $(@D)/files) || \
	    { echo "book-student: exercise $$id is not hidden"; exit 1; }; done
$(BUILD)/book-student.pdf: $(BUILD)/student/book-student.tex $(BUILD)/companion.pdf $(BUILD)/mha-tables \
                           tools/book-latex.sh | $(VIZ_FIGURES)
	@mkdir -p $(BUILD)/tables && $(BUILD)/mha-tables $(BUILD)/tables
	cp $(BUILD)/companion.xref $(BUILD)/student/companion.xref
	TEXINPUTS="$(BOOK_TEXINPUTS)" bash tools/book-latex.sh $(BUILD)/student book-student
	cp $(BUILD)/student/book-student.pdf $@

# ================================================================ the checks
check: lint check-tangle check-figures
	$(MAKE) --no-print-directory $(PAR) test
	$(MAKE) --no-print-directory $(PAR) austen-check
	$(MAKE) --no-print-directory clang-build
	bash tools/book-latex-test.sh
	$(MAKE) --no-print-directory $(PAR) book
	$(MAKE) --no-print-directory exercises-verify exercises-class book-student
	$(MAKE) --no-print-directory sanitize
	$(MAKE) --no-print-directory coverage
	$(MAKE) --no-print-directory alloc-sweep io-sweep alloc-command
	$(MAKE) --no-print-directory valgrind
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory test-training-race
	$(MAKE) --no-print-directory fuzz

lint: | deps
	@stray=$$(noroots $(NW) | grep -v '^<<\[\[' || true); [[ -z "$$stray" ]] || \
	  { echo "lint: chunks that are neither used nor file roots:"; echo "$$stray"; exit 1; }
	@echo "lint: every root of the web is an output path"
	@words=$$(grep -h '^@ %def' $(NW) | cut -c8- | tr ' ' '\n' | grep -xE '[a-z]+' | \
	  grep -vxE 'bpe|cpif|heatmap|png|rng|viridis' | sort -u | tr '\n' ' ' || true); \
	[[ -z "$$words" ]] || { echo "lint: %def of plain words, which noweb would index" \
	  "wherever the word is written: $$words"; exit 1; }
	@echo "lint: every %def names an identifier, not a word of English"
	@for h in src/mha*.h; do echo "#include \"$${h#src/}\"" | \
	  $(CC) $(CPPFLAGS) $(WARN) -Isrc -fsyntax-only -x c - || \
	  { echo "lint: $$h does not compile on its own"; exit 1; }; done
	@internal=$$(grep -o 'mha_[a-z_0-9]*(' src/mha_internal.h | tr -d '(' | sort -u); \
	public=$$($(CC) $(CPPFLAGS) -Isrc -E -P src/mha.h); for name in $$internal; do \
	  ! grep -qw "$$name" <<< "$$public" || { echo "lint: mha.h declares $$name"; exit 1; }; done
	@echo "lint: every public header compiles on its own; mha.h declares no internal helper"
	@bad=$$(find src learn io cmd tables tests viz -name '*.[ch]' -exec awk ' \
	  FNR == 1 { continued = 0 } \
	  /\/\* <<.*>> \*\/$$/ && (/^[ \t]*#/ || continued) { print FILENAME ":" FNR } \
	  { continued = /\\$$/ }' {} + | head -5); [[ -z "$$bad" ]] || \
	  { echo "lint: a chunk's name ends a preprocessor line: $$bad"; exit 1; }
	@echo "lint: no chunk's name sits in or after a continued preprocessor line"

# Re-tangling must leave every tangled file as committed, and every committed
# file that says it was generated must still have its root in the web.
TANGLED_DIRS := src learn io cmd tables tests viz tools bench figures/bench_report.py
check-tangle: tangle
	@changed=$$(git diff --name-only -- $(TANGLED_DIRS); git ls-files --others --exclude-standard -- $(TANGLED_DIRS)); \
	[[ -z "$$changed" ]] || { echo "check: re-tangling changed files that git has not seen" \
	  "(edit the book, tangle, git add):"; echo "$$changed"; exit 1; }
	@roots=$$($(ROOTS_CMD)); for f in $$(git ls-files -- $(TANGLED_DIRS)); do \
	  head -n 1 "$$f" | grep -q 'generated from .*; edit the book' || continue; \
	  grep -qxF "$$f" <<< "$$roots" || { echo "check: $$f is generated but has no root in the web"; exit 1; }; done
	@echo "check: re-tangling leaves $(TANGLED_DIRS) unchanged, and every generated file has its root"

# The committed tables and numbers must be what bench_report.py makes of the
# committed measurements (figures/bench-fast.txt, bench-learning.txt): a number
# edited by hand in a figures/*.tex file fails here.  First the script's own
# test (tests/test_bench_report.py, from the book): its decoding rule.
check-figures: | deps
	@/usr/bin/python3 -W error tests/test_bench_report.py 2>&1 | tail -n 1 | grep -qx OK || \
	  { /usr/bin/python3 tests/test_bench_report.py; exit 1; }
	@tmp=$$(mktemp -d); machine=$$(sed -n 's/.*FastMachine}{\(.*\)}$$/\1/p' figures/bench-numbers.tex); \
	/usr/bin/python3 figures/bench_report.py figures/bench-fast.txt "$$tmp" "$$machine" || \
	  { rm -rf "$$tmp"; exit 1; }; \
	bad=$$(for f in "$$tmp"/*.tex; do cmp -s "$$f" "figures/$${f##*/}" || echo "$${f##*/}"; done); \
	rm -rf "$$tmp"; [[ -z "$$bad" ]] || { echo "check-figures: not what figures/bench_report.py" \
	  "makes of the committed measurements:" $$bad; exit 1; }
	@echo "check-figures: the committed tables are what bench_report.py makes of the measurements"

clang-build:
	$(MAKE) --no-print-directory $(PAR) CC=clang BUILD=$(BUILD)/clang all

# The hardening passes (appendix "Hardening"), each in a build directory of its own.
SAN_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
               -DMHA_CHECK_PRECONDITIONS
SAN_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# LeakSanitizer passes over the blocks that Criterion's own runner allocates and
# does not free before it exits (seen once: 96 bytes from libcriterion.so after
# every test had passed); a leak in the library, the command or the tests still fails.
sanitize:
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/asan CFLAGS="$(SAN_CFLAGS)" \
	  $(BUILD)/asan/tests-lib $(BUILD)/asan/tests $(BUILD)/asan/mha
	printf 'leak:libcriterion.so\n' > $(BUILD)/asan/lsan.supp
	cd tests && for suite in tests-lib tests; do $(SAN_ENV) \
	  LSAN_OPTIONS="suppressions='$(abspath $(BUILD))/asan/lsan.supp'" \
	  MHA_BINARY=../$(BUILD)/asan/mha ../$(BUILD)/asan/$$suite --jobs=2; done

# The allocation sweep (appendix "Hardening"): every public entry point on a
# small case, its allocations failed one at a time, under ASan + UBSan.  The
# linker's --wrap sends the allocations of the program and of the archives to
# tests/alloc/wrap_alloc.c (shared with mha-failing), which asks the program's counter; the table it writes is the one the appendix prints,
# and a table that differs from the committed one is replaced and fails.
ALLOC_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc \
              -Wl,--wrap=posix_memalign,--wrap=strdup,--wrap=open_memstream
$(BUILD)/alloc-sweep: $(BUILD)/obj/tests/alloc/alloc_sweep.o $(BUILD)/obj/tests/alloc/wrap_alloc.o \
                     $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) $(ALLOC_WRAP) -o $@ $^ $(LDLIBS)
alloc-sweep:
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/asan CFLAGS="$(SAN_CFLAGS)" $(BUILD)/asan/alloc-sweep
	$(SAN_ENV) $(BUILD)/asan/alloc-sweep --tex $(BUILD)/asan/alloc-sweep.tex
	@cmp -s $(BUILD)/asan/alloc-sweep.tex figures/alloc-sweep.tex || \
	  { cp $(BUILD)/asan/alloc-sweep.tex figures/alloc-sweep.tex; \
	    echo "alloc-sweep: figures/alloc-sweep.tex was not the table of this run; now it is"; exit 1; }

# The writers under failing system calls (the same appendix), under ASan + UBSan.
IO_WRAP := -Wl,--wrap=fflush,--wrap=fsync,--wrap=fclose,--wrap=rename,--wrap=write \
           -Wl,--wrap=fdopen,--wrap=open,--wrap=linkat,--wrap=fread
$(BUILD)/io-sweep: $(BUILD)/obj/tests/alloc/io_sweep.o $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) $(IO_WRAP) -o $@ $^ $(LDLIBS)
io-sweep:
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/asan CFLAGS="$(SAN_CFLAGS)" $(BUILD)/asan/io-sweep
	$(SAN_ENV) $(BUILD)/asan/io-sweep

# The command under failing allocation (the same appendix): a build of `mha`
# linked with the failing allocator, which reads MHA_TEST_FAIL_ALLOC; every
# subcommand on a small case, under ASan + UBSan.
$(BUILD)/mha-failing: $(BUILD)/obj/cmd/main.o $(BUILD)/obj/tests/alloc/fail_alloc.o \
                      $(BUILD)/obj/tests/alloc/wrap_alloc.o \
                      $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) $(ALLOC_WRAP) -o $@ $^ $(LDLIBS)
alloc-command:
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/asan CFLAGS="$(SAN_CFLAGS)" $(BUILD)/asan/mha-failing
	$(SAN_ENV) bash tools/alloc-command.sh $(BUILD)/asan/mha-failing $(BUILD)/asan/alloc-command

# Coverage (the same appendix): everything built again with --coverage under
# $(BUILD)/coverage; the library's suites run on each instruction set the
# processor has (MHA_ISA), then the other suites, the viewer's suite and its
# window, the allocation and I/O sweeps, the command's failing allocations;
# the lines and branches reached are counted per chapter by Debian's gcovr;
# the table is figures/coverage.tex, the HTML report $(BUILD)/coverage/html/index.html, and the library's figures must
# not fall below figures/coverage-floor.txt.
# A forked test child writes its counts through __gcov_dump (tests/child.h),
# which it references weakly: -u makes the linker take it from libgcov.
COV_CFLAGS := -O1 -g --coverage -Wl,-u,__gcov_dump
COV_ISAS   := avx512 avx2 scalar
coverage: | deps deps-coverage
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/coverage CFLAGS="$(COV_CFLAGS)" \
	  $(BUILD)/coverage/tests-lib $(BUILD)/coverage/tests $(BUILD)/coverage/mha \
	  $(BUILD)/coverage/viz-tests $(BUILD)/coverage/mha-viz \
	  $(BUILD)/coverage/alloc-sweep $(BUILD)/coverage/io-sweep $(BUILD)/coverage/mha-failing
	find $(BUILD)/coverage -name '*.gcda' -delete
	cd tests && for isa in $(COV_ISAS); do MHA_ISA=$$isa ../$(BUILD)/coverage/tests-lib --jobs=2; done
	cd tests && MHA_BINARY=../$(BUILD)/coverage/mha ../$(BUILD)/coverage/tests --jobs=2
	cd tests && $(VIZ_HEADLESS) ../$(BUILD)/coverage/viz-tests --jobs=2
	bash tools/viewer-smoke.sh $(BUILD)/coverage/mha-viz > /dev/null
	$(BUILD)/coverage/alloc-sweep > /dev/null
	$(BUILD)/coverage/io-sweep > /dev/null
	bash tools/alloc-command.sh $(BUILD)/coverage/mha-failing $(BUILD)/coverage/alloc-command > /dev/null
	bash tools/coverage.sh $(BUILD)/coverage figures/coverage-floor.txt figures/coverage.tex

valgrind: $(BUILD)/mha $(BUILD)/tests
	bash tools/valgrind.sh $(BUILD)

# Criterion's runner cannot start under ThreadSanitizer, so the reentrancy
# check has a program of its own.  libgomp is not built with ThreadSanitizer,
# which would then report races inside OpenMP's own barriers; the question
# here is reentrancy between two callers' threads, so each call runs on one
# OpenMP thread.
$(BUILD)/tsan-reentrancy: $(BUILD)/obj/tests/tsan/tsan_reentrancy.o $(BUILD)/obj/tests/reentrancy.o \
                          $(BUILD)/libmha.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
tsan:
	$(MAKE) --no-print-directory $(PAR) BUILD=$(BUILD)/tsan CFLAGS="-O1 -g -fsanitize=thread" \
	  $(BUILD)/tsan/tsan-reentrancy
	OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(BUILD)/tsan/tsan-reentrancy

# Each fuzz target runs FUZZ_SECONDS under ASan + UBSan, then the reader
# FUZZ_MSAN_SECONDS under MemorySanitizer.  MSan needs every line it runs
# instrumented, and the OpenMP runtime (libomp) is not, so it covers the
# reader alone, which never enters OpenMP.
FUZZ_SECONDS      ?= 60
FUZZ_MSAN_SECONDS ?= 20
FUZZ_TARGETS      := npy cli forward checkpoint bpe lm
FUZZ_MSAN_TARGETS := npy
# At -O1 clang does not vectorise, and says so with a warning (an error under
# -Werror) for every `#pragma omp simd` loop: the fuzz builds let that pass.
FUZZ_CFLAGS := $(SAN_CFLAGS) -fsanitize=fuzzer-no-link -Wno-pass-failed
MSAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=memory -fsanitize-memory-track-origins \
               -fsanitize=fuzzer-no-link -Wno-pass-failed
$(BUILD)/fuzz-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz_harness.o \
                 $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
fuzz:
	$(MAKE) --no-print-directory $(PAR) CC=clang BUILD=$(BUILD)/fuzz CFLAGS="$(FUZZ_CFLAGS)" \
	  $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz-%)
	$(MAKE) --no-print-directory $(PAR) CC=clang BUILD=$(BUILD)/fuzz-msan CFLAGS="$(MSAN_CFLAGS)" \
	  $(FUZZ_MSAN_TARGETS:%=$(BUILD)/fuzz-msan/fuzz-%)
	bash tools/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_MSAN_SECONDS) "$(FUZZ_TARGETS)" "$(FUZZ_MSAN_TARGETS)"

# The exercises (the companion's chapter "A teacher's guide to the exercises").
exercises: | deps
	@$(EXERCISE_TOOL) list
exercise: | deps
	@[[ -n "$(EX)" ]] || { echo "usage: make exercise EX=id [DIR=path]" >&2; exit 2; }
	@$(EXERCISE_TOOL) handout "$(EX)" "$(or $(DIR),$(BUILD)/exercises/$(EX))"
	@echo "exercise: wrote $(or $(DIR),$(BUILD)/exercises/$(EX)) (see its README.md)"
exercise-check: | deps
	@[[ -n "$(EX)" && -n "$(DIR)" ]] || { echo "usage: make exercise-check EX=id DIR=path" >&2; exit 2; }
	@$(EXERCISE_TOOL) check "$(EX)" "$(DIR)"
# Where the machine gives no namespaces (a container, say), the book's own
# answers and its tricks are handed in without the sandbox, and it says so.
exercises-verify: | deps
	@if [[ -z "$(TRUSTED)" ]] && ! why=$$($(EXERCISE_TOOL) sandbox); then \
	  echo "exercises-verify: $$why; verifying without the sandbox"; \
	  $(MAKE) --no-print-directory exercises-verify TRUSTED=1 EX="$(EX)"; \
	else $(EXERCISE_TOOL) verify $(EX); fi
grade: | deps
	@[[ -n "$(EX)" && -n "$(SUBMISSIONS)" ]] || \
	  { echo "usage: make grade EX=id SUBMISSIONS=dir [OUT=dir] [ROSTER=file.csv] [POINTS=file.tsv]" >&2; exit 2; }
	@EXERCISE_ROSTER="$(ROSTER)" EXERCISE_POINTS="$(POINTS)" \
	  $(EXERCISE_TOOL) grade "$(EX)" "$(SUBMISSIONS)" "$(or $(OUT),$(BUILD)/grade/$(EX))"
hint: | deps
	@[[ -n "$(EX)" && -n "$(N)" ]] || { echo "usage: make hint EX=id N=1" >&2; exit 2; }
	@$(EXERCISE_TOOL) hint "$(EX)" "$(N)"
exercise-sheet: | deps
	@mkdir -p $(BUILD)/exercises
	@$(EXERCISE_TOOL) sheet $(BUILD)/exercises/written-answers.md
	@echo "exercise-sheet: wrote $(BUILD)/exercises/written-answers.md"
# A class made to try the grader: tricks, awkward names, links, a FIFO.
exercises-class: | deps
	@trusted="$(TRUSTED)"; if [[ -z "$$trusted" ]] && ! why=$$($(EXERCISE_TOOL) sandbox); then \
	  echo "exercises-class: $$why; grading without the sandbox"; trusted=1; fi; \
	NW="$(NW)" BUILD="$(BUILD)" EXERCISE_TRUSTED="$$trusted" \
	  EXERCISE_CFLAGS="$(filter-out -O% -g,$(CFLAGS))" bash tools/exercise-class.sh $(BUILD)/exercises-class
# The lab the exercises appendix shows, run for real: its transcript is a figure.
exercise-lab: | deps
	NW="$(NW)" BUILD="$(BUILD)" bash tools/exercise-lab.sh figures/exercise-lab.tex

# ================================================================ the benchmark
# Speed is measured here, never in a test: every speed table of the book from
# one run of tools/bench.sh (the Measuring appendix), with PyTorch (Debian's
# python3-torch) and an OpenBLAS layer side by side.  Measure on an idle
# machine: the script prints the load average it started with.
BENCH_THREADS ?= 2
$(BUILD)/sgemm-openblas: bench/sgemm_openblas.c $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD) | deps-bench
	$(CC) $(CPPFLAGS) $(INC_CMD) $(CFLAGS) $(WARN) $< -o $@ $(BUILD)/libmha-cmd.a $(LIBS_BELOW_CMD) \
	  -lopenblas $(LDLIBS)
bench: $(BUILD)/mha $(BUILD)/sgemm-openblas | deps deps-bench
	bash tools/bench.sh $(BUILD) $(BENCH_THREADS) "$(CC) $(CFLAGS)"
bench-lm: $(BUILD)/mha $(BUILD)/sgemm-openblas | deps deps-bench
	BENCH_ONLY=lm bash tools/bench.sh $(BUILD) $(BENCH_THREADS) "$(CC) $(CFLAGS)"
# The step's profile by part (chapter "Measuring"), from perf's samples on each
# instruction set of this machine; never run by make check.
profile-lm: $(BUILD)/mha
	bash tools/lm-profile.sh $(BUILD) $(BENCH_THREADS)

clean:
	rm -rf $(BUILD)
