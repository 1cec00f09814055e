// SPDX-License-Identifier: MIT
/*
 * dirtylog - a small raw-KVM-API workload that drives the x86 MMU through
 * the dirty-logging life cycle and marks every phase in the ftrace
 * trace_marker, so a kvmmmu trace can be cut into phases:
 *
 *   setup                   create the VM, a code slot and the test slot
 *   populate                guest writes every 4 KiB page of the test slot
 *   enable_dirty_logging    KVM_MEM_LOG_DIRTY_PAGES set (eager split)
 *   dirty_pass_<i>          guest writes the slot again (or a subset, -p)
 *   get_dirty_log_<i>       KVM_GET_DIRTY_LOG
 *   clear_dirty_log_<i>     KVM_CLEAR_DIRTY_LOG (only with -c)
 *   disable_dirty_logging   KVM_MEM_LOG_DIRTY_PAGES cleared
 *   repopulate              guest writes every page again
 *   teardown                vCPU and VM file descriptors closed
 *
 * With -C N the block enable..repopulate runs N times, each time preceded
 * by a "cycle=<k> begin" marker; phase names are the same in every cycle.
 *
 * Marker lines (also printed to stdout):
 *   mmuscope-dirtylog: phase=<name> begin
 *   mmuscope-dirtylog: phase=<name> end
 *   mmuscope-dirtylog: KVM stats after <name>: pages_4k=N pages_2m=N ...
 *   mmuscope-dirtylog: cycle=<k> begin
 * The stats line follows every phase except teardown (the VM is gone) and
 * lists only the statistics the kernel exports.
 *
 * The guest runs in 32-bit protected mode with flat segments and paging
 * off, set up with KVM_SET_SREGS only, so the test slot must lie below
 * 4 GiB. Each vCPU owns an equal share of the slot. Nothing depends on the
 * host: it runs on Intel (EPT) and AMD (NPT) hosts, nested or not.
 *
 * Build: gcc -O2 -static -pthread -o dirtylog dirtylog.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef KVM_DIRTY_LOG_INITIALLY_SET
#define KVM_DIRTY_LOG_INITIALLY_SET (1 << 1)
#endif

#define PROG		"dirtylog"
#define TAG		"mmuscope-dirtylog: "
#define DEFAULT_MARKER	"/sys/kernel/tracing/trace_marker"
#define MAX_MARKERS	8

#define SZ_4K		UINT64_C(0x1000)
#define SZ_2M		UINT64_C(0x200000)
#define SZ_1G		UINT64_C(0x40000000)
#define SZ_4G		UINT64_C(0x100000000)

#define CODE_SLOT	0
#define CODE_GPA	UINT64_C(0)
#define CODE_SIZE	SZ_2M
#define CODE_ENTRY	UINT64_C(0x1000)
#define TEST_SLOT	1
#define DONE_PORT	0x10

/*
 * Guest code, 32-bit protected mode.
 * In: esi = first GPA, ecx = number of pages (> 0), edx = stride in bytes,
 * al = value to write. Writes one byte per page, then reports on DONE_PORT.
 *
 *   0: 88 06	mov  [esi], al
 *   2: 01 d6	add  esi, edx
 *   4: 49	dec  ecx
 *   5: 75 f9	jnz  0
 *   7: e6 10	out  DONE_PORT, al
 *   9: f4	hlt
 *   a: eb fd	jmp  9
 */
static const uint8_t guest_code[] = {
	0x88, 0x06, 0x01, 0xd6, 0x49, 0x75, 0xf9,
	0xe6, DONE_PORT, 0xf4, 0xeb, 0xfd,
};

enum backing {
	BACKING_THP,
	BACKING_ANON,
	BACKING_HUGETLB_2M,
	BACKING_HUGETLB_1G,
};

static const char *const backing_names[] = {
	[BACKING_THP] = "thp",
	[BACKING_ANON] = "anon",
	[BACKING_HUGETLB_2M] = "hugetlb2m",
	[BACKING_HUGETLB_1G] = "hugetlb1g",
};

