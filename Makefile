# mmuscope: one flat Makefile.  `make V=1` shows full commands.
#
#   make demo     install missing Debian packages, build, import a bundled real trace
#   make check    install missing Debian packages, build, run every test
#   make bench    benchmarks, results in BENCHMARKS.md
#   make fuzz     damaged trace.dat files against import, damaged databases against
#                 every command (FUZZ_N, FUZZ_DB_N, FUZZ_SEED)
#   make install  the program, its man pages, bash completion and synth's formats
#                 under PREFIX (/usr/local; DESTDIR too), and the trace-cmd plugin
#                 for the installing user (PLUGIN_SYSTEM=1: for every user)
#   make uninstall  removes what make install put there
#
# The two entry points install packages first (scripts/install-deps.sh), then
# run the real work in a sub-make, so pkg-config is asked only once the
# libraries are there.

include config.mk

O := build

ifneq ($(V),1)
Q := @
quiet = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
quiet =
endif

SCHEMA := $(sort $(wildcard schema/[0-9][0-9][0-9]-*.sql))
LIB_SRCS := $(sort $(wildcard lib/*.c lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o) $(O)/gen/schema.o
PROG_SRCS := $(sort $(wildcard cli/*.c collector/*.c analyzer/*.c tui/*.c))
PROG_OBJS := $(PROG_SRCS:%.c=$(O)/%.o)
HARNESS_OBJS := $(O)/tests/harness/test.o
UNIT_SRCS := $(sort $(wildcard tests/unit/t-*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)

PROG := $(O)/mmuscope
LIBA := $(O)/libmmuscope.a

.PHONY: all demo check deps install-deps build check-run demo-run unit clean \
	check-headers check-layering check-comments asan install uninstall fuzz

MANS := $(O)/man/mmuscope.1
COMPLETION := $(O)/mmuscope.bash

all: $(PROG) $(UNIT_BINS) plugins $(MANS) $(COMPLETION)

# The man pages and the bash completion come from the program's own help.
$(MANS): $(PROG) scripts/gen-man.sh
	$(call quiet,GEN,$(O)/man)scripts/gen-man.sh $(PROG) $(O)/man $$($(PROG) --version | cut -d' ' -f2)

$(COMPLETION): $(PROG) scripts/gen-completion.sh
	$(call quiet,GEN,$@)scripts/gen-completion.sh $(PROG) >$@.tmp && mv $@.tmp $@

# Keep the objects of the test programs (make would delete them as intermediate).
.SECONDARY:

build: all

deps:
	@scripts/install-deps.sh --print

install-deps:
	@scripts/install-deps.sh

demo: install-deps
	$(Q)$(MAKE) --no-print-directory demo-run

check: install-deps
	$(Q)$(MAKE) --no-print-directory check-run

demo-run: all
	@scripts/demo.sh

check-run: all
	@tests/run-all.sh

# A longer bounded run of tests/cli/hostile.sh and tests/cli/db-hostile.sh:
# FUZZ_N trace.dat mutants of seed FUZZ_SEED, FUZZ_DB_N (FUZZ_N / 4) damaged
# databases through eight commands each.
fuzz: all
	@FUZZ_N=$${FUZZ_N:-2000} FUZZ_SEED=$${FUZZ_SEED:-$$(date +%s)} MSC=$(CURDIR)/$(PROG) \
		MSC_TEST_DATA=$(CURDIR)/tests/data sh tests/cli/hostile.sh
	@FUZZ_N=$${FUZZ_DB_N:-$$(( $${FUZZ_N:-2000} / 4 ))} FUZZ_SEED=$${FUZZ_SEED:-$$(date +%s)} MSC=$(CURDIR)/$(PROG) \
		MSC_TEST_DATA=$(CURDIR)/tests/data sh tests/cli/db-hostile.sh

$(PROG): $(PROG_OBJS) $(LIBA)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(PROG_OBJS) $(LIBA) $(LIBS)

$(LIBA): $(LIB_OBJS)
	$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

$(O)/tests/t-%: $(O)/tests/unit/t-%.o $(HARNESS_OBJS) $(LIBA)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(O)/gen/schema.c: $(SCHEMA) schema/embed.sh
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)schema/embed.sh $@ $(SCHEMA)

$(O)/gen/schema.o: $(O)/gen/schema.c
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Every public header compiles on its own (git's hdr-check).
check-headers:
	@scripts/check-headers.sh

check-layering:
	@scripts/check-layering.sh

check-comments:
	@scripts/check-comments.sh

# Every test under ASan/UBSan (the nested-KVM test is skipped: QEMU under
# ASan would take too long); tests/lsan.supp lists the libraries' own leaks.
asan:
	$(Q)$(MAKE) --no-print-directory O=build/asan \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" all
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 MSC_SKIP_KERNEL=1 \
		MSC_BUILD=build/asan tests/run-all.sh

install: $(PROG) $(MANS) $(COMPLETION) install-plugins
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(bashcompdir)
	install -m 0755 $(PROG) $(DESTDIR)$(bindir)/mmuscope
	install -m 0644 $(O)/man/*.1 $(DESTDIR)$(mandir)/man1/
	install -m 0644 $(COMPLETION) $(DESTDIR)$(bashcompdir)/mmuscope
	for d in tests/data/formats/*/; do \
		v=$$(basename $$d); \
		(cd $$d && find . -type f) | while read -r f; do \
			install -D -m 0644 $$d/$$f $(DESTDIR)$(datadir)/mmuscope/formats/$$v/$$f || exit 1; \
		done || exit 1; \
	done

uninstall: uninstall-plugins
	rm -f $(DESTDIR)$(bindir)/mmuscope $(DESTDIR)$(bashcompdir)/mmuscope
	rm -f $(DESTDIR)$(mandir)/man1/mmuscope.1 $(DESTDIR)$(mandir)/man1/mmuscope-*.1
	rm -rf $(DESTDIR)$(datadir)/mmuscope

clean:
	rm -rf $(O)

include plugins/plugins.mk
include kernel/kernel.mk
include tests/nested/nested.mk
include bench/bench.mk

-include $(shell find $(O) \( -path $(O)/kernel -o -path $(O)/nested \) -prune -o -name '*.d' -type f -print 2>/dev/null)
