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
 *   reset_dirty_rings_<i>   with -r, instead of the two above: the vCPUs'
 *                           dirty rings collected, KVM_RESET_DIRTY_RINGS
 *   disable_dirty_logging   KVM_MEM_LOG_DIRTY_PAGES cleared
 *   repopulate              guest writes every page again
 *   teardown                vCPU and VM file descriptors closed
 *
 * With -C N the block enable..repopulate runs N times, each time preceded
 * by a "cycle=<k> begin" marker; phase names are the same in every cycle.
 *
 * With -V N, N VMs run at once in this process, each with its own thread
 * and vCPU threads; VM k enables dirty logging once VM k-1 is in its first
 * dirty pass and disables it after VM k-1 has disabled it. Every marker
 * line then says its VM after the tag: "mmuscope-dirtylog: vm=<k> ...".
 *
 * With -W FIFO every VM is set up (VM, memslots, vCPUs) and then waits,
 * before any vCPU runs or anything is mapped, until a line can be read from
 * FIFO; only then are the markers opened (setup's lines go to stdout only).
 * A recorder started meanwhile finds VMs that were created before it.
 *
 * Marker lines (also printed to stdout):
 *   mmuscope-dirtylog: phase=<name> begin
 *   mmuscope-dirtylog: phase=<name> end
 *   mmuscope-dirtylog: KVM stats after <name>: pages_4k=N pages_2m=N ...
 *   mmuscope-dirtylog: cycle=<k> begin
 * The stats line follows every phase except teardown (the VM is gone) and
 * lists only the statistics the kernel exports. Without -V (or with -V 1)
 * the lines carry no vm=.
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
/* The dirty ring, for older build hosts: include/uapi/linux/kvm.h */
#ifndef KVM_CAP_DIRTY_LOG_RING
#define KVM_CAP_DIRTY_LOG_RING 192
#endif
#ifndef KVM_CAP_DIRTY_LOG_RING_ACQ_REL
#define KVM_CAP_DIRTY_LOG_RING_ACQ_REL 223
#endif
#ifndef KVM_EXIT_DIRTY_RING_FULL
#define KVM_EXIT_DIRTY_RING_FULL 31
#endif
#ifndef KVM_RESET_DIRTY_RINGS
#define KVM_RESET_DIRTY_RINGS _IO(KVMIO, 0xc7)
#endif
#ifndef KVM_DIRTY_GFN_F_DIRTY
#define KVM_DIRTY_GFN_F_DIRTY (1U << 0)
#define KVM_DIRTY_GFN_F_RESET (1U << 1)
struct kvm_dirty_gfn {
	__u32 flags;
	__u32 slot;	/* as_id << 16 | slot id */
	__u64 offset;	/* pages from the slot's start */
};
#endif
/* arch/x86/include/uapi/asm/kvm.h; <linux/kvm.h> falls back to 0 */
#if !defined(KVM_DIRTY_LOG_PAGE_OFFSET) || KVM_DIRTY_LOG_PAGE_OFFSET == 0
#undef KVM_DIRTY_LOG_PAGE_OFFSET
#define KVM_DIRTY_LOG_PAGE_OFFSET 64
#endif

#define PROG		"dirtylog"
#define TAG		"mmuscope-dirtylog: "
#define DEFAULT_MARKER	"/sys/kernel/tracing/trace_marker"
#define MAX_MARKERS	8
#define MAX_VMS		4
#define RING_ENTRIES	8192	/* default dirty ring: 128 KiB per vCPU */

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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The stats of the VM fd that are reported, in this order. */
static const char *const stat_names[] = {
	"pages_4k", "pages_2m", "pages_1g",
	"remote_tlb_flush", "remote_tlb_flush_requests",
};

struct vm;

struct vcpu {
	struct vm *vm;
	int id;			/* vCPU index, also the KVM vcpu id */
	int fd;			/* vCPU fd */
	int stats_fd;		/* its binary stats, held as the selftests' kvm_util
				   does (mmuscope record --kvm-stats=stats-fd reads
				   the faults there); -1 without */
	struct kvm_run *run;	/* mmap of fd, run_size bytes */
	struct kvm_dirty_gfn *ring;	/* -r: mmap of fd, ring_entries */
	uint32_t ring_next;	/* -r: next ring entry to collect */
	uint64_t collected;	/* -r: entries collected in this pass */
	unsigned int ring_full;	/* -r: KVM_EXIT_DIRTY_RING_FULL in this pass */
	pthread_t thread;
	uint64_t gpa;		/* first GPA of this vCPU's share */
	uint64_t npages;	/* 4 KiB pages in its share */
	bool failed;		/* set by the thread, read after a pass */
};

/* One VM: its own fds, memory and threads (-V runs several at once). */
struct vm {
	int idx;
	char tag[16];		/* "vm=<idx> " with -V > 1, else "" */
	int fd;
	int stats_fd;
	uint64_t stats_data_offset;
	int stat_offset[ARRAY_SIZE(stat_names)];	/* -1: absent */
	struct vcpu *vcpus;
	struct kvm_userspace_memory_region slot;
	uint8_t *mem;		/* host view of the test slot */
	void *map;		/* what to munmap */
	size_t map_size;
	uint8_t *code;
	uint64_t *bitmap;	/* dirty pages: KVM_GET_DIRTY_LOG's or the rings' */
	size_t words;
	uint64_t ring_stray;	/* -r: entries outside the test slot */
	pthread_t thread;	/* runs the VM (VM 0: the main thread) */

	/* pass hand-off between the VM's thread and its vCPU threads */
	pthread_barrier_t start, done;
	uint64_t stride;	/* bytes between two written pages */
	uint8_t value;		/* byte the guest writes */
	bool quit;
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
	bool dirty_ring;	/* -r: the dirty ring instead of GET_DIRTY_LOG */
	uint32_t ring_entries;	/* power of two */
	int nr_vms;
	const char *wait_fifo;	/* -W: wait for a line here after setup */

	/* markers */
	const char *marker_path[MAX_MARKERS];
	int nr_marker_paths;
	bool no_markers;
	int marker_fd[MAX_MARKERS];
	int nr_marker_fds;

	/* KVM */
	int kvm_fd;
	size_t run_size;
	long page_size;
	struct vm vms[MAX_VMS];

	/* -V: how far each VM has come, for the next one's stagger */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int dirtying[MAX_VMS];	/* last cycle whose dirty passes began */
	int disabled[MAX_VMS];	/* last cycle whose disable ended */

	/* -W: VMs set up so far; set once the FIFO gave its line */
	int nr_set_up;
	bool released;
} g = {
	.slot_size = 256 << 20,
	.gpa = SZ_1G,
	.nr_vcpus = 1,
	.iterations = 1,
	.cycles = 1,
	.percent = 100,
	.backing = BACKING_THP,
	.ring_entries = RING_ENTRIES,
	.nr_vms = 1,
	.kvm_fd = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

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

/*
 * Write one line, the VM's tag first, to stdout and, as a single write(),
 * to every marker.
 */
static void __attribute__((format(printf, 2, 3)))
mark(const struct vm *vm, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, i, head;

	head = snprintf(buf, sizeof(buf), TAG "%s", vm->tag);
	va_start(ap, fmt);
	n = vsnprintf(buf + head, sizeof(buf) - head - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += head;
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

static void stats_open(struct vm *vm)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t desc_size, i, j;
	char *descs;

	vm->stats_fd = -1;
	for (j = 0; j < ARRAY_SIZE(stat_names); j++)
		vm->stat_offset[j] = -1;
	if (ioctl(g.kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) <= 0)
		return;
	vm->stats_fd = ioctl(vm->fd, KVM_GET_STATS_FD, NULL);
	if (vm->stats_fd < 0)
		die("KVM_GET_STATS_FD");
	if (pread(vm->stats_fd, &h, sizeof(h), 0) != sizeof(h))
		die("read stats header");
	desc_size = sizeof(*d) + h.name_size;
	descs = malloc(desc_size * h.num_desc);
	if (!descs)
		die("malloc");
	if (pread(vm->stats_fd, descs, desc_size * h.num_desc, h.desc_offset) !=
	    (ssize_t)(desc_size * h.num_desc))
		die("read stats descriptors");
	for (i = 0; i < h.num_desc; i++) {
		d = (struct kvm_stats_desc *)(descs + i * desc_size);
		for (j = 0; j < ARRAY_SIZE(stat_names); j++)
			if (!strncmp(d->name, stat_names[j], h.name_size))
				vm->stat_offset[j] = d->offset;
	}
	vm->stats_data_offset = h.data_offset;
	free(descs);
}

static void stats_mark(const struct vm *vm, const char *phase)
{
	char line[384];
	size_t n = 0;
	uint64_t v;
	size_t j;

	if (vm->stats_fd < 0)
		return;
	for (j = 0; j < ARRAY_SIZE(stat_names); j++) {
		if (vm->stat_offset[j] < 0)
			continue;
		if (pread(vm->stats_fd, &v, sizeof(v),
			  vm->stats_data_offset + vm->stat_offset[j]) != sizeof(v))
			die("read stat %s", stat_names[j]);
		n += snprintf(line + n, sizeof(line) - n, "%s%s=%" PRIu64,
			      n ? " " : "", stat_names[j], v);
		if (n >= sizeof(line))
			break;
	}
	mark(vm, "KVM stats after %s: %s", phase, line);
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

	v->fd = ioctl(v->vm->fd, KVM_CREATE_VCPU, v->id);
	if (v->fd < 0)
		die("KVM_CREATE_VCPU %d", v->id);
	v->run = mmap(NULL, g.run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die("mmap kvm_run of vcpu %d", v->id);
	v->stats_fd = -1;
	if (ioctl(g.kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) > 0)
		v->stats_fd = ioctl(v->fd, KVM_GET_STATS_FD, NULL);
	if (g.dirty_ring) {
		v->ring = mmap(NULL, g.ring_entries * sizeof(*v->ring),
			       PROT_READ | PROT_WRITE, MAP_SHARED, v->fd,
			       KVM_DIRTY_LOG_PAGE_OFFSET * g.page_size);
		if (v->ring == MAP_FAILED)
			die("mmap dirty ring of vcpu %d", v->id);
	}
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

/*
 * Collect the dirty entries of a vCPU's ring into its VM's bitmap and hand
 * them back to KVM (flags RESET); KVM_RESET_DIRTY_RINGS then re-protects
 * them. The acquire load pairs with KVM's release store of DIRTY (required
 * with KVM_CAP_DIRTY_LOG_RING_ACQ_REL), the release store orders our reads
 * of the entry before KVM sees it reset. Returns the entries collected.
 */
static uint64_t ring_collect(struct vcpu *v)
{
	struct vm *vm = v->vm;
	uint64_t npages = vm->slot.memory_size / SZ_4K, n = 0;

	for (;;) {
		struct kvm_dirty_gfn *e =
			&v->ring[v->ring_next & (g.ring_entries - 1)];
		uint32_t flags = __atomic_load_n(&e->flags, __ATOMIC_ACQUIRE);

		if (!(flags & KVM_DIRTY_GFN_F_DIRTY))
			break;
		if (e->slot != TEST_SLOT || e->offset >= npages)
			__atomic_fetch_add(&vm->ring_stray, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_or(&vm->bitmap[e->offset / 64],
					  UINT64_C(1) << (e->offset % 64),
					  __ATOMIC_RELAXED);
		__atomic_store_n(&e->flags, KVM_DIRTY_GFN_F_RESET,
				 __ATOMIC_RELEASE);
		v->ring_next++;
		n++;
	}
	v->collected += n;
	return n;
}

/* Run one pass of the guest loop on this vCPU; false on failure. */
static bool vcpu_pass(struct vcpu *v)
{
	struct vm *vm = v->vm;
	struct kvm_regs regs = {
		.rflags = 0x2,
		.rip = CODE_ENTRY,
		.rsp = CODE_ENTRY,
		.rsi = v->gpa,
		.rdx = vm->stride,
		.rax = vm->value,
	};
	struct kvm_run *run = v->run;

	regs.rcx = (v->npages * SZ_4K + vm->stride - 1) / vm->stride;
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
		if (run->exit_reason == KVM_EXIT_DIRTY_RING_FULL && v->ring) {
			/* harvest, reset and re-enter */
			v->ring_full++;
			ring_collect(v);
			if (ioctl(vm->fd, KVM_RESET_DIRTY_RINGS, NULL) < 0) {
				fprintf(stderr, PROG ": vcpu %d: KVM_RESET_DIRTY_RINGS: %s\n",
					v->id, strerror(errno));
				return false;
			}
			continue;
		}
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
	struct vm *vm = v->vm;

	for (;;) {
		pthread_barrier_wait(&vm->start);
		if (vm->quit)
			return NULL;
		v->failed = !vcpu_pass(v);
		pthread_barrier_wait(&vm->done);
	}
}

/* ---------------------------------------------------------------------- */
/* Phases                                                                   */

static double phase_begin(const struct vm *vm, const char *phase)
{
	mark(vm, "phase=%s begin", phase);
	return now();
}

static void phase_end(const struct vm *vm, const char *phase, double t0)
{
	double t = now() - t0;

	mark(vm, "phase=%s end", phase);
	printf("%s: %s%s took %.6f s\n", PROG, vm->tag, phase, t);
}

/* -V: VM vm->idx has reached cycle in @step (g.dirtying or g.disabled) */
static void stagger_reached(const struct vm *vm, int *step, int cycle)
{
	pthread_mutex_lock(&g.lock);
	step[vm->idx] = cycle;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
}

/* -V: wait until the VM before this one has reached cycle in @step */
static void stagger_wait(const struct vm *vm, const int *step, int cycle)
{
	if (!vm->idx)
		return;
	pthread_mutex_lock(&g.lock);
	while (step[vm->idx - 1] < cycle)
		pthread_cond_wait(&g.cond, &g.lock);
	pthread_mutex_unlock(&g.lock);
}

/*
 * Let every vCPU write its share (every stride bytes) with value; with
 * @cycle > 0 the VM's first dirty pass of that cycle has begun once the
 * vCPUs are let go.
 */
static void guest_pass(struct vm *vm, const char *phase, uint64_t stride,
		       int cycle)
{
	uint64_t off;
	double t0;
	int i;

	vm->stride = stride;
	vm->value++;
	t0 = phase_begin(vm, phase);
	pthread_barrier_wait(&vm->start);
	if (cycle)
		stagger_reached(vm, g.dirtying, cycle);
	pthread_barrier_wait(&vm->done);
	phase_end(vm, phase, t0);
	for (i = 0; i < g.nr_vcpus; i++) {
		if (vm->vcpus[i].failed) {
			errno = 0;
			die("%svcpu %d failed in phase %s", vm->tag, i, phase);
		}
	}
	for (i = 0; i < g.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		uint8_t *p = vm->mem + (v->gpa - g.gpa);

		for (off = 0; off < v->npages * SZ_4K; off += stride) {
			if (p[off] != vm->value) {
				errno = 0;
				die("%sphase %s: GPA 0x%" PRIx64 " holds %u, want %u",
				    vm->tag, phase, v->gpa + off, p[off], vm->value);
			}
		}
	}
	stats_mark(vm, phase);
}

static void set_slot_flags(struct vm *vm, const char *phase, uint32_t flags)
{
	double t0;

	vm->slot.flags = flags;
	t0 = phase_begin(vm, phase);
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &vm->slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION flags 0x%x", flags);
	phase_end(vm, phase, t0);
	stats_mark(vm, phase);
}

static uint64_t count_bits(const uint64_t *bitmap, size_t words)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < words; i++)
		n += __builtin_popcountll(bitmap[i]);
	return n;
}

static void dirty_log(struct vm *vm, int it)
{
	struct kvm_dirty_log log = {
		.slot = TEST_SLOT,
		.dirty_bitmap = vm->bitmap,
	};
	struct kvm_clear_dirty_log clear = {
		.slot = TEST_SLOT,
		.first_page = 0,
		.num_pages = g.slot_size / SZ_4K,
		.dirty_bitmap = vm->bitmap,
	};
	char phase[32];
	double t0;

	snprintf(phase, sizeof(phase), "get_dirty_log_%d", it);
	memset(vm->bitmap, 0, vm->words * sizeof(*vm->bitmap));
	t0 = phase_begin(vm, phase);
	if (ioctl(vm->fd, KVM_GET_DIRTY_LOG, &log) < 0)
		die("KVM_GET_DIRTY_LOG");
	phase_end(vm, phase, t0);
	printf("%s: %s%s dirty_pages=%" PRIu64 "/%" PRIu64 "\n", PROG, vm->tag,
	       phase, count_bits(vm->bitmap, vm->words), g.slot_size / SZ_4K);
	stats_mark(vm, phase);
	if (!g.clear_log)
		return;

	snprintf(phase, sizeof(phase), "clear_dirty_log_%d", it);
	t0 = phase_begin(vm, phase);
	if (ioctl(vm->fd, KVM_CLEAR_DIRTY_LOG, &clear) < 0)
		die("KVM_CLEAR_DIRTY_LOG");
	phase_end(vm, phase, t0);
	stats_mark(vm, phase);
}

/*
 * The dirty ring's harvest after a dirty pass: collect every vCPU's ring
 * (what KVM_EXIT_DIRTY_RING_FULL made the vCPU threads collect during the
 * pass is in the bitmap already), KVM_RESET_DIRTY_RINGS, then check that
 * the pages collected are exactly the pages the pass wrote.
 */
static void dirty_ring_harvest(struct vm *vm, int it, uint64_t stride)
{
	uint64_t npages = g.slot_size / SZ_4K, step = stride / SZ_4K;
	uint64_t entries = 0, written = 0, extra = 0, missed = 0, pg;
	unsigned int full = 0;
	char phase[32];
	double t0;
	int i, reset;

	snprintf(phase, sizeof(phase), "reset_dirty_rings_%d", it);
	t0 = phase_begin(vm, phase);
	for (i = 0; i < g.nr_vcpus; i++)
		ring_collect(&vm->vcpus[i]);
	reset = ioctl(vm->fd, KVM_RESET_DIRTY_RINGS, NULL);
	if (reset < 0)
		die("KVM_RESET_DIRTY_RINGS");
	phase_end(vm, phase, t0);

	for (i = 0; i < g.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		uint64_t first = (v->gpa - g.gpa) / SZ_4K;

		for (pg = first; pg < first + v->npages; pg++) {
			bool want = !((pg - first) % step);
			bool got = vm->bitmap[pg / 64] & (UINT64_C(1) << (pg % 64));

			written += want;
			extra += got && !want;
			missed += want && !got;
		}
		entries += v->collected;
		full += v->ring_full;
		v->collected = 0;
		v->ring_full = 0;
	}
	printf("%s: %s%s dirty_pages=%" PRIu64 "/%" PRIu64 " written=%" PRIu64
	       " entries=%" PRIu64 " ring_full_exits=%u last_reset=%d\n", PROG,
	       vm->tag, phase, count_bits(vm->bitmap, vm->words), npages,
	       written, entries, full, reset);
	if (extra || missed || vm->ring_stray) {
		errno = 0;
		die("%s%s: the rings hold %" PRIu64 " pages the pass did not write, miss %"
		    PRIu64 " it wrote, %" PRIu64 " entries outside the test slot",
		    vm->tag, phase, extra, missed, vm->ring_stray);
	}
	memset(vm->bitmap, 0, vm->words * sizeof(*vm->bitmap));
	stats_mark(vm, phase);
}

/* ---------------------------------------------------------------------- */
/* Setup and teardown                                                       */

static void map_test_slot(struct vm *vm)
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
	vm->map_size = g.slot_size + align;
	vm->map = mmap(NULL, vm->map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (vm->map == MAP_FAILED)
		die("mmap %" PRIu64 " MiB (%s)", g.slot_size >> 20,
		    backing_names[g.backing]);
	/* host VA aligned like the GPA, so the host huge pages line up */
	vm->mem = vm->map;
	if (align)
		vm->mem = (uint8_t *)(((uintptr_t)vm->map + align - 1) & ~(align - 1));
	if (g.backing == BACKING_THP &&
	    madvise(vm->mem, g.slot_size, MADV_HUGEPAGE) < 0)
		die("madvise(MADV_HUGEPAGE)");
	if (g.backing == BACKING_ANON &&
	    madvise(vm->mem, g.slot_size, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
}

/*
 * The dirty ring, before any vCPU exists: KVM_CAP_DIRTY_LOG_RING_ACQ_REL
 * when the kernel has it, else KVM_CAP_DIRTY_LOG_RING; KVM_CHECK_EXTENSION
 * answers the largest ring in bytes.
 */
static void dirty_ring_enable(struct vm *vm)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_DIRTY_LOG_RING_ACQ_REL };
	uint64_t bytes = (uint64_t)g.ring_entries * sizeof(struct kvm_dirty_gfn);
	int max;

	max = ioctl(vm->fd, KVM_CHECK_EXTENSION, KVM_CAP_DIRTY_LOG_RING_ACQ_REL);
	if (max <= 0) {
		cap.cap = KVM_CAP_DIRTY_LOG_RING;
		max = ioctl(vm->fd, KVM_CHECK_EXTENSION, KVM_CAP_DIRTY_LOG_RING);
	}
	if (max <= 0) {
		errno = 0;
		die("KVM_CAP_DIRTY_LOG_RING not supported");
	}
	if (bytes > (uint64_t)max || bytes < (uint64_t)g.page_size) {
		errno = 0;
		die("dirty ring of %" PRIu64 " bytes: KVM takes %ld..%d",
		    bytes, g.page_size, max);
	}
	cap.args[0] = bytes;
	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0)
		die("KVM_ENABLE_CAP(%s, %" PRIu64 ")",
		    cap.cap == KVM_CAP_DIRTY_LOG_RING ? "DIRTY_LOG_RING" :
		    "DIRTY_LOG_RING_ACQ_REL", bytes);
	printf("%s: %sdirty_ring cap=%s bytes=%" PRIu64 " entries=%u max_bytes=%d\n",
	       PROG, vm->tag,
	       cap.cap == KVM_CAP_DIRTY_LOG_RING ? "DIRTY_LOG_RING" :
	       "DIRTY_LOG_RING_ACQ_REL", bytes, g.ring_entries, max);
}

/* /dev/kvm, once for every VM, inside the first setup phase */
static void kvm_open(void)
{
	g.kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (g.kvm_fd < 0)
		die("open /dev/kvm");
	if (ioctl(g.kvm_fd, KVM_GET_API_VERSION, NULL) != KVM_API_VERSION)
		die("unexpected KVM API version");
	g.run_size = ioctl(g.kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if ((ssize_t)g.run_size <= 0)
		die("KVM_GET_VCPU_MMAP_SIZE");
}

static void setup(struct vm *vm)
{
	static pthread_once_t kvm_once = PTHREAD_ONCE_INIT;

	struct kvm_userspace_memory_region code_slot = {
		.slot = CODE_SLOT,
		.guest_phys_addr = CODE_GPA,
		.memory_size = CODE_SIZE,
	};
	uint64_t per_vcpu;
	double t0;
	int i, caps;

	t0 = phase_begin(vm, "setup");
	pthread_once(&kvm_once, kvm_open);
	vm->fd = ioctl(g.kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	/* VMX without unrestricted guest needs a TSS; harmless elsewhere */
	if (ioctl(g.kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0 &&
	    ioctl(vm->fd, KVM_SET_TSS_ADDR, 0xfffbd000UL) < 0)
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
		if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0)
			die("KVM_ENABLE_CAP(MANUAL_DIRTY_LOG_PROTECT2)");
		printf("%s: %smanual_protect flags=0x%x initially_set=%d\n", PROG,
		       vm->tag, caps, !!(caps & KVM_DIRTY_LOG_INITIALLY_SET));
	}
	if (g.dirty_ring)
		dirty_ring_enable(vm);

	vm->code = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vm->code == MAP_FAILED)
		die("mmap code");
	/* the code slot stays 4K-mapped: only the test slot has huge pages */
	if (madvise(vm->code, CODE_SIZE, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	memcpy(vm->code + CODE_ENTRY, guest_code, sizeof(guest_code));
	code_slot.userspace_addr = (uintptr_t)vm->code;
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &code_slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION (code slot)");

	map_test_slot(vm);
	vm->slot = (struct kvm_userspace_memory_region){
		.slot = TEST_SLOT,
		.guest_phys_addr = g.gpa,
		.memory_size = g.slot_size,
		.userspace_addr = (uintptr_t)vm->mem,
	};
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &vm->slot) < 0)
		die("KVM_SET_USER_MEMORY_REGION (test slot)");

	vm->words = (g.slot_size / SZ_4K + 63) / 64;
	vm->bitmap = calloc(vm->words, sizeof(*vm->bitmap));
	vm->vcpus = calloc(g.nr_vcpus, sizeof(*vm->vcpus));
	if (!vm->bitmap || !vm->vcpus)
		die("calloc");
	if (pthread_barrier_init(&vm->start, NULL, g.nr_vcpus + 1) ||
	    pthread_barrier_init(&vm->done, NULL, g.nr_vcpus + 1))
		die("pthread_barrier_init");
	per_vcpu = g.slot_size / SZ_4K / g.nr_vcpus;
	for (i = 0; i < g.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->vm = vm;
		v->id = i;
		v->gpa = g.gpa + i * per_vcpu * SZ_4K;
		v->npages = i == g.nr_vcpus - 1 ?
			    g.slot_size / SZ_4K - i * per_vcpu : per_vcpu;
		vcpu_setup(v);
		errno = pthread_create(&v->thread, NULL, vcpu_thread, v);
		if (errno)
			die("pthread_create");
	}
	stats_open(vm);
	phase_end(vm, "setup", t0);
	stats_mark(vm, "setup");
}

static void teardown(struct vm *vm)
{
	double t0;
	int i;

	vm->quit = true;
	pthread_barrier_wait(&vm->start);
	for (i = 0; i < g.nr_vcpus; i++)
		pthread_join(vm->vcpus[i].thread, NULL);

	/* every vCPU fd, its mappings and the stats fd pin the VM */
	t0 = phase_begin(vm, "teardown");
	for (i = 0; i < g.nr_vcpus; i++) {
		munmap(vm->vcpus[i].run, g.run_size);
		if (vm->vcpus[i].ring)
			munmap(vm->vcpus[i].ring,
			       g.ring_entries * sizeof(*vm->vcpus[i].ring));
		if (vm->vcpus[i].stats_fd >= 0)
			close(vm->vcpus[i].stats_fd);
		close(vm->vcpus[i].fd);
	}
	if (vm->stats_fd >= 0)
		close(vm->stats_fd);
	close(vm->fd);
	phase_end(vm, "teardown", t0);
	munmap(vm->map, vm->map_size);
	munmap(vm->code, CODE_SIZE);
	free(vm->vcpus);
	free(vm->bitmap);
}

/*
 * -W: block until a whole line comes on the FIFO; open() itself blocks
 * until a writer opens it. The line says "go", whatever it holds.
 */
static void fifo_wait(void)
{
	ssize_t n;
	char c;
	int fd;

	printf("%s: waiting for a line on %s\n", PROG, g.wait_fifo);
	fflush(stdout);
	fd = open(g.wait_fifo, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s", g.wait_fifo);
	do {
		n = read(fd, &c, 1);
	} while ((n == 1 && c != '\n') || (n < 0 && errno == EINTR));
	if (n <= 0) {
		if (!n)
			errno = 0;
		die("%s: no line before end of file", g.wait_fifo);
	}
	close(fd);
	printf("%s: released\n", PROG);
	fflush(stdout);
}

/*
 * -W: wait until every VM of the process is set up, then (VM 0's thread)
 * for the FIFO's line; the markers are opened before any VM goes on, so
 * a marker that exists only once recording has begun can be named.
 */
static void setup_wait(const struct vm *vm)
{
	if (!g.wait_fifo)
		return;
	pthread_mutex_lock(&g.lock);
	g.nr_set_up++;
	pthread_cond_broadcast(&g.cond);
	if (!vm->idx) {
		while (g.nr_set_up < g.nr_vms)
			pthread_cond_wait(&g.cond, &g.lock);
		pthread_mutex_unlock(&g.lock);
		fifo_wait();
		markers_open();
		pthread_mutex_lock(&g.lock);
		g.released = true;
		pthread_cond_broadcast(&g.cond);
	}
	while (!g.released)
		pthread_cond_wait(&g.cond, &g.lock);
	pthread_mutex_unlock(&g.lock);
}

/* One VM's whole life: setup, populate, the cycles, teardown. */
static void *vm_run(void *arg)
{
	struct vm *vm = arg;
	uint64_t stride = SZ_4K * (100 / g.percent);
	char phase[32];
	int cycle, it;

	setup(vm);
	setup_wait(vm);
	guest_pass(vm, "populate", SZ_4K, 0);
	for (cycle = 1; cycle <= g.cycles; cycle++) {
		if (g.cycles > 1)
			mark(vm, "cycle=%d begin", cycle);
		stagger_wait(vm, g.dirtying, cycle);
		set_slot_flags(vm, "enable_dirty_logging", KVM_MEM_LOG_DIRTY_PAGES);
		if (!g.iterations)
			stagger_reached(vm, g.dirtying, cycle);
		for (it = 1; it <= g.iterations; it++) {
			snprintf(phase, sizeof(phase), "dirty_pass_%d", it);
			guest_pass(vm, phase, stride, it == 1 ? cycle : 0);
			if (g.dirty_ring)
				dirty_ring_harvest(vm, it, stride);
			else
				dirty_log(vm, it);
		}
		stagger_wait(vm, g.disabled, cycle);
		set_slot_flags(vm, "disable_dirty_logging", 0);
		stagger_reached(vm, g.disabled, cycle);
		guest_pass(vm, "repopulate", SZ_4K, 0);
	}
	teardown(vm);
	return NULL;
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
"  -r           harvest with the dirty ring (KVM_CAP_DIRTY_LOG_RING_ACQ_REL\n"
"               or KVM_CAP_DIRTY_LOG_RING, KVM_RESET_DIRTY_RINGS) instead\n"
"               of KVM_GET_DIRTY_LOG\n"
"  -R ENTRIES   dirty ring entries per vCPU, a power of two (default %d;\n"
"               implies -r)\n"
"  -V N         run N VMs (1..%d) at once, staggered (default 1)\n"
"  -M PATH      write markers to PATH instead of " DEFAULT_MARKER ";\n"
"               repeat to write to several (e.g. an instance's marker)\n"
"  -n           no trace markers (stdout only)\n"
"  -W FIFO      once every VM and vCPU exists (nothing mapped, no vCPU run\n"
"               yet), print \"waiting for a line on FIFO\", block until a\n"
"               line can be read from FIFO, print \"released\", then open\n"
"               the markers and go on (setup's lines reach stdout only)\n"
"  -h           this help\n", RING_ENTRIES, MAX_VMS);
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

	while ((c = getopt(argc, argv, "m:g:v:i:C:p:b:crR:V:M:nW:h")) != -1) {
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
		case 'R':
			g.ring_entries = parse_int(optarg, "ring entries", 1,
						   1 << 24);
			if (g.ring_entries & (g.ring_entries - 1))
				die_usage("ring entries must be a power of two");
			/* fall through */
		case 'r':
			g.dirty_ring = true;
			break;
		case 'V':
			g.nr_vms = parse_int(optarg, "VMs", 1, MAX_VMS);
			break;
		case 'M':
			if (g.nr_marker_paths == MAX_MARKERS)
				die_usage("at most %d -M options", MAX_MARKERS);
			g.marker_path[g.nr_marker_paths++] = optarg;
			break;
		case 'n':
			g.no_markers = true;
			break;
		case 'W':
			g.wait_fifo = optarg;
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
	/* KVM refuses KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG with a ring */
	if (g.dirty_ring && g.clear_log)
		die_usage("-c and -r exclude each other");
}

int main(int argc, char **argv)
{
	int i;

	parse_args(argc, argv);
	/* -W: the markers may exist only once the FIFO has said go */
	if (!g.wait_fifo)
		markers_open();

	printf("%s: slot %" PRIu64 " MiB at GPA 0x%" PRIx64 " backing=%s vcpus=%d"
	       " iterations=%d cycles=%d percent=%d (stride %" PRIu64
	       " pages) clear_log=%d", PROG, g.slot_size >> 20, g.gpa,
	       backing_names[g.backing], g.nr_vcpus, g.iterations, g.cycles,
	       g.percent, (uint64_t)(100 / g.percent), g.clear_log);
	/* the line is unchanged when the newer modes are off */
	if (g.dirty_ring)
		printf(" dirty_ring=%u", g.ring_entries);
	if (g.nr_vms > 1)
		printf(" vms=%d", g.nr_vms);
	printf("\n");

	g.page_size = sysconf(_SC_PAGESIZE);
	for (i = 0; i < g.nr_vms; i++) {
		struct vm *vm = &g.vms[i];

		vm->idx = i;
		vm->fd = -1;
		vm->stats_fd = -1;
		if (g.nr_vms > 1)
			snprintf(vm->tag, sizeof(vm->tag), "vm=%d ", i);
	}
	/* VM 0 on this thread, every other on its own */
	for (i = 1; i < g.nr_vms; i++) {
		errno = pthread_create(&g.vms[i].thread, NULL, vm_run, &g.vms[i]);
		if (errno)
			die("pthread_create");
	}
	vm_run(&g.vms[0]);
	for (i = 1; i < g.nr_vms; i++)
		pthread_join(g.vms[i].thread, NULL);
	close(g.kvm_fd);
	return 0;
}