/* The stats of the VM fd that are reported, in this order. */
static const char *const stat_names[] = {
	"pages_4k", "pages_2m", "pages_1g",
	"remote_tlb_flush", "remote_tlb_flush_requests",
};

struct vcpu {
	int id;			/* vCPU index, also the KVM vcpu id */
	int fd;			/* vCPU fd */
	struct kvm_run *run;	/* mmap of fd, run_size bytes */
	pthread_t thread;
	uint64_t gpa;		/* first GPA of this vCPU's share */
	uint64_t npages;	/* 4 KiB pages in its share */
	bool failed;		/* set by the thread, read after a pass */
};

/* The one program-wide state; there is no library code here. */
static struct {
	/* options */
	uint64_t slot_size;	/* test slot bytes */
	uint64_t gpa;		/* test slot GPA */
	int nr_vcpus;
	int iterations;		/* dirty passes per cycle */
	int cycles;
	int percent;		/* share of pages written in dirty passes */
	enum backing backing;
	bool clear_log;		/* manual protect + KVM_CLEAR_DIRTY_LOG */

	/* markers */
	const char *marker_path[MAX_MARKERS];
	int nr_marker_paths;
	bool no_markers;
	int marker_fd[MAX_MARKERS];
	int nr_marker_fds;

	/* KVM */
	int kvm_fd;
	int vm_fd;
	int stats_fd;
	uint64_t stats_data_offset;
	int stat_offset[sizeof(stat_names) / sizeof(stat_names[0])];	/* -1: absent */
	size_t run_size;
	struct vcpu *vcpus;
	struct kvm_userspace_memory_region slot;
	uint8_t *mem;		/* host view of the test slot */
	void *map;		/* what to munmap */
	size_t map_size;
	uint8_t *code;

	/* pass hand-off between the main thread and the vCPU threads */
	pthread_barrier_t start, done;
	uint64_t stride;	/* bytes between two written pages */
	uint8_t value;		/* byte the guest writes */
	bool quit;
} g = {
	.slot_size = 256 << 20,
	.gpa = SZ_1G,
	.nr_vcpus = 1,
	.iterations = 1,
	.cycles = 1,
	.percent = 100,
	.backing = BACKING_THP,
	.kvm_fd = -1,
	.vm_fd = -1,
	.stats_fd = -1,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try -h)\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write one line to stdout and, as a single write(), to every marker. */
