// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live source: a dedicated tracefs instance (never the top-level buffer)
 * with the kvmmmu events, the kvm events mmuscope stores, the trace
 * markers and, on stock kernels, kprobe events on the dirty-log and TLB
 * flush functions.  Reading and merging live in source-tracefs-read.c.
 *
 * Setup order matters for a clean exit: the instance is created first (its
 * name is the lock: an existing one means another recorder, or one that
 * was killed), then configured with tracing off, then the raw files are
 * opened and tracing turned on.  Closing undoes it in reverse: tracing
 * off, raw files closed, events disabled, instance removed, kprobes
 * removed (they can only go once no instance has them enabled).
 *
 * The decoder's tep handle is built from the format files alone (header
 * page plus the formats of the enabled events), so /proc/kallsyms is never
 * parsed.  A tracing directory that is not a tracefs mount is a test tree
 * (a "fake" tree): its instance must exist already, nothing is registered,
 * and a raw file that ends ends that CPU's stream.
 */
#include "source-tracefs-local.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"

#define TRACEFS_MAGIC 0x74726163

/*
 * kvm events mmuscope uses (the rest of kvm, e.g. kvm_exit, is noise here);
 * kvm_flush_remote_tlbs and kvm_dirty_log_harvest exist with the companion
 * kernel patch only; the dirty ring's fire only where a VMM uses the ring
 * (one push per dirtied page, as its protection is one SPTE change).
 */
static const char *const kvm_events[] = { "kvm_page_fault", "kvm_unmap_hva_range", "kvm_age_hva",
					  "kvm_flush_remote_tlbs", "kvm_dirty_log_harvest",
					  "kvm_dirty_ring_push", "kvm_dirty_ring_reset",
					  "kvm_dirty_ring_exit" };

static const char *const mode_names[] = {
	[MSC_LIVE_INFERRED] = "inferred",
	[MSC_LIVE_KPROBES] = "kprobes",
	[MSC_LIVE_TRACEPOINTS] = "tracepoints",
};

/** msc_live_mode_name - "inferred", "kprobes" or "tracepoints" */
const char *msc_live_mode_name(enum msc_live_mode mode)
{
	return mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "?";
}

/*
 * Does the tracing directory have @rel?  (tracefs_file_exists() of
 * libtracefs 1.6 says yes for a directory that does not exist.)
 */
static bool tree_has(const char *rel, bool dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tracefs_tracing_dir(), rel);
	return !stat(path, &st) && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

static int fail(struct tracefs_source *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct tracefs_source *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->base.error, sizeof(t->base.error), fmt, ap);
	va_end(ap);
	return err;
}

/* Parse one event's format file (of the top-level tracing dir) into the tep. */
static int parse_format(struct tracefs_source *t, const char *system, const char *event)
{
	char path[512];
	char *buf;
	int len, r;

	snprintf(path, sizeof(path), "events/%s/%s/format", system, event);
	buf = tracefs_instance_file_read(NULL, path, &len);
	if (!buf)
		return -ENOENT;
	r = tep_parse_event(t->tep, buf, (unsigned long)len, system);
	free(buf);
	if (r)
		return MSC_ERR_FORMAT;
	/* remembered for msc_live_save_formats() */
	snprintf(path, sizeof(path), "%s/%s", system, event);
	if (t->nr_formats == t->formats_cap) {
		size_t n = t->formats_cap ? 2 * t->formats_cap : 64;
		char **a = realloc(t->formats, n * sizeof(*a));

		if (!a)
			return -ENOMEM;
		t->formats = a;
		t->formats_cap = n;
	}
	t->formats[t->nr_formats] = strdup(path);
	if (!t->formats[t->nr_formats])
		return -ENOMEM;
	t->nr_formats++;
	return 0;
}

/* Every event of @system into the tep; returns how many parsed. */
static int parse_system(struct tracefs_source *t, const char *system)
{
	char **events = tracefs_system_events(NULL, system);
	int n = 0;

	for (size_t i = 0; events && events[i]; i++)
		n += !parse_format(t, system, events[i]);
	tracefs_list_free(events);
	return n;
}

