# kscore build. `make` builds build/score and its two helpers; `make test` builds the sanitized test
# binaries and runs the whole CPU suite (GPU tests report themselves skipped where there is no GPU);
# `make gpu-test` and `make bench` are the GPU host's entry points.

VERSION     := 0.1.0
CUDA_HOME   ?= /usr/local/cuda
PREFIX      ?= /usr/local
BINDIR       = $(PREFIX)/bin
LIBEXECDIR   = $(PREFIX)/libexec/kscore
DATADIR      = $(PREFIX)/share/kscore

CC          ?= cc
OPT         ?= -O2 -g
WARN         = -Wall -Wextra -Werror -Wstrict-prototypes -Wno-missing-field-initializers -Wshadow
PKGS         = libcjson libcurl libgit2 zlib libcrypto
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CPPFLAGS_KS  = -Isrc -I. -Iinclude -I$(CUDA_HOME)/include $(PKG_CFLAGS) -DKS_VERSION=\"$(VERSION)\" \
               -DKS_CUDA_HOME=\"$(CUDA_HOME)\" -DKS_LIBEXECDIR=\"$(LIBEXECDIR)\" \
               -DKS_DATADIR=\"$(DATADIR)\" -D_GNU_SOURCE
CFLAGS_KS    = -std=c11 -pthread $(WARN) $(OPT) -fno-strict-aliasing $(CPPFLAGS_KS) $(CFLAGS)
LDFLAGS_KS   = -Wl,--as-needed -Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS)
LIBS_KS      = $(PKG_LIBS) -pthread -ldl -lm
NVRTC_LIBS   = -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnvrtc

