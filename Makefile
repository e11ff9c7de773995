# ptdbg — top-level Makefile.
#
# Knobs: V=1 (echo commands), DEVELOPER=1 (warnings are errors),
# SANITIZE=address,undefined, PREFIX=/usr/local for install.
# Every .c under src/ goes into libptdbg; each cmd/<name>/ is a program;
# each tests/unit/test-*.c is a cmocka binary.  Build products go to build/
# (build-san/ when SANITIZE is set) so both variants can coexist.

PREFIX ?= /usr/local
CC ?= cc
SANITIZE ?=
ifneq ($(SANITIZE),)
B ?= build-san
else
B ?= build
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

DEPS_PKGS := g++ libipt-dev libunwind-dev libzydis-dev libdw-dev libelf-dev libcmocka-dev libreadline-dev pkg-config gdb clang libclang-rt-14-dev libc6-dbg linux-perf lldb

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(DEVELOPER),1)
WARN += -Werror -Wstrict-prototypes -Wmissing-prototypes -Wvla
endif
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -D_GNU_SOURCE -MMD -MP
# The library, the server and the tests see the internal headers; the shell
# and ptdbg-report only the public API (include/ptdbg), so a front end that
# reaches into src/ does not compile (tests/integration/api-includes.sh
# says which include is wrong).  libptdbg.so exports exactly what
# include/ptdbg declares with PTD_EXPORT (-fvisibility=hidden;
# tests/integration/api-exports.sh).
INC := -Iinclude -Isrc
$(B)/cmd/ptdbg/%.o $(B)/cmd/ptdbg-report/%.o $(B)/cmd/ptdbg-server/%.o: INC := -Iinclude
# -lz (soft's register snapshots): zlib1g-dev comes with libelf-dev and libdw-dev.
LIBS := -lipt -lZydis -lZycore -ldw -lelf -lunwind-ptrace -lunwind-generic -lunwind -lz -lpthread -lstdc++
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDSAN := -fsanitize=$(SANITIZE)
endif

LIB_SRCS := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
CMDS := $(notdir $(wildcard cmd/*))
CMD_BINS := $(CMDS:%=$(B)/bin/%)
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
TESTPROG_SRCS := $(sort $(wildcard testprogs/*.c))

.SECONDEXPANSION:
# Keep intermediate objects; listed explicitly, because a bare .SECONDARY:
# makes every target intermediate, and make never remakes a missing
# intermediate target that has no prerequisites (deps-check was skipped so).
# The programs' and unit tests' objects too: a new file's object, not yet
# named by a .d file, would otherwise be deleted after the build, and the
# next make (a test's `make install`) would build and link the programs
# again while other tests run them.
CMD_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard cmd/*/*.c))
UNIT_OBJS := $(UNIT_SRCS:%.c=$(B)/%.o)
.SECONDARY: $(LIB_OBJS) $(CMD_OBJS) $(UNIT_OBJS)
.PHONY: all deps deps-check check demo bench install clean testprogs unit-tests fuzz
all: $(B)/libptdbg.a $(B)/libptdbg.so $(CMD_BINS) testprogs