static int build_tep(struct tracefs_source *t)
{
	char *buf;
	int len, r;

	t->tep = tep_alloc();
	if (!t->tep)
		return -ENOMEM;
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_page_size(t->tep, (int)sysconf(_SC_PAGESIZE));
	tep_set_file_bigendian(t->tep, tep_is_local_bigendian(t->tep) ? TEP_BIG_ENDIAN
									 : TEP_LITTLE_ENDIAN);
	buf = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!buf)
		return fail(t, -ENOENT, "%s/events/header_page: cannot read it", tracefs_tracing_dir());
	r = tep_parse_header_page(t->tep, buf, (unsigned long)len, sizeof(long));
	free(buf);
	if (r)
		return fail(t, MSC_ERR_FORMAT, "%s/events/header_page: not understood",
			    tracefs_tracing_dir());
	t->subbuf_size = tep_get_sub_buffer_size(t->tep);
	if (t->subbuf_size <= 0)
		t->subbuf_size = (int)sysconf(_SC_PAGESIZE);
	/* markers and the other ftrace records that can land in an instance */
	parse_system(t, "ftrace");
	return 0;
}

/* A test tree's pages may hold any event of the tree (e.g. kprobes of another group). */
static void parse_other_systems(struct tracefs_source *t)
{
	char **systems = tracefs_event_systems(NULL);

	for (size_t i = 0; systems && systems[i]; i++)
		if (strcmp(systems[i], "kvmmmu") && strcmp(systems[i], "kvm") &&
		    strcmp(systems[i], "ftrace"))
			parse_system(t, systems[i]);
	tracefs_list_free(systems);
}

static int enable(struct tracefs_source *t, const char *system, const char *event)
{
	int n;

	if (event)
		n = !parse_format(t, system, event);
	else
		n = parse_system(t, system);
	if (!n || tracefs_event_enable(t->inst, system, event))
		return 0;
	t->status.nr_events += (unsigned int)n;
	return n;
}

/*
 * The KVM ioctls that bound dirty-log work (stable ABI, on every kernel):
 * their enters filtered by request, their exits all (an exit has no
 * request: it is the exit of its task's last enter).
 */
static void enable_ioctls(struct tracefs_source *t)
{
	char filter[512];

	if (!tree_has("events/syscalls/sys_enter_ioctl", true))
		return;
	msc_kvm_ioctl_filter(filter, sizeof(filter));
	if (tracefs_event_file_write(t->inst, "syscalls", "sys_enter_ioctl", "filter", filter) < 0)
		return;		/* unfiltered, every ioctl of the host would come */
	if (enable(t, "syscalls", "sys_enter_ioctl"))
		enable(t, "syscalls", "sys_exit_ioctl");
}

static int enable_events(struct tracefs_source *t, const struct msc_live_opts *o)
{
	int n;

	if (o->light) {
		n = live_light_enable(t, o->light_cells, enable);
		if (n < 0)
			return n == -EINVAL ? fail(t, n, "--light=%u: expected a power of two, 2 to 2^20",
						   o->light_cells) : n;
		if (!n)
			return fail(t, MSC_ERR_NO_KVMMMU, "%s/events/kvmmmu: cannot enable the kvmmmu events",
				    tracefs_tracing_dir());
	} else if (!enable(t, "kvmmmu", NULL))
		return fail(t, MSC_ERR_NO_KVMMMU, "%s/events/kvmmmu: cannot enable the kvmmmu events",
			    tracefs_tracing_dir());
	for (size_t i = 0; !o->light && i < ARRAY_SIZE(kvm_events); i++)
		enable(t, "kvm", kvm_events[i]);
	enable_ioctls(t);
	if (t->nr_kprobes && enable(t, t->group, NULL)) {
		t->status.mode = MSC_LIVE_KPROBES;
		snprintf(t->mode_detail, sizeof(t->mode_detail), "%u kprobe events",
			 t->nr_kprobes);
	}
	return 0;
}

