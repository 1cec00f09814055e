/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/synth/: the loaded formats, shared by the writer (which
 * places record fields) and the fake tracing directory (which copies the
 * format texts).
 */
#ifndef MSC_SYNTH_LOCAL_H
#define MSC_SYNTH_LOCAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/event.h"
#include "mmuscope/spte.h"
#include "mmuscope/synth.h"

struct tep_event;
struct tep_handle;

/* One events/<system>/<name>/format file. */
struct synth_format {
	char system[64];
	char name[96];
	int id;			/* the ID line: common_type of its records */
	struct tep_event *event;	/* parsed, owned by the formats' tep */
	char *text;		/* the file, verbatim */
	size_t len;
};

struct msc_synth_formats {
	char dir[PATH_MAX];
	char release[64];	/* KERNEL_RELEASE, "" if absent */
	struct tep_handle *tep;
	struct msc_ringbuf_layout layout;
	char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	struct synth_format *formats;	/* sorted by system, name */
	size_t nr, alloc;
	char error[PATH_MAX + 128];
};

const struct synth_format *synth_formats_find(const struct msc_synth_formats *f,
					      const char *system, const char *name);
bool synth_formats_has_field(const struct msc_synth_formats *f, const char *system,
			     const char *name, const char *field);

/* ---- the model (lib/synth/model.c drives, lib/synth/mmu.c keeps the page tables) */

/* What differs between the kernels the model knows (docs/kvm-mmu.md, "Dirty logging" and "Version history"). */
enum synth_disable {
	DISABLE_ZAP_FROZEN_FIRST,	/* <= 6.9: parent -> FROZEN, children, then flush */
	DISABLE_ZAP_FLUSH_FIRST,	/* 6.10-6.12: flush, parent -> non-present, children */
	DISABLE_RECOVER,		/* >= 6.13: non-leaf -> huge leaf in place */
};

struct synth_kernel {
	const char *name;		/* --kernel */
	const char *formats;		/* tests/data/formats/<this> */
	const char *release;		/* uname -r of the synthetic host */
	unsigned int kver;
	int ret_pf_fixed;		/* RET_PF_FIXED; RET_PF_INVALID is one less */
	bool fast_pf_ec32;		/* fast_page_fault's error_code is a u32 (bit 32 lost) */
	enum synth_disable disable;
	bool fault_split;		/* fault path splits huge pages (6.2+), else zaps */
	bool zap_4k_first;		/* teardown zaps 4K, 2M, 1G, root (6.3+); else 1G, root */
	bool removed_first;		/* a removed table is traced before its parent's change (7.x) */
	const char *probe_flush_range;	/* kprobe names of the captures' "lab" group */
	const char *probe_flush_memslot;
	bool harvest_probes_memslot;	/* the dirty-log ioctls' flush shows the memslot probe */
};

/* A kernel thread context: the VMM's main thread or one vCPU thread. */
struct synth_thread {
	int pid;
	unsigned int cpu;
	int vcpu;			/* -1 for the main thread */
	uint64_t clock;			/* ns: when its next event happens */
	uint64_t next_gfn, end_gfn;	/* a vCPU's share of a guest pass still to touch */
	bool started;			/* ... and whether it has entered the guest */
};

/* A page table: 512 SPTEs, and for upper levels the tables they point to. */
struct synth_pt {
	uint64_t spte[512];
	struct synth_pt **child;	/* NULL for level-1 tables */
	uint64_t pfn;			/* host frame of the table */
	uint64_t gfn;			/* first GFN it maps */
	uint64_t linked;		/* ns: when the walks could first reach it */
	unsigned int level;		/* level of its entries */
};

struct synth_model {
	const struct msc_synth_opts *o;
	const struct synth_kernel *k;
	const struct msc_synth_formats *f;
	struct msc_spte_layout l;
	uint64_t leaf_bits, table_bits;	/* vendor bits of present SPTEs */
	unsigned int role;		/* kvm_mmu_page_role of a TDP table, level 0 */
	unsigned int root_access;	/* its access field: ACC_ALL */
	bool req_access;		/* kvm_mmu_spte_requested has the access field */
	msc_synth_emit_fn emit;
	void *ctx;
	struct msc_event ev;		/* reused: only the fields of ev.type are set */
	int r;				/* first emit error; stops the run */

	/* memory: slot 0 (2 MiB of code at GFN 0), slot 1 (the test slot) */
	uint64_t slot_gfn, slot_pages;
	unsigned int backing_level;	/* 1, 2 or 3 */
	bool logging;			/* dirty logging on slot 1 */
	uint64_t *dirty;		/* slot 1's dirty bitmap, 64 pages a word */
	struct synth_pt *root;
	uint64_t next_table_pfn;
	uint64_t leaves[4];		/* present leaves per level: pages_4k/2m/1g */
	uint64_t flushes;		/* remote_tlb_flush_requests */

	/* threads and time */
	struct synth_thread main;
	struct synth_thread *vcpus;
	struct synth_thread **ready;	/* guest_pass(): a min-heap of the vCPUs with steps left */
	uint64_t *cpu_clock;		/* last timestamp of each CPU */
	uint64_t rng;

	/* --lost-events */
	bool lost_armed;
	uint64_t lost_dropped;

	struct msc_synth_stats *stats;
};

/* lib/synth/model.c: time and events */
uint64_t synth_cost(struct synth_model *m, uint64_t ns);
void synth_emit(struct synth_model *m, struct synth_thread *t, uint64_t cost);
struct msc_event *synth_event(struct synth_model *m, int type);
void synth_kprobe(struct synth_model *m, struct synth_thread *t, const char *name);
void synth_flush(struct synth_model *m, struct synth_thread *t, bool range, bool memslot_probe);

/* lib/synth/mmu.c: the TDP MMU */
int synth_mmu_init(struct synth_model *m);
void synth_mmu_release(struct synth_model *m);
void synth_mmu_load(struct synth_model *m, struct synth_thread *t);
uint64_t synth_mmu_access(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
			  bool write, bool fetch);
void synth_mmu_split_slot(struct synth_model *m, struct synth_thread *t);
void synth_mmu_protect_slot(struct synth_model *m, struct synth_thread *t, unsigned int min_level,
			    bool clear_dirty);
void synth_mmu_protect_masked(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
			      uint64_t mask);
void synth_mmu_collapse(struct synth_model *m, struct synth_thread *t);
void synth_mmu_teardown(struct synth_model *m, struct synth_thread *t);

#endif /* MSC_SYNTH_LOCAL_H */
