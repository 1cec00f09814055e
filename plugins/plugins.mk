# plugins.mk - the libtraceevent plugin (plugins/README.md); included by the
# top-level Makefile, which hooks install-plugins into `make install`.
#
#   plugins           build/plugins/plugin_kvmmmu.so
#   install-plugins   into $(DESTDIR)$(plugindir) (default: where trace-cmd
#                     looks for the installing user's plugins,
#                     ~/.local/lib/traceevent/plugins; PLUGIN_SYSTEM=1: the
#                     system directory, for every user)
#   uninstall-plugins removes it from there
#
# The plugin links mmuscope's SPTE decoding (lib/spte.c, lib/host.c and what
# they need) compiled again with -fPIC; it is not part of libmmuscope.a.

PLUGIN := $(O)/plugins/plugin_kvmmmu.so
PLUGIN_LIB_SRCS := lib/spte.c lib/host.c lib/event.c lib/event-desc.c lib/error.c
PLUGIN_OBJS := $(PLUGIN_LIB_SRCS:%.c=$(O)/plugins/obj/%.o) $(O)/plugins/obj/plugin-kvmmmu.o
PLUGIN_CFLAGS = $(filter-out -MMD -MP,$(ALL_CFLAGS)) -fPIC -fvisibility=hidden \
	$(patsubst -I%,-isystem %,$(shell pkg-config --cflags libtraceevent)) -MMD -MP
# trace-cmd (libtraceevent) loads a user's plugins from ~/.local/lib/traceevent/plugins:
# installing there changes no other user's `trace-cmd report`.  PLUGIN_SYSTEM=1
# installs into the system directory instead.
system_plugindir := $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null || echo /usr/lib)/traceevent/plugins
ifeq ($(PLUGIN_SYSTEM),1)
plugindir ?= $(system_plugindir)
else
plugindir ?= $(HOME)/.local/lib/traceevent/plugins
endif

.PHONY: plugins install-plugins uninstall-plugins

plugins: $(PLUGIN)

$(PLUGIN): $(PLUGIN_OBJS)
	$(call quiet,LINK,$@)$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ \
		$(shell pkg-config --libs libtraceevent)

$(O)/plugins/obj/plugin-kvmmmu.o: plugins/plugin-kvmmmu.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(PLUGIN_CFLAGS) -fvisibility=default -c -o $@ $<

$(O)/plugins/obj/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(PLUGIN_CFLAGS) -c -o $@ $<

install-plugins: $(PLUGIN)
	install -d $(DESTDIR)$(plugindir)
	install -m 0644 $(PLUGIN) $(DESTDIR)$(plugindir)/plugin_kvmmmu.so

uninstall-plugins:
	rm -f $(DESTDIR)$(plugindir)/plugin_kvmmmu.so