static int count_cpus(struct tracefs_source *t)
{
	char path[4200];
	struct dirent *de;
	int n = 0, cpu;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", t->instance_dir);
	d = opendir(path);
	if (!d)
		return fail(t, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "cpu%d", &cpu) == 1 && cpu + 1 > n)
			n = cpu + 1;
	closedir(d);
	if (!n)
		return fail(t, -ENOENT, "%s: no cpuN directories", path);
	t->nr_cpus = n;
	return 0;
}

/* The instance's current clock; "mono" is chosen when the kernel has it. */
static void set_clock(struct tracefs_source *t)
{
	char *clocks = tracefs_instance_file_read(t->inst, "trace_clock", NULL);
	char *cur;

	/* CLOCK_MONOTONIC on every CPU: comparable with KVM counter samples */
	if (!t->fake && clocks && strstr(clocks, " mono ") &&
	    tracefs_instance_file_write(t->inst, "trace_clock", "mono") > 0) {
		free(clocks);
		clocks = tracefs_instance_file_read(t->inst, "trace_clock", NULL);
	}
	cur = clocks ? strchr(clocks, '[') : NULL;
	if (!cur || sscanf(cur + 1, "%31[^]]", t->clock) != 1)
		snprintf(t->clock, sizeof(t->clock), "local");
	free(clocks);
}

/* Every thread of @pid now; returns how many were written, or -errno. */
static int write_tids(struct tracefs_source *t, int pid, bool append)
{
	char path[64], buf[4096];
	struct dirent *de;
	size_t len = 0;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (len + strlen(de->d_name) + 2 >= sizeof(buf)) {
			buf[len] = '\0';
			if ((append || n) ? tracefs_instance_file_append(t->inst, "set_event_pid", buf) < 0
					  : tracefs_instance_file_write(t->inst, "set_event_pid", buf) < 0)
				break;
			append = true;
			len = 0;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s ", de->d_name);
		n++;
	}
	closedir(d);
	buf[len] = '\0';
	if (len && ((append ? tracefs_instance_file_append(t->inst, "set_event_pid", buf)
			    : tracefs_instance_file_write(t->inst, "set_event_pid", buf)) < 0))
		return -EIO;
	return n;
}

/*
 * Limit events to one process: its threads now, and (event-fork) every
 * thread it creates later.  The threads are listed twice so that one
 * created while the first list was written is not missed.
 */
static int set_pid_filter(struct tracefs_source *t, int pid)
{
	int n;

	if (tracefs_instance_file_write(t->inst, "options/event-fork", "1") < 0)
		return fail(t, -errno ? -errno : -EIO, "%s/options/event-fork: cannot set it",
			    t->instance_dir);
	n = write_tids(t, pid, false);
	if (n == -ENOENT)
		return fail(t, -ESRCH, "process %d does not exist", pid);
	if (n >= 0)
		n = write_tids(t, pid, true);
	if (n < 0)
		return fail(t, n, "%s/set_event_pid: cannot write the threads of %d",
			    t->instance_dir, pid);
	t->status.nr_pids = (unsigned int)n;
	return 0;
}

