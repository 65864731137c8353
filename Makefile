# fgl - build the examples, run the tests and benchmarks.
#
#   make            build every example into build/
#   make test       the quick suite (README, Tests: its time on 2 cores, build included): quick compile checks, install
#                   check, the test programs, fglrun end to end on a few algorithms; last line "N passed, M failed"
#   make test-long  what make test leaves out (CI runs it): the whole compile matrix (gcc, clang, g++, clang++,
#                   AVX2, AVX-512, MPI), adding an algorithm, the course kit, and fglrun's end-to-end checks
#                   (resume, replay, every defence) on every algorithm
#   make suite      only the test programs and the `make data` test (what depends on the data)
#   make sanitize   the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make valgrind   the quick tests under valgrind's memcheck
#   make bench      build the benchmarks into build/bench (see BENCHMARKS.md to run them)
#   make data       download, verify and convert the real datasets (DATASETS="Cora MUTAG": some)
#   make reproduce  every table of RESULTS.md the data allow (bench/results.sh, every section; resumable);
#                   REPRO_QUICK=1: one seed, 10 rounds, into build/reproduce-quick/ (a first look)
#   make install    headers, fglrun and fgl.pc under $(PREFIX) (default /usr/local)
#   make mpi        build/fglrun_mpi, fglrun over MPI; make test-mpi checks it gives fglrun's bits
#   make test-course the course kit's autograder (course/; students run make -C course grade)
#   make test-plots  fglrun's SVG plots rendered in headless Chromium (skipped without Chromium)
#   make wasm       the course page (web/): fglrun compiled to WebAssembly with Emscripten, into build/wasm/,
#                   a static folder any web server or file:// opens (WASM_DATA: the real datasets it bundles)
#   make test-wasm  the page in headless Chromium gives fglrun's numbers (skipped without emcc or Chromium)
#   make fuzz       libFuzzer harnesses of every reader (clang; FUZZ_TIME seconds each)
#   make headers    fgl.h, fgl_graph.h, fgl_gnn.h, fgl_fed.h from src/ (every build does it first)
#
# The library is developed in src/ (one folder per header, one file per
# subject; src/fed/algos/ one file per method) and shipped as the four
# headers, which tools/amalgamate writes from it and which stay checked in:
# edit src/, and make rewrites the headers that changed.
#
# Parallel builds are safe (make -j2). The library is compiled once per build
# flavour from tools/fgl_impl.c; examples, tests, benchmarks and tools are
# compiled with -DFGL_NO_IMPLEMENTATION and linked against that object. The
# tests' objects (build/tests/fgl.o, and the sanitizer and valgrind ones) are
# compiled from tests/ft_impl.c with -DFGL_TEST_PRIVATE, which makes the
# private fgl__ functions that tests call external (FGL__PRIVATE, static as
# shipped), and count allocations (tests/ft_alloc.h): no test compiles the
# library itself.
#
# FGL_DATA names the directory of the real datasets. Unset, the tests use
# data/ (where `make data` writes; absent: the real-data tests are skipped,
# and say so).

CC      ?= cc
CXX     ?= c++
MPICC   ?= mpicc
OPT     ?= -O3 -march=native -fno-math-errno
OMP     ?= -fopenmp
WARN    := -Wall -Wextra -Wpedantic
CFLAGS  := -std=c99 $(OPT) $(WARN) $(OMP) -I.
# The test programs' own code (the library they call is build/tests/fgl.o, optimised): -O1 compiles
# in half the time of -O3 and runs as fast, the work being the library's.
TESTFLAGS := -std=c99 -O1 -march=native -fno-math-errno $(WARN) $(OMP) -I.
LDLIBS  := -lm
# -O2 and the optimised build's target: the sanitized tests run about 5x
# faster than at -O1 (test_gnn: 24 s against 123 s). Less AVX-512: with it
# gcc gives a large local struct 64-byte alignment and copies it with aligned
# zmm stores, while ASan's fake stack (detect_stack_use_after_return, as
# make sanitize runs) aligns locals to 32 bytes only: test_pipeline's
# scenario copy then faulted on this AVX-512 machine (a sanitizer limit, not
# the library's fault; the same code is clean under valgrind and -O3 builds).
NOAVX512 := $(shell $(CC) -mno-avx512f -E -x c /dev/null > /dev/null 2>&1 && echo -mno-avx512f)
SANFLAGS := -std=c99 -O2 -march=native $(NOAVX512) -fno-math-errno -g -fno-omit-frame-pointer \
            -fsanitize=address,undefined -fno-sanitize-recover=all $(WARN) $(OMP) -I.
