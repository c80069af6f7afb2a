# perfsift - one non-recursive Makefile.
#   make                 libparse (static + shared) and ./perfsift
#   make check           unit tests + differential tests against real perf
#   make check SANITIZE=1  the same, built with ASan+UBSan in build-san/
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make deps            install the Debian packages that are missing
#   make bench           time perfsift against perf on a large capture
CC       ?= cc
CFLAGS   ?= -O2 -g
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR   ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
VERSION  := 0.1.0

PKGS     := libtraceevent jansson sqlite3 libelf libdw libzstd zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
PKG_LIBS   += -liberty
PKG_LIBS   += -lm

ifeq ($(SANITIZE),1)
BUILD    := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD    := build
SANFLAGS :=
endif

PS_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP \
	-Ilibparse/include $(PKG_CFLAGS) $(SANFLAGS)
LIB_CFLAGS := $(PS_CFLAGS) -fPIC -fvisibility=hidden

LIB_SRC  := $(wildcard libparse/*.c)
CMD_SRC  := $(wildcard cmd/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

ifeq ($(SANITIZE),1)
PROG     := $(BUILD)/perfsift
else
PROG     := perfsift
endif

all: $(PROG) $(BUILD)/libperfsift.a $(BUILD)/libperfsift.so

$(BUILD)/libparse/%.o: libparse/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/cmd/%.o: cmd/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PS_CFLAGS) $(CFLAGS) -c $< -o $@

# schemas/sqlite.sql is the database schema; sqlite_db.c embeds it as a string.
$(BUILD)/gen/sqlite_schema.inc: schemas/sqlite.sql
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
$(BUILD)/cmd/sqlite_db.o: $(BUILD)/gen/sqlite_schema.inc
$(BUILD)/cmd/sqlite_db.o: PS_CFLAGS += -I$(BUILD)/gen

$(BUILD)/libperfsift.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/libperfsift.so: $(LIB_OBJ) libparse/perfsift.map
	$(CC) -shared -Wl,-soname,libperfsift.so.0 -Wl,--version-script=libparse/perfsift.map \
		$(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(PKG_LIBS) $(LDLIBS)

$(PROG): $(CMD_OBJ) $(BUILD)/libperfsift.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libperfsift.a $(PKG_LIBS) $(LDLIBS)

# walk_fast.c is cmd/'s: its test links the cmd objects too
$(BUILD)/tests/test_walk_fast: tests/unit/test_walk_fast.c $(BUILD)/libpscmd.a \
		$(BUILD)/libperfsift.a tests/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PS_CFLAGS) -Itests $(CFLAGS) $< -o $@ $(BUILD)/libpscmd.a \
		$(BUILD)/libperfsift.a $(PKG_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libperfsift.a tests/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PS_CFLAGS) -Itests $(CFLAGS) $< -o $@ $(BUILD)/libperfsift.a \
		$(PKG_LIBS) $(LDLIBS)

# The public header must stand alone under -pedantic.
$(BUILD)/tests/headertest.o: libparse/include/perfsift.h
	@mkdir -p $(dir $@)
	echo '#include "perfsift.h"' | $(CC) -std=c11 -pedantic -Wall -Wextra -Werror \
		-Ilibparse/include -x c -c - -o $@

check: all $(UNIT_BIN) $(BUILD)/tests/headertest.o
	@PERFSIFT=$(abspath $(PROG)) BUILD=$(BUILD) \
		SCRIPT_SETS=$(if $(filter 1,$(SANITIZE)),sanitize,all) tests/run.sh $(UNIT_BIN)

bench: all
	tests/bench.sh $(abspath $(PROG))
	tests/bench_folded.sh $(abspath $(PROG))
	tests/bench_sqlite.sh $(abspath $(PROG))
	tests/bench_json.sh $(abspath $(PROG))
	tests/bench_diff.sh $(abspath $(PROG))
	tests/bench_record.sh $(abspath $(PROG))

deps:
	tests/deps.sh

perfsift.pc: libparse/perfsift.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' $< > $@

install: all perfsift.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(PROG) $(DESTDIR)$(BINDIR)/perfsift
	install -m 644 $(BUILD)/libperfsift.a $(DESTDIR)$(LIBDIR)/libperfsift.a
	install -m 755 $(BUILD)/libperfsift.so $(DESTDIR)$(LIBDIR)/libperfsift.so.0
	ln -sf libperfsift.so.0 $(DESTDIR)$(LIBDIR)/libperfsift.so
	install -m 644 libparse/include/perfsift.h $(DESTDIR)$(INCLUDEDIR)/perfsift.h
	install -m 644 perfsift.pc $(DESTDIR)$(PKGCONFIGDIR)/perfsift.pc
	install -m 644 cmd/perfsift.1 $(DESTDIR)$(MANDIR)/man1/perfsift.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfsift $(DESTDIR)$(LIBDIR)/libperfsift.a \
		$(DESTDIR)$(LIBDIR)/libperfsift.so $(DESTDIR)$(LIBDIR)/libperfsift.so.0 \
		$(DESTDIR)$(INCLUDEDIR)/perfsift.h $(DESTDIR)$(PKGCONFIGDIR)/perfsift.pc \
		$(DESTDIR)$(MANDIR)/man1/perfsift.1

clean:
	rm -rf build build-san build-fuzz perfsift perfsift.pc

.PHONY: all check bench deps install uninstall clean

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)

# A real example: record a CPU-bound loop, read it back.
EXAMPLE := /tmp/perfsift-example.data
example: $(PROG)
	perf record -q -g -F 999 -o $(EXAMPLE) -- sh -c 'i=0; while [ $$i -lt 400000 ]; do i=$$((i+1)); done'
	./$(PROG) info $(EXAMPLE)
	./$(PROG) script $(EXAMPLE) | head -24
	@perf script -i $(EXAMPLE) > $(EXAMPLE).perf-script.txt 2>/dev/null; \
	./$(PROG) script -q $(EXAMPLE) | cmp -s - $(EXAMPLE).perf-script.txt && \
		echo "perfsift script == perf script on $(EXAMPLE)" || \
		echo "perfsift script differs from perf script on $(EXAMPLE)"; rm -f $(EXAMPLE).perf-script.txt
	./$(PROG) folded $(EXAMPLE) | sort -k2 -n -r | head -5
	./$(PROG) flamegraph $(EXAMPLE) -o $(EXAMPLE).svg
	@echo "flame graph: $(EXAMPLE).svg (open it in a browser)"
.PHONY: example

# --- fuzzing (tests/fuzz/README.md) -------------------------------------------
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=2] [FUZZ_TARGETS="file pipe ..."] [FUZZ_SEED=N]
# builds the libFuzzer targets with clang in build-fuzz/ and runs each for
# FUZZ_SECONDS, FUZZ_JOBS at a time, on seeds made from the captures.
FUZZ_CC      ?= clang
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP -g -O1 -Ilibparse/include \
	$(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_DECODERS := file pipe ring tracepoint features
FUZZ_EMITTERS := script folded json sqlite
FUZZ_TARGETS ?= $(FUZZ_DECODERS) $(FUZZ_EMITTERS)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_CMD_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out cmd/main.c,$(CMD_SRC)))
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/libparse/%.o: libparse/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fPIC -c $< -o $@
$(FUZZ_BUILD)/cmd/%.o: cmd/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_BUILD)/gen -c $< -o $@
$(FUZZ_BUILD)/gen/sqlite_schema.inc: $(BUILD)/gen/sqlite_schema.inc
	@mkdir -p $(dir $@)
	cp $< $@
$(FUZZ_BUILD)/cmd/sqlite_db.o: $(FUZZ_BUILD)/gen/sqlite_schema.inc
$(FUZZ_BUILD)/libfuzzps.a: $(FUZZ_LIB_OBJ) $(FUZZ_CMD_OBJ)
	$(AR) rcs $@ $^

$(FUZZ_DECODERS:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libfuzzps.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< -o $@ $(FUZZ_BUILD)/libfuzzps.a $(PKG_LIBS) -lpthread
$(FUZZ_EMITTERS:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_emit.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libfuzzps.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_CMD=$* -DFUZZ_$(shell echo $* | tr a-z A-Z) \
		-Wl,--wrap=fclose $< -o $@ $(FUZZ_BUILD)/libfuzzps.a $(PKG_LIBS) -lpthread

fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) \
		FUZZ_SEED=$(FUZZ_SEED) tests/fuzz/run.sh $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build
-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_CMD_OBJ:.o=.d)

# make check replays tests/fuzz/regress/T/* through each target built with
# the normal compiler (tests/fuzz/replay.c stands in for libFuzzer).
FUZZ_REPLAY := $(FUZZ_DECODERS:%=$(BUILD)/tests/replay_%) $(FUZZ_EMITTERS:%=$(BUILD)/tests/replay_%)
$(BUILD)/libpscmd.a: $(filter-out $(BUILD)/cmd/main.o,$(CMD_OBJ))
	$(AR) rcs $@ $^
$(FUZZ_DECODERS:%=$(BUILD)/tests/replay_%): $(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(BUILD)/libperfsift.a
	@mkdir -p $(dir $@)
	$(CC) $(PS_CFLAGS) $(CFLAGS) $< tests/fuzz/replay.c -o $@ $(BUILD)/libperfsift.a $(PKG_LIBS) -lpthread
$(FUZZ_EMITTERS:%=$(BUILD)/tests/replay_%): $(BUILD)/tests/replay_%: tests/fuzz/fuzz_emit.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(BUILD)/libpscmd.a $(BUILD)/libperfsift.a
	@mkdir -p $(dir $@)
	$(CC) $(PS_CFLAGS) $(CFLAGS) -DFUZZ_CMD=$* -DFUZZ_$(shell echo $* | tr a-z A-Z) -Wl,--wrap=fclose \
		$< tests/fuzz/replay.c -o $@ $(BUILD)/libpscmd.a $(BUILD)/libperfsift.a $(PKG_LIBS) -lpthread
check: $(FUZZ_REPLAY)
# tests/diff/mutate.sh's driver: forks per case and runs a command's entry.
# (-z now: symbols bound once in the parent, not again in every child;
# --wrap=fclose: a batch child keeps stdout open from one case to the next)
$(BUILD)/tests/mutate: tests/tools/mutate.c $(BUILD)/libpscmd.a $(BUILD)/libperfsift.a
	@mkdir -p $(dir $@)
	$(CC) $(PS_CFLAGS) $(CFLAGS) -Wl,-z,now -Wl,--wrap=fclose $< -o $@ $(BUILD)/libpscmd.a $(BUILD)/libperfsift.a $(PKG_LIBS) -lpthread
check: $(BUILD)/tests/mutate