static bool valid_name(const char *name)
{
	if (!*name || strlen(name) > 48)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

static int create_instance(struct tracefs_source *t, const char *name)
{
	if (!valid_name(name))
		return fail(t, -EINVAL, "instance name '%s': use letters, digits, _ and -", name);
	for (size_t i = 0; i < sizeof(t->group) - 1 && name[i]; i++)
		t->group[i] = name[i] == '-' ? '_' : name[i];
	errno = 0;
	t->inst = tracefs_instance_create(name);
	if (!t->inst)
		return fail(t, errno ? -errno : -EIO, "%s/instances/%s: cannot create it: %s",
			    tracefs_tracing_dir(), name, strerror(errno ? errno : EIO));
	t->instance_dir = tracefs_instance_get_dir(t->inst);
	t->marker_path = tracefs_instance_get_file(t->inst, "trace_marker");
	if (!t->instance_dir || !t->marker_path)
		return -ENOMEM;
	if (tracefs_instance_is_new(t->inst)) {
		t->owns_instance = true;
		if (t->fake)
			return fail(t, -ENOENT, "%s: a test tree needs the instance made beforehand",
				    t->instance_dir);
	} else if (!t->fake) {
		return fail(t, MSC_ERR_INSTANCE,
			    "%s exists: another recorder uses it, or one was killed (rmdir it, or use --instance)",
			    t->instance_dir);
	}
	return 0;
}

static void fill_info(struct tracefs_source *t, const struct msc_live_opts *o)
{
	struct msc_capture_info *info = &t->base.info;
	struct utsname u;

	snprintf(info->path, sizeof(info->path), "%s", t->instance_dir);
	/* a test tree was not written by this kernel: its host is unknown, inferred from its events */
	if (!t->fake && !uname(&u))
		snprintf(info->uname, sizeof(info->uname), "%.32s %.64s %.64s %.32s", u.sysname, u.nodename,
			 u.release, u.machine);
	snprintf(info->trace_clock, sizeof(info->trace_clock), "%s", t->clock);
	info->nr_cpus = t->nr_cpus;
	if (!t->fake)
		info->host = t->profile.host;
	t->status = (struct msc_live_status){
		.mode = t->status.mode, .mode_detail = t->mode_detail,
		.instance_dir = t->instance_dir, .marker_path = t->marker_path,
		.clock = t->clock, .copy_marker = t->status.copy_marker,
		.owns_instance = t->owns_instance, .test_tree = t->fake, .nr_cpus = t->nr_cpus,
		.nr_events = t->status.nr_events, .nr_kprobes = t->nr_kprobes,
		.kprobes = t->kprobe_names, .nr_pids = t->status.nr_pids,
	};
}

static int setup(struct tracefs_source *t, const struct msc_live_opts *o)
{
	const char *dir, *patch_event;
	struct statfs sfs;
	int r;

	if (o->tracing_dir) {
		t->tracing_dir = strdup(o->tracing_dir);
		if (!t->tracing_dir || tracefs_set_tracing_dir(t->tracing_dir))
			return -ENOMEM;
	}
	dir = tracefs_tracing_dir();
	if (!dir)
		return fail(t, MSC_ERR_NO_TRACEFS,
			    "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	if (!tree_has("events/header_page", false))
		return fail(t, MSC_ERR_NO_TRACEFS, "%s: no events/header_page: not a tracing directory",
			    dir);
	t->fake = statfs(dir, &sfs) || sfs.f_type != TRACEFS_MAGIC;
	/* a test tree was not written by this kernel: nothing of this host is its */
	msc_host_init(&t->profile.host);
	if (!t->fake && (r = msc_host_live_read("", &t->profile)))
		return fail(t, r, "cannot read the host profile from /proc: %s", msc_strerror(r));
	if (!tree_has("events/kvmmmu", true))
		return fail(t, MSC_ERR_NO_KVMMMU,
			    "%s/events/kvmmmu: no kvmmmu events in this kernel (is the kvm module loaded?)",
			    dir);
	r = create_instance(t, o->instance ? o->instance : MSC_LIVE_INSTANCE);
	if (r)
		return r;
	t->page_fn = o->page_fn;
	t->page_ctx = o->page_ctx;
	tracefs_trace_off(t->inst);
	if (o->buffer_kb && tracefs_instance_set_buffer_size(t->inst, o->buffer_kb, -1))
		return fail(t, -errno ? -errno : -EIO, "%s/buffer_size_kb: cannot set %u KiB",
			    t->instance_dir, o->buffer_kb);
	set_clock(t);
	if (!t->fake) {
		/* top-level trace_marker lines copied here (kernels that have it) */
		t->status.copy_marker =
			tracefs_instance_file_write(t->inst, "options/copy_trace_marker", "1") > 0;
		tracefs_instance_file_write(t->inst, "options/record-tgid", "1");
	}
	if (o->pid > 0 && (r = set_pid_filter(t, o->pid)))
		return r;
	r = build_tep(t);
	if (r)
		return r;
	snprintf(t->mode_detail, sizeof(t->mode_detail), "%s",
		 t->fake ? "a test tree registers no kprobes"
		 : o->no_kprobes ? "kprobes not wanted (--no-kprobes)"
				 : "this kernel has no kprobe events");
	if (live_has_patch_events(t, &patch_event)) {
		t->status.mode = MSC_LIVE_TRACEPOINTS;
		snprintf(t->mode_detail, sizeof(t->mode_detail),
			 "the kernel has the companion patch's tracepoints (%s)", patch_event);
	} else if (!t->fake && !o->no_kprobes && tree_has("kprobe_events", false)) {
		live_kprobes_remove_stale(t);
		r = live_kprobes_register(t, o->light);
		if (r < 0)
			return r;
	}
	r = enable_events(t, o);
	if (!r && t->fake)
		parse_other_systems(t);
	if (!r)
		r = count_cpus(t);
	if (!r)
		r = msc_decoder_new(t->tep, &t->dec);
	if (r)
		return r;
	t->scan_kbuf = tep_kbuffer(t->tep);
	if (!t->scan_kbuf)
		return -ENOMEM;
	r = live_cpus_open(t);
	if (r)
		return r;
	fill_info(t, o);
	t->read_due = true;
	if (o->spool_dir && (r = live_spool_start(t, o->spool_dir)))
		return r;
	if (tracefs_trace_on(t->inst) && !t->fake)
		return fail(t, -EIO, "%s/tracing_on: cannot turn tracing on", t->instance_dir);
	/* the first event: the capture starts now even if KVM is idle */
	if (!t->fake)
		tracefs_instance_file_write(t->inst, "trace_marker", MSC_LIVE_START_MARKER);
	return 0;
}

static void live_close(struct msc_source *src)
{
	struct tracefs_source *t = to_live(src);

	if (t->inst && t->owns_instance)
		tracefs_trace_off(t->inst);
	live_spool_end(t);	/* the drain reads the raw files: it goes first */
	live_cpus_close(t);
	if (t->inst && t->owns_instance) {
		tracefs_event_disable(t->inst, NULL, NULL);
		/* busy while someone has one of its files open (a marker writer) */
		for (int i = 0; i < 200 && tracefs_instance_destroy(t->inst) && errno == EBUSY; i++)
			usleep(10000);
	}
	live_kprobes_remove(t);
	msc_host_profile_release(&t->profile);
	tracefs_instance_free(t->inst);
	msc_decoder_free(t->dec);
	if (t->scan_kbuf)
		kbuffer_free(t->scan_kbuf);
	tep_free(t->tep);
	if (t->tracing_dir)
		tracefs_set_tracing_dir(NULL);
	free(t->tracing_dir);
	tracefs_put_tracing_file(t->instance_dir);
	tracefs_put_tracing_file(t->marker_path);
	for (size_t i = 0; i < t->nr_formats; i++)
		free(t->formats[i]);
	free(t->formats);
	free(t->inside);
	free(t);
}

static int live_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	return msc_decoder_get_stat(to_live(src)->dec, i, ret);
}

static const char *live_next_warning(struct msc_source *src)
{
	struct tracefs_source *t = to_live(src);
	const char *w = msc_decoder_next_warning(t->dec);

	if (!w && t->spool)
		w = live_spool_warning(t);
	if (w || !t->bad_records)
		return w;
	snprintf(t->base.error, sizeof(t->base.error),
		 "%llu records with an event id that has no format were skipped",
		 (unsigned long long)t->bad_records);
	t->bad_records = 0;
	return t->base.error;
}

static int live_get_task(struct msc_source *src, int pid, struct msc_source_task *ret);

static const struct msc_source_ops live_ops = {
	.kind = "tracefs",
	.next = live_next,
	.get_stat = live_get_stat,
	.next_warning = live_next_warning,
	.get_task = live_get_task,
	.close = live_close,
};

/**
 * msc_source_open_tracefs - start recording into a dedicated tracefs instance
 * @o: what to record and where
 * @ret: the source, closed with msc_source_close() (which removes the
 *	instance and the kprobes again)
 * @err: why it failed, one line, or NULL
 * @err_size: its size
 *
 * On failure nothing is left behind and @err (if given) says what failed
 * (source.h).  Returns 0; MSC_ERR_NO_TRACEFS, MSC_ERR_NO_KVMMMU,
 * MSC_ERR_INSTANCE (the instance exists); -EACCES and friends when the
 * tracing files cannot be written (not root); -ESRCH for a --pid that does
 * not exist; -ENOMEM.
 */
int msc_source_open_tracefs(const struct msc_live_opts *o, struct msc_source **ret, char *err,
			    size_t err_size)
{
	struct tracefs_source *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	msc_source_init(&t->base, &live_ops, "");
	r = setup(t, o);
	if (r)
		return msc_source_fail(&t->base, r, err, err_size);
	*ret = &t->base;
	return 0;
}

/* The live source behind @src, or NULL when it is another kind: each msc_live_*() call checks. */
static struct tracefs_source *live_of(const struct msc_source *src)
{
	return src && src->ops == &live_ops ? to_live(src) : NULL;
}

/**
 * msc_live_get_profile - this host's profile the capture is stored with:
 *	kernel, kvm module and its parameters (empty for a test tree, whose
 *	host is inferred from its events); NULL: not a live source
 */
const struct msc_host_profile *msc_live_get_profile(const struct msc_source *src)
{
	struct tracefs_source *t = live_of(src);

	return t ? &t->profile : NULL;
}

/** msc_live_get_status - what the source set up; borrowed (NULL: not a live source) */
const struct msc_live_status *msc_live_get_status(const struct msc_source *src)
{
	struct tracefs_source *t = live_of(src);

	return t ? &t->status : NULL;
}

/**
 * msc_live_wait - wait until a CPU has data (with a spool: until the drain
 *	moved some) or @timeout_ms passed
 *
 * A signal ends the wait early (returns 0: the caller looks at its flags).
 * Returns 0 or a negative error.
 */
int msc_live_wait(struct msc_source *src, int timeout_ms)
{
	struct tracefs_source *t = live_of(src);
	int r;

	if (!t)
		return -EINVAL;
	t->read_due = true;
	if (t->spool)
		return live_spool_wait(t, timeout_ms);
	r = poll(t->pfds, (nfds_t)t->nr_cpus, timeout_ms);
	if (r < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; r > 0 && i < t->nr_cpus; i++)
		if (t->pfds[i].revents & POLLHUP) {
			t->cpus[i].hup = true;
			t->pfds[i].fd = -1;	/* a FIFO whose writer left stays readable */
		}
	return 0;
}

/**
 * msc_live_stop - turn tracing off; the stream then ends once drained
 *
 * Returns 0, or -EINVAL when @src is not a live source.
 */
int msc_live_stop(struct msc_source *src)
{
	struct tracefs_source *t = live_of(src);

	if (!t)
		return -EINVAL;
	if (!t->stopping) {
		tracefs_trace_off(t->inst);
		t->stopping = true;
		if (t->spool)
			live_spool_stop(t);
	}
	return 0;
}

/* "key: value" of a per-CPU stats file; "now ts" is seconds.microseconds. */
static int read_kernel_stats(struct tracefs_source *t, int cpu, struct msc_live_cpu_stats *st,
			     uint64_t *ret_now)
{
	char path[64], *buf, *line, *save = NULL;
	unsigned long long v, us;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(t->inst, path, NULL);
	if (!buf)
		return -ENOENT;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "overrun: %llu", &v) == 1)
			st->overrun = v;
		else if (sscanf(line, "commit overrun: %llu", &v) == 1)
			st->commit_overrun = v;
		else if (sscanf(line, "dropped events: %llu", &v) == 1)
			st->dropped = v;
		else if (sscanf(line, "read events: %llu", &v) == 1)
			st->read_events = v;
		else if (sscanf(line, "entries: %llu", &v) == 1)
			st->entries = v;
		else if (ret_now && sscanf(line, "now ts: %llu.%llu", &v, &us) == 2)
			*ret_now = v * 1000000000ULL + us * 1000ULL;
	}
	free(buf);
	st->has_kernel_stats = true;
	return 0;
}

