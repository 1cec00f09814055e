# `make bench`: benchmarks of mmuscope against trace-cmd and the project's
# targets, on synthetic traces; results in BENCHMARKS.md.  Included from the
# top Makefile.  BENCH=quick runs the 4 GiB scenario only, BENCH=huge the
# 24 GiB one on 1 GiB pages, BENCH=seed the 96 GiB one (all three: the
# default).  BENCH=observer (and all) also measures the observer effect in
# the nested rig (bench/observer.sh, minutes of QEMU).  BENCH=ioctls
# measures what a light recording costs the host's other ioctls
# (bench/ioctls.sh; root and tracefs, no KVM).  Never part of `make check`.

BENCH ?= all

.PHONY: bench bench-phases

# Dirty-log steps found right on every bundled capture, by inference alone
# at its speed, 10x slower and 100x faster (bench/phase-truth.py).
bench-phases: $(PROG)
	@bench/phase-truth.py --msc $(PROG) --work $(O)/bench/phase-truth tests/data/traces/*/

bench: $(PROG) $(O)/bench/readpages $(O)/bench/ioctls
	@if [ "$(BENCH)" = ioctls ]; then \
		bench/ioctls.sh $(CURDIR)/$(PROG) $(CURDIR)/$(O)/bench/ioctls; fi
	@if [ "$(BENCH)" != observer ] && [ "$(BENCH)" != ioctls ]; then MSC=$(CURDIR)/$(PROG) \
		READPAGES=$(CURDIR)/$(O)/bench/readpages \
		BENCH_DIR=$(CURDIR)/$(O)/bench/work bench/run.sh $(BENCH); fi
	@if [ "$(BENCH)" = observer ] || [ "$(BENCH)" = all ]; then \
		bench/observer.sh $(CURDIR)/$(PROG); fi

$(O)/bench/readpages: bench/tools/readpages.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(WARN) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $<

$(O)/bench/ioctls: bench/tools/ioctls.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(WARN) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $<