# The tree is the architecture (docs/architecture.md): src/<part>/ holds a part's modules, each a
# header beside its source. Three programs: score (src/cli/main.c), kscore-compile
# (src/lang/cuda/compile_main.c) and kscore-worker (src/worker/worker_*.c: the worker process,
# which links only those files and the library and loads the CUDA driver at run time). Everything
# else is libkscore.a, which the programs and the tests link.
ALL_SRC     := $(wildcard src/*/*.c src/*/*/*.c)
WEB_SRC     := $(wildcard web_export/*.c)
HDRS        := $(wildcard src/*/*.h src/*/*/*.h web_export/*.h include/*.h include/kscore/*.h)
WORKER_SRC  := $(wildcard src/worker/worker_*.c)
WORKER_OBJ  := $(patsubst src/%.c,build/obj/%.o,$(WORKER_SRC))
MAINS        = src/cli/main.c src/lang/cuda/compile_main.c $(WORKER_SRC)
# the CUPTI injection library's driver side: only in libkscore-cupti.so (its core, drvrec, drvmap
# and drvsha, is in the library too: the reader and the tests use it)
CUPTI_MAIN   = src/trace/cupti/inject.c
LIB_SRC     := $(filter-out $(MAINS) $(CUPTI_MAIN),$(ALL_SRC))
LIB_OBJ     := $(patsubst src/%.c,build/obj/%.o,$(LIB_SRC)) \
               $(patsubst web_export/%.c,build/obj/web_export/%.o,$(WEB_SRC)) build/obj/web_export/ks_assets.o
TEST_SRC    := $(wildcard tests/test_*.c)

# web_export/: the static site writer (score export), a top-level part of its own; its stylesheet
# and script are embedded into the binary as C arrays (web_export/embed.sh: sh and od, no xxd needed).
WEB_ASSETS   = web_export/assets/site.css web_export/assets/site.js
WEB_TEST_SRC := $(wildcard tests/export/test_*.c)

SAN          = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TLIB_OBJ    := $(patsubst build/obj/%,build/test/obj/%,$(LIB_OBJ))
TEST_BIN    := $(patsubst tests/%.c,build/test/%,$(TEST_SRC)) \
               $(patsubst tests/export/%.c,build/test/%,$(WEB_TEST_SRC))

V ?= 0
ifeq ($(V),0)
Q = @
QCC = @echo '  CC     ' $@;
QLD = @echo '  LINK   ' $@;
else
Q =
QCC =
QLD =
endif

# the injection library needs CUPTI's headers (CUDA's extras); a toolkit without them builds the
# rest, and the tests that load the library skip by name
CUPTI_LIB   := $(if $(wildcard $(CUDA_HOME)/include/cupti.h),build/libkscore-cupti.so)
all: build/score build/kscore-compile build/kscore-worker build/kscore-triton $(CUPTI_LIB) build/kscore-oracle lib

# The library's objects are position-independent, so the same objects make libkscore.a and
# libkscore.so (the public API, include/kscore.h).
build/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) -fPIC -c $< -o $@

build/libkscore.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

build/score: build/obj/cli/main.o build/libkscore.a
	$(QLD)$(CC) $(LDFLAGS_KS) -o $@ $^ $(LIBS_KS)

build/kscore-compile: build/obj/lang/cuda/compile_main.o build/libkscore.a
	$(QLD)$(CC) $(LDFLAGS_KS) -o $@ $^ $(NVRTC_LIBS) $(LIBS_KS)

build/kscore-worker: $(WORKER_OBJ) build/libkscore.a
	$(QLD)$(CC) $(LDFLAGS_KS) -o $@ $^ $(LIBS_KS)

# The driver-level tracer (docs/drvtrace.md): a CUPTI injection library the driver loads through
# CUDA_INJECTION64_PATH. Self-contained (libc, pthread, dl: CUPTI and the driver are dlopen'd), its
# symbols hidden but InitializeInjection and kscore_drvtrace_mark (src/trace/cupti/export.map).
CUPTI_SRC    = $(CUPTI_MAIN) src/trace/cupti/drvrec.c src/trace/cupti/drvmap.c src/trace/cupti/drvsha.c
CUPTI_OBJ   := $(patsubst src/%.c,build/cupti/obj/%.o,$(CUPTI_SRC))

build/cupti/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) -fPIC -fvisibility=hidden -c $< -o $@

build/libkscore-cupti.so: $(CUPTI_OBJ) src/trace/cupti/export.map
	$(QLD)$(CC) -shared -Wl,--version-script=src/trace/cupti/export.map -Wl,--no-undefined \
		-Wl,--as-needed $(LDFLAGS) -o $@ $(CUPTI_OBJ) -pthread -ldl

# The library for programs that embed the scorer: include/kscore.h is its public API (docs/api.md).
# The shared library exports the kscore_ names alone (include/kscore.map); its soname changes with
# the API's major version.
LIBDIR       = $(PREFIX)/lib
INCLUDEDIR   = $(PREFIX)/include
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
SOMAJOR     := $(word 1,$(subst ., ,$(VERSION)))
SONAME       = libkscore.so.$(SOMAJOR)
SHLIB        = build/libkscore.so.$(VERSION)
PUB_HDRS    := include/kscore.h

$(SHLIB): $(LIB_OBJ) include/kscore.map
	$(QLD)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=include/kscore.map \
		-Wl,--no-undefined $(LDFLAGS_KS) -o $@ $(LIB_OBJ) $(LIBS_KS)
	$(Q)ln -sf $(notdir $@) build/$(SONAME) && ln -sf $(SONAME) build/libkscore.so

build/kscore.pc: Makefile
	@mkdir -p build
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		'Name: kscore' 'Description: scorer of GPU-kernel submissions (the public API of kscore.h)' \
		'Version: $(VERSION)' 'Requires.private: $(PKGS)' 'Cflags: -I$${includedir}' \
		'Libs: -L$${libdir} -lkscore' 'Libs.private: -pthread -ldl -lm' > $@

lib: build/libkscore.a $(SHLIB) build/kscore.pc

# kscore-triton, the Triton front-end's helper (Python: src/lang/triton/), beside the other helpers:
# the launcher script and the package it imports from its own folder.
TRITON_PY   := $(wildcard src/lang/triton/kscore_triton/*.py)

build/kscore-triton: src/lang/triton/kscore-triton $(TRITON_PY)
	@mkdir -p build
	$(Q)rm -rf build/kscore_triton && mkdir -p build/kscore_triton && cp $(TRITON_PY) build/kscore_triton/
	$(Q)cp src/lang/triton/kscore-triton $@ && chmod 755 $@

# kscore-oracle, the trusted helper that runs an imported problem set's own code (Python:
# src/load/sets/), installed the same way; it borrows kscore_triton's confinement from beside it.
ORACLE_PY   := $(wildcard src/load/sets/kscore_oracle/*.py)

build/kscore-oracle: src/load/sets/kscore-oracle $(ORACLE_PY) build/kscore-triton
	@mkdir -p build
	$(Q)rm -rf build/kscore_oracle && mkdir -p build/kscore_oracle && cp $(ORACLE_PY) build/kscore_oracle/
	$(Q)cp src/load/sets/kscore-oracle $@ && chmod 755 $@

build/gen/ks_assets.c: $(WEB_ASSETS) web_export/embed.sh
	@mkdir -p build/gen
	$(Q)sh web_export/embed.sh $@ ks_asset_site_css=web_export/assets/site.css ks_asset_site_js=web_export/assets/site.js

build/obj/web_export/%.o: web_export/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) -fPIC -c $< -o $@

build/obj/web_export/ks_assets.o: build/gen/ks_assets.c
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) -fPIC -c $< -o $@

build/test/obj/web_export/%.o: web_export/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) $(SAN) -c $< -o $@

build/test/obj/web_export/ks_assets.o: build/gen/ks_assets.c
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) $(SAN) -c $< -o $@

# ---- tests: library and score binary under ASan+UBSan; the helpers stay unsanitized because
# they run under rlimits (ASan reserves terabytes of address space) and load the CUDA driver.
build/test/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_KS) $(SAN) -c $< -o $@

build/test/libkscore.a: $(TLIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

build/test/score: build/test/obj/cli/main.o build/test/libkscore.a
	$(QLD)$(CC) $(SAN) $(LDFLAGS_KS) -o $@ $^ $(LIBS_KS)

build/test/test_%: tests/test_%.c $(wildcard tests/*.h) build/test/libkscore.a
	$(QLD)$(CC) $(CFLAGS_KS) $(SAN) -Itests $(LDFLAGS_KS) -o $@ $< build/test/libkscore.a $(LIBS_KS)

build/test/test_%: tests/export/test_%.c tests/export/export_test.h tests/ktest.h build/test/libkscore.a
	$(QLD)$(CC) $(CFLAGS_KS) $(SAN) -Itests $(LDFLAGS_KS) -o $@ $< build/test/libkscore.a $(LIBS_KS)

test-build: all build/test/score $(TEST_BIN)

# The committed fixture of the site tests (tests/export/export_test.h, kept in web_export/fixtures/),
# written again.
build/test/make_fixture: tests/export/make_fixture.c tests/export/export_test.h build/test/libkscore.a
	$(QLD)$(CC) $(CFLAGS_KS) $(SAN) -Itests $(LDFLAGS_KS) -o $@ $< build/test/libkscore.a $(LIBS_KS)

export-fixture: build/test/make_fixture
	rm -rf web_export/fixtures/batch
	build/test/make_fixture web_export/fixtures/batch

# `make test` first installs what is missing (apt-get), then re-reads pkg-config in a sub-make.
deps:
	sh scripts/install-deps.sh

deps-test:
	sh scripts/install-deps.sh --test

test check: deps-test
	$(MAKE) test-build
	$(MAKE) fuzz-test-build
	sh tests/run.sh

demo: deps
	$(MAKE) all
	build/score submissions/example/reflexion_oneshot_tritonbench_4.json --team example --out build/example-results; \
	status=$$?; echo "score exited with status $$status (see build/score --help)"; \
	[ $$status -le 3 ]

# The GPU suites without sanitizers (the GPU host runs them from a packed build): test_gpu, and
# test_gpu_lanes (--devices: lanes, several GPUs).
GPU_TEST_BIN = build/gpu/test_gpu build/gpu/test_gpu_lanes
$(GPU_TEST_BIN): build/gpu/%: tests/%.c tests/ktest.h tests/gputest.h tests/passestest.h build/libkscore.a
	@mkdir -p build/gpu
	$(QLD)$(CC) $(CFLAGS_KS) -Itests $(LDFLAGS_KS) -o $@ $< build/libkscore.a $(LIBS_KS)

# the driver-level tracer's checker for tests/gpu/drvtrace.sh (with build/libkscore-cupti.so)
build/gpu/drvtrace_check: tests/drvtrace_check.c build/libkscore.a
	@mkdir -p build/gpu
	$(QLD)$(CC) $(CFLAGS_KS) $(LDFLAGS_KS) -o $@ $< build/libkscore.a $(LIBS_KS)

gpu-test: all $(GPU_TEST_BIN)
	sh tests/gpu/run.sh

bench: all build/bench/ctx-probe
	sh bench/run.sh

# what starting a CUDA process costs (bench/ctx-probe.sh); libc and the driver only
build/bench/ctx-probe: bench/ctx-probe.c
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< -ldl

# ---- fuzzing (docs/fuzzing.md): libFuzzer targets built by clang with ASan and UBSan. The library
# is compiled again for them into build/fuzz/obj/ (coverage instrumentation, no libFuzzer main).
FUZZ_CC      ?= clang
FUZZ_TARGETS  = submission extract expr plan problem manifest trace nvlog proto pyset drvtrace oracle
FUZZ_SECONDS ?= 600
FUZZ_CFLAGS   = -std=c11 -pthread $(WARN) -O1 -g -fno-strict-aliasing $(CPPFLAGS_KS) \
                -fsanitize=address,undefined -fno-omit-frame-pointer
FUZZ_OBJ     := $(patsubst build/obj/%,build/fuzz/obj/%,$(LIB_OBJ))
FUZZ_BIN     := $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_TARGETS))
# does $(FUZZ_CC) link a libFuzzer target? (expanded only by the rules that need it)
FUZZ_OK       = $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\
                { return (int)(d[0] * 0 + n * 0); }\n' | $(FUZZ_CC) -x c -fsanitize=fuzzer \
                -o /dev/null - >/dev/null 2>&1 && echo yes)

build/fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/obj/web_export/%.o: web_export/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(QCC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/obj/web_export/ks_assets.o: build/gen/ks_assets.c
	@mkdir -p $(dir $@)
	$(QCC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/libkscore.a: $(FUZZ_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/common.c fuzz/fuzz.h build/fuzz/libkscore.a
	$(QLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Ifuzz $(LDFLAGS_KS) -o $@ $< fuzz/common.c \
		build/fuzz/libkscore.a $(LIBS_KS)

fuzz-build: $(FUZZ_BIN)

# seeds from the fixtures, submissions and reference problems: build/fuzz/corpus/<target>/seeds/
fuzz-corpus:
	$(Q)python3 fuzz/seeds.py build/fuzz/corpus >/dev/null

# every target for FUZZ_SECONDS (FUZZ_JOBS at a time; FUZZ_TARGETS="expr plan" for some)
fuzz: fuzz-build fuzz-corpus
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh long $(FUZZ_TARGETS)

# a few seconds each plus the regression inputs of fuzz/regress/ (part of `make test`)
fuzz-smoke: fuzz-build fuzz-corpus
	sh fuzz/run.sh smoke $(FUZZ_TARGETS)

# what `make test` builds: the targets where clang can link them, else a note (run.sh skips them)
fuzz-test-build:
	$(Q)if [ "$(FUZZ_OK)" = yes ]; then $(MAKE) --no-print-directory fuzz-build fuzz-corpus; \
	else echo "fuzz: $(FUZZ_CC) cannot link libFuzzer targets; the fuzz smoke tests are skipped"; fi

# install puts the programs, the reference problems, the man page and the docs under PREFIX
# (DESTDIR for staging); uninstall removes exactly those, then the folders kscore alone owns if
# they are left empty.
MANDIR       = $(PREFIX)/share/man/man1
DOCDIR       = $(PREFIX)/share/doc/kscore
DOCS        := README.md $(wildcard docs/*.md)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 build/libkscore.a $(DESTDIR)$(LIBDIR)/libkscore.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libkscore.so
	install -m 644 build/kscore.pc $(DESTDIR)$(PKGCONFIGDIR)/kscore.pc
	install -m 755 build/score $(DESTDIR)$(BINDIR)/score
	install -m 755 build/kscore-compile build/kscore-worker build/kscore-triton $(DESTDIR)$(LIBEXECDIR)/
	install -d $(DESTDIR)$(LIBEXECDIR)/kscore_triton
	install -m 644 $(TRITON_PY) $(DESTDIR)$(LIBEXECDIR)/kscore_triton/
	install -m 755 build/kscore-oracle $(DESTDIR)$(LIBEXECDIR)/
	install -d $(DESTDIR)$(LIBEXECDIR)/kscore_oracle
	install -m 644 $(ORACLE_PY) $(DESTDIR)$(LIBEXECDIR)/kscore_oracle/
	cp -R reference_tests scoring $(DESTDIR)$(DATADIR)/
	install -m 644 docs/score.1 $(DESTDIR)$(MANDIR)/score.1
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DATADIR)/compat
	cp -R compat/include $(DESTDIR)$(DATADIR)/compat/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/score $(DESTDIR)$(MANDIR)/score.1
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(PUB_HDRS))) $(DESTDIR)$(PKGCONFIGDIR)/kscore.pc
	rm -f $(DESTDIR)$(LIBDIR)/libkscore.a $(DESTDIR)$(LIBDIR)/libkscore.so $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/$(notdir $(SHLIB))
	rm -f $(DESTDIR)$(LIBEXECDIR)/kscore-compile $(DESTDIR)$(LIBEXECDIR)/kscore-worker $(DESTDIR)$(LIBEXECDIR)/kscore-triton
	rm -rf $(DESTDIR)$(LIBEXECDIR)/kscore_triton
	rm -f $(DESTDIR)$(LIBEXECDIR)/kscore-oracle
	rm -rf $(DESTDIR)$(LIBEXECDIR)/kscore_oracle
	rm -rf $(DESTDIR)$(DATADIR)/reference_tests $(DESTDIR)$(DATADIR)/scoring $(DESTDIR)$(DATADIR)/compat
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	rm -rf build

.PHONY: lib all deps deps-test demo test check test-build gpu-test bench install uninstall clean \
        fuzz fuzz-build fuzz-corpus fuzz-smoke fuzz-test-build export-fixture