/**
 * msc_live_now - the trace clock now, to timestamp what is sampled beside
 *	the trace (KVM counters, lost-event counters)
 *
 * With the mono (or boot) clock this is clock_gettime(); otherwise the
 * kernel's own "now ts" of CPU 0 (microseconds); in a test tree, the
 * latest event read.  Returns 0, or -EINVAL when @src is not a live source.
 */
int msc_live_now(struct msc_source *src, uint64_t *ret_ts)
{
	struct tracefs_source *t = live_of(src);
	struct msc_live_cpu_stats st;
	struct timespec ts;
	clockid_t id;

	if (!t)
		return -EINVAL;
	id = !strcmp(t->clock, "mono") ? CLOCK_MONOTONIC
	     : !strcmp(t->clock, "boot") ? CLOCK_BOOTTIME : (clockid_t)-1;

	if (!t->fake && id != (clockid_t)-1 && !clock_gettime(id, &ts)) {
		*ret_ts = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		return 0;
	}
	*ret_ts = t->seen_max;
	if (!t->fake)
		read_kernel_stats(t, 0, &st, ret_ts);
	return 0;
}

/**
 * msc_live_get_cpu_stats - a CPU's ring-buffer counters and what was read
 *
 * Returns 0, -ENOENT for a CPU the instance does not have, or -EINVAL when
 * @src is not a live source.
 */
