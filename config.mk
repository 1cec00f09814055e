# Build configuration: compiler flags and the pkg-config lookups of every
# library mmuscope links.  Library headers come in as -isystem so that their
# warnings are not ours.

PKGS := libtracecmd libtracefs libtraceevent sqlite3 ncursesw libzstd

CC ?= cc
# Link-time optimization: the hot paths cross files (history.c feeds phase.c
# and model.c, ingest.c stores through store-run.c) and are inlined across
# them; ar loads the compiler's LTO plugin for the archive.
OPT ?= -O2 -flto=auto
CFLAGS ?= $(OPT) -g
LDFLAGS ?= $(OPT)
WARN := -std=c17 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wvla -Wno-format-nonliteral \
	-Wno-unused-parameter -Wno-missing-field-initializers
ifdef WERROR
WARN += -Werror
endif

PKG_CFLAGS = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(PKGS)))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))

ALL_CFLAGS = $(WARN) $(CFLAGS) -I. -Iinclude -Ilib -Itests/harness -I$(O)/gen $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS)
LIBS = $(PKG_LIBS) -lpthread -lm

# make install: PREFIX (or prefix) and DESTDIR as usual.  synth finds its
# formats in $(bindir)/../share/mmuscope, so datadir stays $(prefix)/share.
PREFIX ?= /usr/local
prefix ?= $(PREFIX)
bindir ?= $(prefix)/bin
datadir := $(prefix)/share
mandir ?= $(datadir)/man
bashcompdir ?= $(datadir)/bash-completion/completions