static void __attribute__((format(printf, 1, 2))) mark(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, i;

	memcpy(buf, TAG, sizeof(TAG) - 1);
	va_start(ap, fmt);
	n = vsnprintf(buf + sizeof(TAG) - 1, sizeof(buf) - sizeof(TAG), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += sizeof(TAG) - 1;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	buf[n] = '\0';
	fputs(buf, stdout);
	fflush(stdout);
	for (i = 0; i < g.nr_marker_fds; i++) {
		/* a full trace buffer must not stop the workload */
		if (write(g.marker_fd[i], buf, n) < 0)
			continue;
	}
}

static void markers_open(void)
{
	int i, fd;

	if (g.no_markers)
		return;
	if (!g.nr_marker_paths) {
		/* the default marker is optional: no tracefs, no markers */
		fd = open(DEFAULT_MARKER, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			g.marker_fd[g.nr_marker_fds++] = fd;
		return;
	}
	for (i = 0; i < g.nr_marker_paths; i++) {
		fd = open(g.marker_path[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			die("open %s", g.marker_path[i]);
		g.marker_fd[g.nr_marker_fds++] = fd;
	}
}

/* ---------------------------------------------------------------------- */
/* Binary statistics of the VM (KVM_GET_STATS_FD), looked up by name.      */

static void stats_open(void)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t desc_size, i, j;
	char *descs;

	for (j = 0; j < ARRAY_SIZE(stat_names); j++)
		g.stat_offset[j] = -1;
	if (ioctl(g.kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) <= 0)
		return;
	g.stats_fd = ioctl(g.vm_fd, KVM_GET_STATS_FD, NULL);
	if (g.stats_fd < 0)
		die("KVM_GET_STATS_FD");
	if (pread(g.stats_fd, &h, sizeof(h), 0) != sizeof(h))
		die("read stats header");
	desc_size = sizeof(*d) + h.name_size;
	descs = malloc(desc_size * h.num_desc);
	if (!descs)
		die("malloc");
	if (pread(g.stats_fd, descs, desc_size * h.num_desc, h.desc_offset) !=
	    (ssize_t)(desc_size * h.num_desc))
		die("read stats descriptors");
	for (i = 0; i < h.num_desc; i++) {
		d = (struct kvm_stats_desc *)(descs + i * desc_size);
		for (j = 0; j < ARRAY_SIZE(stat_names); j++)
			if (!strncmp(d->name, stat_names[j], h.name_size))
				g.stat_offset[j] = d->offset;
	}
	g.stats_data_offset = h.data_offset;
	free(descs);
}

static void stats_mark(const char *phase)
{
	char line[384];
	size_t n = 0;
	uint64_t v;
	size_t j;

	if (g.stats_fd < 0)
		return;
	for (j = 0; j < ARRAY_SIZE(stat_names); j++) {
		if (g.stat_offset[j] < 0)
			continue;
		if (pread(g.stats_fd, &v, sizeof(v),
			  g.stats_data_offset + g.stat_offset[j]) != sizeof(v))
			die("read stat %s", stat_names[j]);
		n += snprintf(line + n, sizeof(line) - n, "%s%s=%" PRIu64,
			      n ? " " : "", stat_names[j], v);
		if (n >= sizeof(line))
			break;
	}
	mark("KVM stats after %s: %s", phase, line);
}

/* ---------------------------------------------------------------------- */
/* vCPUs                                                                    */

static void vcpu_setup(struct vcpu *v)
{
	struct kvm_segment cs = {
		.base = 0, .limit = 0xffffffff, .selector = 0x8,
		.type = 11, .present = 1, .dpl = 0, .db = 1, .s = 1, .l = 0,
		.g = 1,
	};
	struct kvm_segment ds = cs;
	struct kvm_sregs sregs;

	v->fd = ioctl(g.vm_fd, KVM_CREATE_VCPU, v->id);
	if (v->fd < 0)
		die("KVM_CREATE_VCPU %d", v->id);
	v->run = mmap(NULL, g.run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die("mmap kvm_run of vcpu %d", v->id);
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die("KVM_GET_SREGS");
	ds.type = 3;
	ds.selector = 0x10;
	sregs.cs = cs;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = ds;
	sregs.cr0 = 0x11;	/* PE | ET, paging off */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die("KVM_SET_SREGS");
}

/* Run one pass of the guest loop on this vCPU; false on failure. */
static bool vcpu_pass(struct vcpu *v)
{
	struct kvm_regs regs = {
		.rflags = 0x2,
		.rip = CODE_ENTRY,
		.rsp = CODE_ENTRY,
		.rsi = v->gpa,
		.rdx = g.stride,
		.rax = g.value,
	};
	struct kvm_run *run = v->run;

	regs.rcx = (v->npages * SZ_4K + g.stride - 1) / g.stride;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0) {
		fprintf(stderr, PROG ": vcpu %d: KVM_SET_REGS: %s\n", v->id,
			strerror(errno));
		return false;
	}
	for (;;) {
		if (ioctl(v->fd, KVM_RUN, NULL) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, PROG ": vcpu %d: KVM_RUN: %s\n", v->id,
				strerror(errno));
			return false;
		}
		if (run->exit_reason == KVM_EXIT_IO &&
		    run->io.port == DONE_PORT)
			return true;
		if (run->exit_reason == KVM_EXIT_IO)
			fprintf(stderr, PROG ": vcpu %d: unexpected I/O port 0x%x\n",
				v->id, run->io.port);
		else if (run->exit_reason == KVM_EXIT_MMIO)
			fprintf(stderr, PROG ": vcpu %d: MMIO exit at 0x%llx\n",
				v->id, (unsigned long long)run->mmio.phys_addr);
		else if (run->exit_reason == KVM_EXIT_FAIL_ENTRY)
			fprintf(stderr, PROG ": vcpu %d: entry failed, reason 0x%llx\n",
				v->id, (unsigned long long)
				run->fail_entry.hardware_entry_failure_reason);
		else if (run->exit_reason == KVM_EXIT_INTERNAL_ERROR)
			fprintf(stderr, PROG ": vcpu %d: internal error %u\n",
				v->id, run->internal.suberror);
		else
			fprintf(stderr, PROG ": vcpu %d: unexpected exit %u\n",
				v->id, run->exit_reason);
		return false;
	}
}

/*
 * One thread per vCPU for the whole run, so KVM_RUN always comes from the
 * same task (a new task costs a synchronize_rcu() in KVM_RUN).
 */
static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;

	for (;;) {
		pthread_barrier_wait(&g.start);
		if (g.quit)
			return NULL;
		v->failed = !vcpu_pass(v);
		pthread_barrier_wait(&g.done);
	}
}

/* ---------------------------------------------------------------------- */
/* Phases                                                                   */

static double phase_begin(const char *phase)
{
	mark("phase=%s begin", phase);
	return now();
}

static void phase_end(const char *phase, double t0)
{
	double t = now() - t0;

	mark("phase=%s end", phase);
	printf("%s: %s took %.6f s\n", PROG, phase, t);
}

/* Let every vCPU write its share (every stride bytes) with value. */
static void guest_pass(const char *phase, uint64_t stride)
{
	uint64_t off;
	double t0;
	int i;

	g.stride = stride;
	g.value++;
	t0 = phase_begin(phase);
	pthread_barrier_wait(&g.start);
	pthread_barrier_wait(&g.done);
	phase_end(phase, t0);
	for (i = 0; i < g.nr_vcpus; i++) {
		if (g.vcpus[i].failed) {
			errno = 0;
			die("vcpu %d failed in phase %s", i, phase);
		}
	}
	for (i = 0; i < g.nr_vcpus; i++) {
		struct vcpu *v = &g.vcpus[i];
		uint8_t *p = g.mem + (v->gpa - g.gpa);

		for (off = 0; off < v->npages * SZ_4K; off += stride) {
			if (p[off] != g.value) {
				errno = 0;
				die("phase %s: GPA 0x%" PRIx64 " holds %u, want %u",
				    phase, v->gpa + off, p[off], g.value);
			}
		}
	}
	stats_mark(phase);
}

static void set_slot_flags(const char *phase, uint32_t flags)
{
	double t0;

	g.slot.flags = flags;
	t0 = phase_begin(phase);
	if (ioctl(g.vm_fd, KVM_SET_USER_MEMORY_REGION, &g.slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION flags 0x%x", flags);
	phase_end(phase, t0);
	stats_mark(phase);
}

static uint64_t count_bits(const uint64_t *bitmap, size_t words)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < words; i++)
		n += __builtin_popcountll(bitmap[i]);
	return n;
}

static void dirty_log(int it, uint64_t *bitmap, size_t words)
{
	struct kvm_dirty_log log = {
		.slot = TEST_SLOT,
		.dirty_bitmap = bitmap,
	};
	struct kvm_clear_dirty_log clear = {
		.slot = TEST_SLOT,
		.first_page = 0,
		.num_pages = g.slot_size / SZ_4K,
		.dirty_bitmap = bitmap,
	};
	char phase[32];
	double t0;

	snprintf(phase, sizeof(phase), "get_dirty_log_%d", it);
	memset(bitmap, 0, words * sizeof(*bitmap));
	t0 = phase_begin(phase);
	if (ioctl(g.vm_fd, KVM_GET_DIRTY_LOG, &log) < 0)
		die("KVM_GET_DIRTY_LOG");
	phase_end(phase, t0);
	printf("%s: %s dirty_pages=%" PRIu64 "/%" PRIu64 "\n", PROG, phase,
	       count_bits(bitmap, words), g.slot_size / SZ_4K);
	stats_mark(phase);
	if (!g.clear_log)
		return;

	snprintf(phase, sizeof(phase), "clear_dirty_log_%d", it);
	t0 = phase_begin(phase);
	if (ioctl(g.vm_fd, KVM_CLEAR_DIRTY_LOG, &clear) < 0)
		die("KVM_CLEAR_DIRTY_LOG");
	phase_end(phase, t0);
	stats_mark(phase);
}

/* ---------------------------------------------------------------------- */
/* Setup and teardown                                                       */

static void map_test_slot(void)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	uint64_t align = SZ_2M;

	switch (g.backing) {
	case BACKING_HUGETLB_2M:
		flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);
		align = 0;	/* hugetlb mappings come aligned */
		break;
	case BACKING_HUGETLB_1G:
		flags |= MAP_HUGETLB | (30 << MAP_HUGE_SHIFT);
		align = 0;
		break;
	default:
		break;
	}
	g.map_size = g.slot_size + align;
	g.map = mmap(NULL, g.map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (g.map == MAP_FAILED)
		die("mmap %" PRIu64 " MiB (%s)", g.slot_size >> 20,
		    backing_names[g.backing]);
	/* host VA aligned like the GPA, so the host huge pages line up */
	g.mem = g.map;
	if (align)
		g.mem = (uint8_t *)(((uintptr_t)g.map + align - 1) & ~(align - 1));
	if (g.backing == BACKING_THP &&
	    madvise(g.mem, g.slot_size, MADV_HUGEPAGE) < 0)
		die("madvise(MADV_HUGEPAGE)");
	if (g.backing == BACKING_ANON &&
	    madvise(g.mem, g.slot_size, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
}

static void setup(void)
{
	struct kvm_userspace_memory_region code_slot = {
		.slot = CODE_SLOT,
		.guest_phys_addr = CODE_GPA,
		.memory_size = CODE_SIZE,
	};
	uint64_t per_vcpu;
	double t0;
	int i, caps;

	t0 = phase_begin("setup");
	g.kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (g.kvm_fd < 0)
		die("open /dev/kvm");
	if (ioctl(g.kvm_fd, KVM_GET_API_VERSION, NULL) != KVM_API_VERSION)
		die("unexpected KVM API version");
	g.vm_fd = ioctl(g.kvm_fd, KVM_CREATE_VM, 0);
	if (g.vm_fd < 0)
		die("KVM_CREATE_VM");
	/* VMX without unrestricted guest needs a TSS; harmless elsewhere */
	if (ioctl(g.kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0 &&
	    ioctl(g.vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000UL) < 0)
		die("KVM_SET_TSS_ADDR");

	if (g.clear_log) {
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
		};

		caps = ioctl(g.kvm_fd, KVM_CHECK_EXTENSION,
			     KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2);
		if (caps <= 0) {
			errno = 0;
			die("KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 not supported");
		}
		/* all supported flags, i.e. INITIALLY_SET when available */
		cap.args[0] = caps;
		if (ioctl(g.vm_fd, KVM_ENABLE_CAP, &cap) < 0)
			die("KVM_ENABLE_CAP(MANUAL_DIRTY_LOG_PROTECT2)");
		printf("%s: manual_protect flags=0x%x initially_set=%d\n", PROG,
		       caps, !!(caps & KVM_DIRTY_LOG_INITIALLY_SET));
	}

	g.code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g.code == MAP_FAILED)
		die("mmap code");
	/* the code slot stays 4K-mapped: only the test slot has huge pages */
	if (madvise(g.code, CODE_SIZE, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	memcpy(g.code + CODE_ENTRY, guest_code, sizeof(guest_code));
	code_slot.userspace_addr = (uintptr_t)g.code;
	if (ioctl(g.vm_fd, KVM_SET_USER_MEMORY_REGION, &code_slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION (code slot)");

	map_test_slot();
	g.slot = (struct kvm_userspace_memory_region){
		.slot = TEST_SLOT,
		.guest_phys_addr = g.gpa,
		.memory_size = g.slot_size,
		.userspace_addr = (uintptr_t)g.mem,
	};
	if (ioctl(g.vm_fd, KVM_SET_USER_MEMORY_REGION, &g.slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION (test slot)");

	g.run_size = ioctl(g.kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if ((ssize_t)g.run_size <= 0)
		die("KVM_GET_VCPU_MMAP_SIZE");
	g.vcpus = calloc(g.nr_vcpus, sizeof(*g.vcpus));
	if (!g.vcpus)
		die("calloc");
	if (pthread_barrier_init(&g.start, NULL, g.nr_vcpus + 1) ||
	    pthread_barrier_init(&g.done, NULL, g.nr_vcpus + 1))
		die("pthread_barrier_init");
	per_vcpu = g.slot_size / SZ_4K / g.nr_vcpus;
	for (i = 0; i < g.nr_vcpus; i++) {
		struct vcpu *v = &g.vcpus[i];

		v->id = i;
		v->gpa = g.gpa + i * per_vcpu * SZ_4K;
		v->npages = i == g.nr_vcpus - 1 ?
			    g.slot_size / SZ_4K - i * per_vcpu : per_vcpu;
		vcpu_setup(v);
		errno = pthread_create(&v->thread, NULL, vcpu_thread, v);
		if (errno)
			die("pthread_create");
	}
	stats_open();
	phase_end("setup", t0);
	stats_mark("setup");
}

static void teardown(void)
{
	double t0;
	int i;

	g.quit = true;
	pthread_barrier_wait(&g.start);
	for (i = 0; i < g.nr_vcpus; i++)
		pthread_join(g.vcpus[i].thread, NULL);

	/* every vCPU fd, its kvm_run mapping and the stats fd pin the VM */
	t0 = phase_begin("teardown");
	for (i = 0; i < g.nr_vcpus; i++) {
		munmap(g.vcpus[i].run, g.run_size);
		close(g.vcpus[i].fd);
	}
	if (g.stats_fd >= 0)
		close(g.stats_fd);
	close(g.vm_fd);
	phase_end("teardown", t0);
	close(g.kvm_fd);
	munmap(g.map, g.map_size);
	munmap(g.code, CODE_SIZE);
	free(g.vcpus);
}

/* ---------------------------------------------------------------------- */

static void usage(void)
{
	printf(
"usage: " PROG " [options]\n"
"Drive KVM's x86 MMU through dirty logging and mark each phase in the\n"
"ftrace trace_marker (\"" TAG "phase=<name> begin|end\").\n"
"\n"
"  -m MiB       test slot size (default 256; multiple of 2, of 1024 for\n"
"               hugetlb1g)\n"
"  -g GPA       test slot guest-physical base (default 0x40000000; 2 MiB\n"
"               aligned, 1 GiB aligned for hugetlb1g; slot below 4 GiB)\n"
"  -v N         vCPUs (default 1), each writes its own share of the slot\n"
"  -i N         dirty passes per cycle (default 1)\n"
"  -C N         cycles of enable/dirty/disable/repopulate (default 1)\n"
"  -p PERCENT   pages written per dirty pass (default 100): every\n"
"               (100/PERCENT)-th page; populate always writes all\n"
"  -b TYPE      backing: thp (default), anon (no THP), hugetlb2m,\n"
"               hugetlb1g (need free huge pages of that size)\n"
"  -c           KVM_CLEAR_DIRTY_LOG with manual protect (and\n"
"               INITIALLY_SET when supported)\n"
"  -M PATH      write markers to PATH instead of " DEFAULT_MARKER ";\n"
"               repeat to write to several (e.g. an instance's marker)\n"
"  -n           no trace markers (stdout only)\n"
"  -h           this help\n");
	exit(0);
}

static uint64_t parse_u64(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		die_usage("invalid %s '%s'", what, s);
	return v;
}

static int parse_int(const char *s, const char *what, int min, int max)
{
	uint64_t v = parse_u64(s, what);

	if (v < (uint64_t)min || v > (uint64_t)max)
		die_usage("%s must be in %d..%d", what, min, max);
	return v;
}

static void parse_args(int argc, char **argv)
{
	uint64_t mib;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "m:g:v:i:C:p:b:cM:nh")) != -1) {
		switch (c) {
		case 'm':
			mib = parse_u64(optarg, "slot size");
			if (!mib || mib >= 4096)
				die_usage("slot size must be 1..4095 MiB");
			g.slot_size = mib << 20;
			break;
		case 'g':
			g.gpa = parse_u64(optarg, "GPA");
			break;
		case 'v':
			g.nr_vcpus = parse_int(optarg, "vcpus", 1, 256);
			break;
		case 'i':
			g.iterations = parse_int(optarg, "iterations", 0, 1000000);
			break;
		case 'C':
			g.cycles = parse_int(optarg, "cycles", 1, 1000000);
			break;
		case 'p':
			g.percent = parse_int(optarg, "percent", 1, 100);
			break;
		case 'b':
			for (i = 0; i < ARRAY_SIZE(backing_names); i++)
				if (!strcmp(optarg, backing_names[i]))
					break;
			if (i == ARRAY_SIZE(backing_names))
				die_usage("unknown backing '%s'", optarg);
			g.backing = i;
			break;
		case 'c':
			g.clear_log = true;
			break;
		case 'M':
			if (g.nr_marker_paths == MAX_MARKERS)
				die_usage("at most %d -M options", MAX_MARKERS);
			g.marker_path[g.nr_marker_paths++] = optarg;
			break;
		case 'n':
			g.no_markers = true;
			break;
		case 'h':
			usage();
			break;
		default:
			die_usage("invalid option");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (g.slot_size % SZ_2M)
		die_usage("slot size must be a multiple of 2 MiB");
	if (g.gpa % SZ_2M)
		die_usage("GPA must be 2 MiB aligned");
	if (g.backing == BACKING_HUGETLB_1G &&
	    (g.slot_size % SZ_1G || g.gpa % SZ_1G))
		die_usage("hugetlb1g needs a 1 GiB aligned GPA and a multiple of 1024 MiB");
	if (g.gpa < CODE_GPA + CODE_SIZE || g.gpa + g.slot_size > SZ_4G)
		die_usage("test slot must lie in [2 MiB, 4 GiB)");
	if (g.slot_size / SZ_4K < (uint64_t)g.nr_vcpus)
		die_usage("slot too small for %d vcpus", g.nr_vcpus);
}

int main(int argc, char **argv)
{
	uint64_t *bitmap, stride;
	size_t words;
	int cycle, it;
	char phase[32];

	parse_args(argc, argv);
	markers_open();
	stride = SZ_4K * (100 / g.percent);

	printf("%s: slot %" PRIu64 " MiB at GPA 0x%" PRIx64 " backing=%s vcpus=%d"
	       " iterations=%d cycles=%d percent=%d (stride %" PRIu64
	       " pages) clear_log=%d\n", PROG, g.slot_size >> 20, g.gpa,
	       backing_names[g.backing], g.nr_vcpus, g.iterations, g.cycles,
	       g.percent, stride / SZ_4K, g.clear_log);

	setup();
	guest_pass("populate", SZ_4K);

	words = (g.slot_size / SZ_4K + 63) / 64;
	bitmap = calloc(words, sizeof(*bitmap));
	if (!bitmap)
		die("calloc");
	for (cycle = 1; cycle <= g.cycles; cycle++) {
		if (g.cycles > 1)
			mark("cycle=%d begin", cycle);
		set_slot_flags("enable_dirty_logging", KVM_MEM_LOG_DIRTY_PAGES);
		for (it = 1; it <= g.iterations; it++) {
			snprintf(phase, sizeof(phase), "dirty_pass_%d", it);
			guest_pass(phase, stride);
			dirty_log(it, bitmap, words);
		}
		set_slot_flags("disable_dirty_logging", 0);
		guest_pass("repopulate", SZ_4K);
	}
	free(bitmap);
	teardown();
	return 0;
}