int msc_live_get_cpu_stats(struct msc_source *src, int cpu, struct msc_live_cpu_stats *ret)
{
	struct tracefs_source *t = live_of(src);

	if (!t)
		return -EINVAL;
	if (cpu < 0 || cpu >= t->nr_cpus)
		return -ENOENT;
	*ret = t->cpus[cpu].st;
	read_kernel_stats(t, cpu, ret, NULL);
	return 0;
}

/**
 * msc_live_get_spool_stats - what went through the spool (all zero without one)
 *
 * Returns 0, or -EINVAL when @src is not a live source.
 */
int msc_live_get_spool_stats(struct msc_source *src, struct msc_live_spool_stats *ret)
{
	struct tracefs_source *t = live_of(src);

	if (!t)
		return -EINVAL;
	*ret = (struct msc_live_spool_stats){ 0 };
	if (t->spool)
		live_spool_get_stats(t, ret);
	return 0;
}

static size_t add_lost(struct msc_live_lost *ret, size_t n, size_t max, uint64_t ts, int cpu,
		       uint64_t count, const char *source)
{
	if (!count || n >= max)
		return n;
	ret[n] = (struct msc_live_lost){ .ts = ts, .cpu = cpu, .count = count, .source = source };
	return n + 1;
}

/**
 * msc_live_poll_lost - losses the kernel counted that no mark accounts for
 * @src: the source
 * @final: the stream has ended: overruns not covered by the missed-event
 *	marks handed out are reported too (before the end a mark may still
 *	be on its way)
 * @ret: new losses since the last call
 * @max: room in @ret (3 per CPU is always enough)
 *
 * Returns the number of entries filled, or -EINVAL when @src is not a live
 * source.
 */