# Valgrind does not decode AVX-512: no -march=native here.
VGFLAGS  := -std=c99 -O1 -g $(WARN) -I.

PREFIX  ?= /usr/local
DESTDIR ?=
VERSION ?= 0.1

ifeq ($(origin FGL_DATA),undefined)
FGL_DATA := $(CURDIR)/data
endif
export FGL_DATA

HEADERS   := fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h
SRC       := $(shell find src -type f 2>/dev/null)
TEST_HDRS := $(wildcard tests/*.h)
EXAMPLES  := $(patsubst examples/%.c,build/%,$(wildcard examples/*.c))
TEST_SRCS := $(wildcard tests/test_*.c)
TESTS     := $(patsubst tests/%.c,build/tests/%,$(TEST_SRCS))
SANTESTS  := $(patsubst tests/%.c,build/san/tests/%,$(TEST_SRCS))
BENCHES   := $(patsubst bench/%.c,build/bench/%,$(filter-out bench/gomp_regions.c,$(wildcard bench/*.c))) \
             build/bench/gomp_regions.so
TOOLS     := build/tools/fgl_convert build/tools/mkmirror
# Tests quick enough to run under valgrind (20-50x slower).
VGTESTS   := build/vg/tests/test_fgl_core build/vg/tests/test_fgl_ops build/vg/tests/test_gnn \
             build/vg/tests/test_graph_core

.PHONY: reproduce
.PHONY: all tests test test-long suite build-san build-vg sanitize valgrind bench tools data install uninstall clean mpi test-mpi \
        test-course test-plots headers wasm test-wasm same-bits alone FORCE
.SECONDARY:
.DELETE_ON_ERROR:

all: $(EXAMPLES)

# The headers from src/: tools/amalgamate rewrites only those whose text
# changes, so an unchanged header keeps its time and nothing rebuilds; a
# missing header is written again. A copy without src/ (the headers alone)
# builds from the headers as they are.
# make FGL_LINE=1 writes them with #line directives, so that compilers,
# debuggers and sanitizers name src/ files and lines (tools/amalgamate); a
# plain make writes them back without (build/headers.mode says which the
# headers hold; it changes, and so rewrites them, only on a switch). Commit
# only plain ones.
ifneq ($(wildcard src/core/MANIFEST),)
HEADER_MODE := $(if $(filter 1,$(FGL_LINE)),line,plain)
headers: build/headers.stamp
build/headers.stamp: tools/amalgamate $(SRC) build/headers.mode
	@mkdir -p $(@D)
	FGL_LINE=$(if $(filter line,$(HEADER_MODE)),1,0) ./tools/amalgamate
	@touch $@
build/headers.mode: FORCE
	@mkdir -p $(@D)
	@echo $(HEADER_MODE) | cmp -s - $@ || echo $(HEADER_MODE) > $@
$(HEADERS): build/headers.stamp
	@test -f $@ || ./tools/amalgamate
else
headers:
	@echo "no src/ here: the headers are used as they are"
endif

# $(call link,FLAGS,OBJ): compile $< against the implementation object OBJ.
link = $(CC) $(1) -DFGL_NO_IMPLEMENTATION $< $(2) -o $@ $(LDLIBS)

build/fgl.o: tools/fgl_impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

build/tests/fgl.o: tests/ft_impl.c tests/ft_alloc.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFGL_TEST_PRIVATE -c $< -o $@

build/san/fgl.o: tests/ft_impl.c tests/ft_alloc.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) -DFGL_TEST_PRIVATE -c $< -o $@

build/vg/fgl.o: tests/ft_impl.c tests/ft_alloc.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(VGFLAGS) -DFGL_TEST_PRIVATE -c $< -o $@

# A program's own code is compiled apart from its link (build/obj/), so that
# under make -j it compiles while the library object does.
build/obj/%.o: examples/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEFS) -DFGL_NO_IMPLEMENTATION -c $< -o $@
build/%: build/obj/%.o build/fgl.o
	$(CC) $(CFLAGS) $(filter %.o,$^) -o $@ $(LDLIBS)

# The commit fglrun records in its results ("fgl_commit"), "-dirty" when the
# sources (C files, headers, Makefile) differ from it: build/commit is
# rewritten only when that changes, and the runners are rebuilt then.
FGLRUNS := build/fglrun build/fglrun_mpi build/tests/user_fglrun build/tests/user_fglrun_mpi build/wasm-obj/fglweb.js \
           build/fglrun_ref
$(FGLRUNS) build/obj/fglrun.o: build/commit
# fglrun's parts (examples/fglrun/*.c, included by examples/fglrun.c)
build/obj/fglrun.o: $(wildcard examples/fglrun/*)
$(FGLRUNS) build/obj/fglrun.o: DEFS = -DFGL_COMMIT='"$(shell cat build/commit 2>/dev/null || echo unknown)"'
build/commit: FORCE
	@mkdir -p $(@D)
	@c=$$(git rev-parse --short HEAD 2>/dev/null || echo unknown); \
	 [ "$$c" = unknown ] || git diff --quiet HEAD -- '*.c' '*.h' Makefile 2>/dev/null || c="$$c-dirty"; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$c" ] || echo "$$c" > $@

# a user's program running fglrun with an algorithm it registers (tests/test_fglrun.sh):
# it includes examples/fglrun.c, linked against the library's object like fglrun
build/tests/user_fglrun: tests/user_fglrun.c examples/fglrun.c $(wildcard examples/fglrun/*) build/fgl.o $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(CFLAGS) $(DEFS),build/fgl.o)

# fglrun over MPI (make mpi; needs an MPI: apt-get install libopenmpi-dev openmpi-bin):
# the implementation is compiled with FGL_MPI, so it stands alone
build/fglrun_mpi: examples/fglrun.c $(wildcard examples/fglrun/*) $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) -DFGL_MPI $(CFLAGS) $(DEFS) $< -o $@ $(LDLIBS)

# the user's program of tests/user_fglrun.c over MPI: tests/test_sides.sh checks that a hook writing into
# what it received is refused alike in one process and under mpirun
build/tests/user_fglrun_mpi: tests/user_fglrun.c examples/fglrun.c $(wildcard examples/fglrun/*) $(HEADERS)
	@mkdir -p $(@D)
	$(MPICC) -DFGL_MPI $(CFLAGS) $(DEFS) $< -o $@ $(LDLIBS)

mpi: build/fglrun_mpi build/tests/user_fglrun_mpi

# every algorithm under mpirun -np 2, 3, 5 gives fglrun's bits; a resumed job; a lost rank, simulated
# and real (SIGKILL, SIGSTOP on rank 2, under mpirun --enable-recovery and plain mpirun)
test-mpi: build/fglrun_mpi build/fglrun
	@./tests/run.sh tests/test_mpi.sh\ build

# the course kit (course/, its own Makefile): reference solutions 100/100,
# skeletons 0/100, each mutant loses the checks it breaks, each shortcut
# submission (course/teacher/shortcuts) scores 0 on its assignment, the
# student kit holds no teacher material and grades on its own, fglrun with
# the students' algorithms, two students' folders of one last name graded
# apart, a missing file scored 0 with the others graded, a crash's earlier
# lines kept in the output file
test-course:
	@./tests/run.sh tests/test_course.sh

# every SVG fglrun --out draws, rendered in headless Chromium: no text clipped
# or overlapping (a "skip" line without Chromium)
test-plots: build/fglrun
	@./tests/run.sh tests/test_plots.sh\ build

# make wasm: the course page, a static folder build/wasm/ (index.html, page.js, fgl-worker.js: fglrun as
# WebAssembly inside the page's Web Worker, fgl-data.js: the datasets of WASM_DATA found in $(FGL_DATA), none
# committed). web/fglweb.c is fglrun with one hook; -sSINGLE_FILE puts the .wasm inside the JS (nothing
# fetched: file:// works). No threads (no OpenMP: a serial build is a correct build), and one
# floating-point contract for both builds, WASMFP: no fused multiply-add (WebAssembly has none), no fast
# math, no -march. build/fglrun_ref is fglrun compiled natively with it, serial: the page gives its bits
# (tests/test_wasm.sh). -msimd128: WebAssembly's 128-bit SIMD, which clang's vectoriser uses as gcc uses
# SSE2 natively, without reordering a sum (no fast math): the same bits, about twice as fast. Debian's emcc needs NODE_PATH to find its own acorn when another Node comes first.
EMCC      ?= emcc
WASMFP    := -O2 -ffp-contract=off -fno-math-errno
WASM_DATA ?= Cora MUTAG
WASMLINK  := -sSINGLE_FILE -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=4GB -sINVOKE_RUN=0 -sENVIRONMENT=worker \
             -sWASM_ASYNC_COMPILATION=0 \
             -sEXPORTED_RUNTIME_METHODS=callMain,ccall,FS,ENV
WASM_OUT  := build/wasm/index.html build/wasm/page.js build/wasm/fgl-worker.js build/wasm/fgl-data.js
wasm: $(WASM_OUT)
build/wasm-obj/fglweb.js: web/fglweb.c examples/fglrun.c $(wildcard examples/fglrun/*) $(HEADERS)
	@mkdir -p $(@D)
	NODE_PATH=$${NODE_PATH:-/usr/share/nodejs} $(EMCC) -std=c99 $(WASMFP) -msimd128 $(WARN) -I. $(DEFS) $< -o $@ $(WASMLINK)
build/wasm/fgl-worker.js: web/worker.js build/wasm-obj/fglweb.js web/worker_tail.js
	{ echo 'function fglWorkerMain() {'; cat $^; echo '}'; } > $@
build/wasm/%: web/%
	@mkdir -p $(@D)
	cp $< $@
build/wasm/fgl-data.js: web/bundle_data.sh FORCE
	@mkdir -p $(@D)
	@sh web/bundle_data.sh $@ "$(FGL_DATA)" $(WASM_DATA)
build/fglrun_ref: examples/fglrun.c $(wildcard examples/fglrun/*) $(HEADERS)
	$(CC) -std=c99 $(WASMFP) $(WARN) -I. $(DEFS) $< -o $@ $(LDLIBS)

# the page in headless Chromium: short FedAvg and FED-PUB runs (and a robust rule under attack, FedStar on
# graphs, Cora and MUTAG when bundled) give build/fglrun_ref's JSON numbers; a screenshot of the finished page
# (WASM_SHOT=FILE keeps it). Skipped, saying so, without emcc or Chromium.
WASM_IF := $(if $(shell command -v $(EMCC) 2> /dev/null),wasm)
test-wasm: build/fglrun_ref $(WASM_IF)
	@./tests/run.sh tests/test_wasm.sh\ build

# a strict JSON validator (RFC 8259) the tests feed fglrun's JSON to; it needs nothing of fgl
build/tests/json_strict: tests/json_strict.c
	@mkdir -p $(@D)
	$(CC) -std=c99 -O2 $(WARN) $< -o $@

# (compiled apart from the link, like the examples)
build/tests/%.o: tests/%.c $(TEST_HDRS) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(TESTFLAGS) -DFGL_TEST_PRIVATE -DFGL_NO_IMPLEMENTATION -c $< -o $@
build/tests/%: build/tests/%.o build/tests/fgl.o
	$(CC) $(TESTFLAGS) $(filter %.o,$^) -o $@ $(LDLIBS)

build/san/tests/%: tests/%.c build/san/fgl.o $(TEST_HDRS) $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(SANFLAGS) -DFGL_TEST_PRIVATE,build/san/fgl.o)

build/vg/tests/%: tests/%.c build/vg/fgl.o $(TEST_HDRS) $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(VGFLAGS) -DFGL_TEST_PRIVATE,build/vg/fgl.o)

build/bench/%: bench/%.c build/fgl.o $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(CFLAGS),build/fgl.o)

# A measuring tool, not a benchmark: LD_PRELOAD it (bench/regions.sh).
build/bench/gomp_regions.so: bench/gomp_regions.c
	@mkdir -p $(@D)
	$(CC) -O2 $(WARN) -shared -fPIC $< -o $@ -ldl

build/tools/%: tools/%.c build/fgl.o $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(CFLAGS),build/fgl.o)

# fgl_convert's pickle reader is a file of its own, included
build/tools/fgl_convert: tools/fgl_pickle.h

build/tools/mkmirror: tests/mkmirror.c build/fgl.o $(HEADERS)
	@mkdir -p $(@D)
	$(call link,$(CFLAGS),build/fgl.o)

# The test programs, fglrun end to end, the first hour's frictions, faults,
# the defences, the sides apart (compile failures, refusals in one process
# and under MPI), the cryptography against libsodium (skipped without it),
# fglrun's sweeps, what fglrun's records say of a run's secrets and clients
# (test_privacy_records.sh) and the `make data` test. test_fglrun.sh and
# test_defences_cover.sh take a few algorithms here, every one with
# FGL_TEST_LONG=1 (make test-long).
SUITE_SH  := tests/test_firsthour.sh\ build tests/test_faults.sh\ build \
             tests/test_defences_cover.sh\ build tests/test_sides.sh\ build \
             tests/test_crypto_sodium.sh\ build tests/test_sweep.sh\ build tests/test_pipeline.sh\ build \
             tests/test_privacy_records.sh\ build tests/data_check.sh
SUITE     := $(TESTS) tests/test_fglrun.sh\ build $(SUITE_SH)
# make test-long: the compile matrix (each configuration compiles the whole
# library), adding an algorithm (tests/algo_check.sh, which compiles fglrun
# with it) and a defence (tests/plugin_check.sh, the same with a plug-in),
# a misspelt state name in an NDEBUG build (tests/ndebug_check.sh), every
# file of src/ compiled alone (tests/alone_check.sh, also `make alone`),
# the course kit (tests/test_course.sh, which grades 25 times),
# fglrun end to end on every algorithm, the plots rendered in headless
# Chromium (tests/test_plots.sh), the same bits as the reference commit of
# tests/bits_ref on every task, algorithm and defence (tests/same_bits.sh, also
# `make same-bits`: what a refactor must keep), three newcomers' first hour on a fresh
# clone (tests/newcomer.sh), and the course page in Chromium (tests/test_wasm.sh:
# make wasm first when emcc is installed; skipped without it).
LONG      := tests/same_bits.sh\ build tests/alone_check.sh tests/compile_check.sh\ all tests/algo_check.sh tests/plugin_check.sh tests/ndebug_check.sh tests/test_course.sh tests/test_fglrun.sh\ build \
             tests/test_defences_cover.sh\ build tests/test_plots.sh\ build tests/newcomer.sh \
             tests/test_wasm.sh\ build

# the two library objects first: under make -j2 they compile side by side, the rest around them
tests: build/tests/fgl.o build/fgl.o $(TESTS) $(EXAMPLES) $(TOOLS) build/tests/user_fglrun build/tests/json_strict

# two programs at a time (FGL_TEST_JOBS; outputs still whole and in order)
# the build two compilers at a time unless make was given its own -j (a plain `make test` on 2 cores: the
# build is about half of its time)
TEST_BUILD_J := $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j2)
# The two longest first (test_fglrun.sh, test_fed: about 25 s each), so that no long one starts last.
SLOW_FIRST := tests/test_fglrun.sh\ build build/tests/test_fed
test:
	@$(MAKE) --no-print-directory $(TEST_BUILD_J) tests
	@FGL_TEST_JOBS=$${FGL_TEST_JOBS:-2} ./tests/run.sh $(SLOW_FIRST) tests/run_check.sh tests/compile_check.sh\ quick \
	  tests/house_check.sh tests/install_check.sh $(filter-out build/tests/test_fed,$(TESTS)) $(SUITE_SH)

test-long: tests build/fglrun_ref $(WASM_IF)
	@FGL_TEST_LONG=1 ./tests/run.sh $(LONG)

same-bits: build/fglrun
	@./tests/run.sh tests/same_bits.sh\ build

# every file of src/ compiled alone (src/alone.h), and build/compile_commands.json for clangd
alone: headers
	@./tests/run.sh tests/alone_check.sh

suite: tests
	@./tests/run.sh $(SUITE)

build-san: $(SANTESTS)

build-vg: $(VGTESTS)

sanitize: $(SANTESTS)
	@ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=print_stacktrace=1 ./tests/run.sh $(SANTESTS)

valgrind: $(VGTESTS)
	@./tests/run.sh $(foreach t,$(VGTESTS),tests/valgrind.sh\ $(t))

bench: $(BENCHES)

tools: $(TOOLS)

# Downloads (or, with FGL_DATA_URL=file:///dir, copies from a mirror) the
# datasets of tools/datasets.txt - by default those tools/datasets.sha256
# has sums for, DATASETS="A B" some, DATASETS=all every one - converts them
# and checks the result against tools/datasets.sha256.
data: build/tools/fgl_convert
	@./tools/fetch_data.sh $(DATASETS)

# make reproduce: every section of bench/results.sh (listed by the script itself,
# so a section added there is included) into bench/results/, resumable: a row
# already in its file is not run again (delete a file, or set RESULTS_DIR to a
# new directory, to measure anew); rows whose dataset is missing are skipped,
# one line each. REPRO_QUICK=1: one seed and --rounds 10 on every row, into
# build/reproduce-quick/ (never mixed with the full results). Then the rows as
# markdown tables in build/reproduce[-quick]/tables.md.
REPRO_QUICK ?= 0
REPRO_DIR   := $(if $(filter 1,$(REPRO_QUICK)),build/reproduce-quick,bench/results)
REPRO_MD    := $(if $(filter 1,$(REPRO_QUICK)),build/reproduce-quick,build/reproduce)
reproduce: build/fglrun
	@mkdir -p $(REPRO_DIR) $(REPRO_MD)
	@REPRO_QUICK=$(REPRO_QUICK) RESULTS_DIR=$(REPRO_DIR) FGL_DATA="$(FGL_DATA)" sh bench/results.sh $$(sh bench/results.sh --list)
	@for f in $(REPRO_DIR)/*.jsonl; do [ -f "$$f" ] || continue; echo "## $$(basename $$f .jsonl)"; echo; \
	     sh bench/results_table.sh "$$f"; echo; done > $(REPRO_MD)/tables.md
	@echo "make reproduce: results in $(REPRO_DIR)/, tables in $(REPRO_MD)/tables.md"

install: build/fglrun
	install -d $(DESTDIR)$(PREFIX)/include/fgl $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/fgl/
	install -m 755 build/fglrun $(DESTDIR)$(PREFIX)/bin/fglrun
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tools/fgl.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fgl.pc
	@chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/fgl.pc

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/fgl/,$(HEADERS)) $(DESTDIR)$(PREFIX)/bin/fglrun \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/fgl.pc
	-rmdir $(DESTDIR)$(PREFIX)/include/fgl

clean:
	rm -rf build

# make fuzz: libFuzzer harnesses of every file reader (tests/fuzz, clang,
# ASan + UBSan), seeded at run time from small excerpts of $(FGL_DATA);
# each runs FUZZ_TIME seconds (default 60) with no allocation over 256 MB
# and 1 GB of RSS (tests/fuzz/run.sh). Not part of make test; .ci/run runs it with FUZZ_TIME=15.
FUZZ_TIME ?= 60
FUZZERS   := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZFLAGS := -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(WARN) -I.

.PHONY: fuzz
fuzz: $(FUZZERS) build/fuzz/seeds
	@./tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZERS)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(HEADERS)
	@mkdir -p build/fuzz
	clang $(FUZZFLAGS) $< -o $@ -lm

build/fuzz/seeds: tests/fuzz/seeds.c $(HEADERS)
	@mkdir -p build/fuzz
	$(CC) -std=c99 -O1 $(WARN) -I. $< -o $@ -lm
