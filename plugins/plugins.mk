# plugins.mk - the libtraceevent plugin (plugins/README.md); included by the
# top-level Makefile, which hooks install-plugins into `make install`.
#
#   plugins           build/plugins/plugin_kvmmmu.so
#   install-plugins   into $(DESTDIR)$(plugindir) (default: where trace-cmd
#                     looks for a user's plugins, ~/.local/lib/traceevent/plugins
#                     for a prefix under $HOME, the system dir otherwise)
#
# The plugin links mmuscope's SPTE decoding (lib/spte.c, lib/host.c and what
# they need) compiled again with -fPIC; it is not part of libmmuscope.a.

PLUGIN := $(O)/plugins/plugin_kvmmmu.so
PLUGIN_LIB_SRCS := lib/spte.c lib/host.c lib/event.c lib/event-desc.c lib/error.c
PLUGIN_OBJS := $(PLUGIN_LIB_SRCS:%.c=$(O)/plugins/obj/%.o) $(O)/plugins/obj/plugin-kvmmmu.o
PLUGIN_CFLAGS = $(filter-out -MMD -MP,$(ALL_CFLAGS)) -fPIC -fvisibility=hidden \
	$(patsubst -I%,-isystem %,$(shell pkg-config --cflags libtraceevent)) -MMD -MP
plugindir ?= $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null || echo /usr/lib)/traceevent/plugins

.PHONY: plugins install-plugins

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