int msc_live_poll_lost(struct msc_source *src, bool final, struct msc_live_lost *ret, size_t max)
{
	struct tracefs_source *t = live_of(src);
	size_t n = 0;
	uint64_t now;

	if (!t)
		return -EINVAL;
	msc_live_now(src, &now);
	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];
		struct msc_live_cpu_stats k = { 0 };

		if (read_kernel_stats(t, i, &k, NULL))
			continue;
		if (k.dropped > c->told_dropped) {
			n = add_lost(ret, n, max, now, i, k.dropped - c->told_dropped, "dropped");
			c->told_dropped = k.dropped;
		}
		if (k.commit_overrun > c->told_commit) {
			n = add_lost(ret, n, max, now, i, k.commit_overrun - c->told_commit,
				     "commit-overrun");
			c->told_commit = k.commit_overrun;
		}
		if (final && k.overrun > c->st.marked + c->told_overrun) {
			uint64_t rest = k.overrun - c->st.marked - c->told_overrun;

			n = add_lost(ret, n, max, now, i, rest, "overrun");
			c->told_overrun += rest;
		}
	}
	return (int)n;
}

/* The "pid tgid" line of @pid in the top-level saved_tgids; -1 when none. */
static int saved_tgid(int pid)
{
	char *buf = tracefs_instance_file_read(NULL, "saved_tgids", NULL), *line, *save = NULL;
	int p, tgid = -1, v;

	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && tgid < 0;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %d", &p, &v) == 2 && p == pid && v >= 0)
			tgid = v;
	free(buf);
	return tgid;
}