# Install the Debian packages the build needs (used by check/demo when one is missing).
deps:
	@missing=""; for p in $(DEPS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all installed"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing:$$missing"; \
	  echo "deps: run as root: apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(INC) -c $< -o $@

$(B)/libptdbg.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libptdbg.so: $(LIB_OBJS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libptdbg.so.0 $(LDSAN) -o $@ $^ $(LIBS)

# Programs link the static library so they run from the build tree.
# ptdbg-report shares the shell's gdb-style output formatting.
EXTRA_OBJS_ptdbg-report := $(B)/cmd/ptdbg/print.o
$(B)/bin/%: $(B)/libptdbg.a $$(subst .c,.o,$$(addprefix $(B)/,$$(wildcard cmd/$$*/*.c))) $$(EXTRA_OBJS_$$*)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDSAN) -o $@ $(filter %.o,$^) $(B)/libptdbg.a $(LIBS) $(if $(filter ptdbg,$*),-lreadline)
$(B)/tests/test-%: $(B)/tests/unit/test-%.o $(B)/libptdbg.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDSAN) -o $@ $< $(B)/libptdbg.a $(LIBS) -lcmocka

unit-tests: $(UNIT_BINS)

# Test programs: non-PIE, -O0 -g (name) and -O2 -g (name-O2); see testprogs/Makefile.
testprogs:
	$(Q)$(MAKE) -s -C testprogs

# check and demo first make sure the packages are there (installing them as
# root, printing the apt-get line otherwise), then build: in a sub-make, so
# that nothing is compiled before the headers exist, even with -j.
# The fuzz targets are built here too, all CPUs at once unless make was
# given -j (the tests then find them up to date: none compiles while
# others run beside it).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	$(Q)$(MAKE) --no-print-directory deps-check
	$(Q)$(MAKE) --no-print-directory $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(JOBS)) all unit-tests
	$(Q)$(MAKE) --no-print-directory $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(JOBS)) fuzz SANITIZE=
	$(Q)B=$(B) SANITIZE="$(SANITIZE)" bash tests/run-all.sh

deps-check:
	@missing=""; for p in $(DEPS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then $(MAKE) deps; fi

demo:
	$(Q)$(MAKE) --no-print-directory deps-check
	$(Q)$(MAKE) --no-print-directory all
	$(B)/bin/ptdbg-report testprogs/build/segfault
	$(Q)$(B)/bin/ptdbg-report -q --format=svg -o $(B)/demo-segfault.svg testprogs/build/segfault
	@echo "demo: the flame chart of the same crash is $(abspath $(B))/demo-segfault.svg (open it in a browser)"

bench: all
	$(Q)B=$(B) bash bench/run.sh

# libFuzzer targets (tests/fuzz/fuzz-bundle.c, fuzz-shell.c, fuzz-rsp.c,
# fuzz-decode.c, fuzz-ptcont.c; run briefly by tests/integration/fuzz-*.sh): the library and the
# shell's command layer compiled again with clang and
# -fsanitize=fuzzer-no-link,address,undefined into build/fuzz/ (one tree
# for the plain and the sanitized build: the flags are the same).
FUZZ_CC ?= clang
FUZZ_B ?= build/fuzz
comma := ,
FUZZ_FLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Iinclude -Isrc -Icmd/ptdbg -MMD -MP \
	-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_B)/%.o)
FUZZ_SHELL_OBJS := $(patsubst %.c,$(FUZZ_B)/%.o,$(filter-out cmd/ptdbg/main.c,$(wildcard cmd/ptdbg/*.c)))
FUZZ_BINS := $(FUZZ_B)/fuzz-bundle $(FUZZ_B)/fuzz-shell $(FUZZ_B)/fuzz-rsp $(FUZZ_B)/fuzz-decode \
	$(FUZZ_B)/fuzz-ptcont $(FUZZ_B)/gen-seeds
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_SHELL_OBJS)
fuzz: $(FUZZ_BINS)
$(FUZZ_B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_B)/fuzz-bundle: $(FUZZ_B)/tests/fuzz/fuzz-bundle.o $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(FUZZ_B)/fuzz-rsp: $(FUZZ_B)/tests/fuzz/fuzz-rsp.o $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(FUZZ_B)/fuzz-decode: $(FUZZ_B)/tests/fuzz/fuzz-decode.o $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
$(FUZZ_B)/fuzz-ptcont: $(FUZZ_B)/tests/fuzz/fuzz-ptcont.o $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)
# the seed writer for fuzz-decode: plain code, no fuzzer runtime
$(FUZZ_B)/gen-seeds: tests/fuzz/gen-seeds.c src/record/ptsynth.c src/disasm/disasm.c src/util/error.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) -std=gnu11 -g -O1 -D_GNU_SOURCE -Iinclude -Isrc -o $@ $^ $(LIBS)
# The shell target may not create or touch any process (see fuzz-shell.c);
# its command layer includes the completion (readline).
FUZZ_WRAP := $(addprefix -Wl$(comma)--wrap=,fork ptrace kill waitpid sched_setaffinity \
	process_vm_readv process_vm_writev ptd_bundle_save)
$(FUZZ_B)/fuzz-shell: $(FUZZ_B)/tests/fuzz/fuzz-shell.o $(FUZZ_SHELL_OBJS) $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(FUZZ_WRAP) -o $@ $^ $(LIBS) -lreadline

# The version ptd_version() returns, from the public header (ptdbg.pc).
VERSION := $(shell sed -n -E 's/^\#define PTD_VERSION_(MAJOR|MINOR) ([0-9]+).*/\2/p' include/ptdbg/ptdbg.h | paste -sd.)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/ptdbg \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CMD_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(B)/libptdbg.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libptdbg.so $(DESTDIR)$(PREFIX)/lib/libptdbg.so.0
	ln -sf libptdbg.so.0 $(DESTDIR)$(PREFIX)/lib/libptdbg.so
	install -m 644 include/ptdbg/*.h $(DESTDIR)$(PREFIX)/include/ptdbg/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' ptdbg.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ptdbg.pc
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build build-san
	$(MAKE) -s -C testprogs clean

-include $(LIB_OBJS:.o=.d) $(patsubst %.c,$(B)/%.d,$(wildcard cmd/*/*.c) $(UNIT_SRCS))
-include $(wildcard $(FUZZ_B)/*/*.d $(FUZZ_B)/*/*/*.d $(FUZZ_B)/*/*/*/*.d)