/* Thread @pid's process, from its /proc status; -1 when it is gone. */
static int proc_tgid(int pid)
{
	char path[64], line[256];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && tgid < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) != 1)
			tgid = -1;
	if (f)
		fclose(f);
	return tgid;
}

/*
 * The thread's own name, /proc/TGID/task/PID/comm: what the kernel holds,
 * spaces and all ("CPU 0/KVM"), without its newline.  "" when it is gone.
 */
static void proc_comm(int tgid, int pid, char *comm, size_t size)
{
	char path[96];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, size - 1);
		close(fd);
	}
	n = max(n, (ssize_t)0);
	if (n && comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
}

/*
 * Thread @pid's process and its own name ("CPU 0/KVM", not its process's
 * "qemu-system-x86"), from /proc while it lives.  A thread gone (or any in
 * a test tree, whose pids are not this host's) is looked up in what the
 * tracer saved: saved_tgids, and saved_cmdlines, loaded into the tep once
 * (the names events are printed with; pid 0 is "<idle>").  A pid reused
 * since by another thread is not told apart.
 */
static int live_get_task(struct msc_source *src, int pid, struct msc_source_task *ret)
{
	struct tracefs_source *t = to_live(src);
	char *buf;

	if (!t->fake && pid > 0)
		ret->tgid = proc_tgid(pid);
	if (ret->tgid > 0)
		proc_comm(ret->tgid, pid, ret->comm, sizeof(ret->comm));
	if (ret->tgid < 0)
		ret->tgid = saved_tgid(pid);
	if (!ret->comm[0] && !t->cmdlines_loaded) {
		buf = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
		if (buf)
			tep_parse_saved_cmdlines(t->tep, buf);
		free(buf);
		t->cmdlines_loaded = true;
	}
	if (!ret->comm[0] && tep_is_pid_registered(t->tep, pid))
		snprintf(ret->comm, sizeof(ret->comm), "%s", tep_data_comm_from_pid(t->tep, pid));
	return ret->tgid >= 0 || ret->comm[0] ? 0 : -ENOENT;
}

/* Copy one file of the tracing directory into @dir, creating its parents. */
static int save_file(const char *dir, const char *rel, const char *text, int len)
{
	char path[4096];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = strchr(path + strlen(dir) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			r = -errno;
		*p = '/';
	}
	fd = r ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return r ? r : -errno;
	if (write(fd, text, (size_t)len) != len)
		r = -EIO;
	close(fd);
	return r;
}

static int copy_file(const char *dir, const char *rel)
{
	int len, r;
	char *buf = tracefs_instance_file_read(NULL, rel, &len);

	if (!buf)
		return -ENOENT;
	r = save_file(dir, rel, buf, len);
	free(buf);
	return r;
}

/**
 * msc_live_save_formats - a tracing directory describing this recording
 * @src: the live source
 * @dir: an existing empty directory
 *
 * Writes the ring-buffer headers, the format of every event the source
 * records (kprobe events included, so call it before closing the source),
 * the instance's trace clock and the saved command lines: what a trace.dat
 * writer needs beside the raw pages (msc_tracedat_write()).
 *
 * Returns 0 or a negative errno.
 */
int msc_live_save_formats(struct msc_source *src, const char *dir)
{
	struct tracefs_source *t = live_of(src);
	char rel[256], clock[64];
	int r;

	if (!t)
		return -EINVAL;
	r = copy_file(dir, "events/header_page");
	if (!r)
		r = copy_file(dir, "events/header_event");
	for (size_t i = 0; !r && i < t->nr_formats; i++) {
		snprintf(rel, sizeof(rel), "events/%s/format", t->formats[i]);
		r = copy_file(dir, rel);
	}
	if (!r) {
		snprintf(clock, sizeof(clock), "[%s]\n", t->clock);
		r = save_file(dir, "trace_clock", clock, (int)strlen(clock));
	}
	if (!r && copy_file(dir, "saved_cmdlines"))
		r = save_file(dir, "saved_cmdlines", "", 0);
	return r;
}
