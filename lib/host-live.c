// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host profile of a live recording, read from /proc and /sys: kernel
 * release, VMX or SVM, every kvm* module parameter, physical address bits,
 * THP and huge page settings.  The kvm module parameters decide the SPTE
 * layout: kvm_intel with ept=Y writes EPT entries; kvm_amd, and either
 * vendor without two-dimensional paging (shadow MMU), write x86 PTEs.
 *
 * Every fact read is also kept as a name/value pair for the capture's
 * host_param rows, so a database says what its classification relied on.
 */
#include "mmuscope/live.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmuscope/host.h"
#include "mmuscope/util.h"

struct reader {
	const char *root;		/* "" for the running system */
	struct msc_host_profile *p;
	size_t cap;
	int err;			/* first allocation failure */
};

/* Read a small text file under the root; the trailing newline is dropped. */
static int read_text(const struct reader *r, const char *path, char *buf, size_t size)
{
	char full[4096];
	size_t n;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", r->root, path);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static void add_param(struct reader *r, const char *name, const char *value)
{
	struct msc_host_profile *p = r->p;

	if (p->nr_params == r->cap) {
		size_t n = r->cap ? 2 * r->cap : 64;
		struct msc_host_param *a = realloc(p->params, n * sizeof(*a));

		if (!a) {
			r->err = -ENOMEM;
			return;
		}
		p->params = a;
		r->cap = n;
	}
	snprintf(p->params[p->nr_params].name, sizeof(p->params[0].name), "%s", name);
	snprintf(p->params[p->nr_params].value, sizeof(p->params[0].value), "%s", value);
	p->nr_params++;
}

static const char *get_param(const struct msc_host_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nr_params; i++)
		if (!strcmp(p->params[i].name, name))
			return p->params[i].value;
	return NULL;
}

static bool param_yes(const struct msc_host_profile *p, const char *name)
{
	const char *v = get_param(p, name);

	return v && (v[0] == 'Y' || v[0] == 'y' || v[0] == '1');
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every readable /sys/module/<module>/parameters/<name> as "<module>.<name>". */
static void read_module_params(struct reader *r, const char *module)
{
	char dir[512], path[1024], name[192], value[128];
	struct dirent *de;
	char *names[256];
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/module/%s/parameters", r->root, module);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && n < ARRAY_SIZE(names))
		if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, names[i]);
		if (!read_text(r, path, value, sizeof(value))) {
			snprintf(name, sizeof(name), "%s.%s", module, names[i]);
			add_param(r, name, value);
		}
		free(names[i]);
	}
}

/* The kvm* modules in /sys/module, sorted, the core "kvm" first. */
static void read_kvm_modules(struct reader *r)
{
	char dir[512];
	struct dirent *de;
	char *names[32];
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/module", r->root);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && n < ARRAY_SIZE(names))
		if (!strncmp(de->d_name, "kvm", 3) && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		read_module_params(r, names[i]);
		if (strcmp(names[i], "kvm") && !r->p->kvm_module[0])
			snprintf(r->p->kvm_module, sizeof(r->p->kvm_module), "%s", names[i]);
		free(names[i]);
	}
}

/* CPU vendor, virtualization flag and address sizes from /proc/cpuinfo. */
static void read_cpuinfo(struct reader *r)
{
	struct msc_host_profile *p = r->p;
	char path[4096], line[8192], vendor[64] = "";
	unsigned int phys = 0, virt = 0;
	bool flags_seen = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", r->root);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!vendor[0] && sscanf(line, "vendor_id : %63s", vendor) == 1)
			continue;
		if (!phys && sscanf(line, "address sizes : %u bits physical, %u bits virtual",
				    &phys, &virt) == 2)
			continue;
		if (!flags_seen && !strncmp(line, "flags", 5)) {
			flags_seen = true;
			if (strstr(line, " vmx"))
				snprintf(p->virt, sizeof(p->virt), "vmx");
			else if (strstr(line, " svm"))
				snprintf(p->virt, sizeof(p->virt), "svm");
		}
		if (vendor[0] && phys && flags_seen)
			break;
	}
	fclose(f);
	p->phys_bits = phys;
	if (vendor[0])
		add_param(r, "cpu.vendor", vendor);
	add_param(r, "cpu.virt", p->virt[0] ? p->virt : "none");
	if (phys) {
		snprintf(line, sizeof(line), "%u", phys);
		add_param(r, "cpu.phys_bits", line);
		snprintf(line, sizeof(line), "%u", virt);
		add_param(r, "cpu.virt_bits", line);
	}
}

/* "always [madvise] never" -> "madvise" */
static void add_selected(struct reader *r, const char *name, const char *path)
{
	char buf[256], sel[64];
	const char *open;

	if (read_text(r, path, buf, sizeof(buf)))
		return;
	open = strchr(buf, '[');
	if (open && sscanf(open + 1, "%63[^]]", sel) == 1)
		add_param(r, name, sel);
	else
		add_param(r, name, buf);
}

static void read_memory(struct reader *r)
{
	static const char thp[] = "/sys/kernel/mm/transparent_hugepage";
	char path[256], buf[64];

	snprintf(path, sizeof(path), "%s/enabled", thp);
	add_selected(r, "thp.enabled", path);
	snprintf(path, sizeof(path), "%s/defrag", thp);
	add_selected(r, "thp.defrag", path);
	snprintf(path, sizeof(path), "%s/shmem_enabled", thp);
	add_selected(r, "thp.shmem_enabled", path);
	snprintf(path, sizeof(path), "%s/khugepaged/defrag", thp);
	if (!read_text(r, path, buf, sizeof(buf)))
		add_param(r, "thp.khugepaged_defrag", buf);
	if (!read_text(r, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", buf,
		       sizeof(buf)))
		add_param(r, "hugepages.2M", buf);
	if (!read_text(r, "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", buf,
		       sizeof(buf)))
		add_param(r, "hugepages.1G", buf);
}

/*
 * The SPTE layout KVM uses here: EPT entries with kvm_intel ept=Y, x86 PTE
 * entries (our "npt" layout) with kvm_amd or under the shadow MMU.
 */
static void select_layout(struct msc_host_profile *p)
{
	struct msc_host *h = &p->host;
	bool intel = !strcmp(p->kvm_module, "kvm_intel");
	bool amd = !strcmp(p->kvm_module, "kvm_amd");
	bool tdp = intel ? param_yes(p, "kvm_intel.ept") : amd && param_yes(p, "kvm_amd.npt");

	h->vendor_source = MSC_HOST_LIVE;
	if (intel && tdp)
		h->vendor = MSC_VENDOR_EPT;
	else if (intel || amd)
		h->vendor = MSC_VENDOR_NPT;
	else
		h->vendor = MSC_VENDOR_UNKNOWN;	/* no KVM, or a vendor module we do not know */
	h->ept_ad = intel && tdp && param_yes(p, "kvm_intel.eptad");
	h->tdp_mmu = tdp && param_yes(p, "kvm.tdp_mmu");
	h->source = MSC_HOST_LIVE;
}

/**
 * msc_host_live_read - read the profile of the host mmuscope runs on
 * @root: "" (or NULL) for the running system; a directory holding proc/ and
 *	sys/ trees for tests
 * @ret: filled in; release it with msc_host_profile_release()
 *
 * Missing files leave their facts out (a host without KVM has no kvm
 * parameters and an unknown vendor).  The kernel release is required.
 *
 * Returns 0, -ENOENT when the kernel release cannot be read, or -ENOMEM.
 */
int msc_host_live_read(const char *root, struct msc_host_profile *ret)
{
	struct msc_host_profile *p = ret;
	struct reader r = { .root = root ? root : "", .p = p };
	char release[64];
	int err;

	*p = (struct msc_host_profile){ 0 };
	msc_host_init(&p->host);
	err = read_text(&r, "/proc/sys/kernel/osrelease", release, sizeof(release));
	if (err)
		return err;
	snprintf(p->host.release, sizeof(p->host.release), "%s", release);
	p->host.kver = msc_kver_parse(release);
	p->host.kver_source = MSC_HOST_LIVE;
	add_param(&r, "kernel.release", release);
	read_cpuinfo(&r);
	read_kvm_modules(&r);
	add_param(&r, "kvm.module", p->kvm_module[0] ? p->kvm_module : "none");
	read_memory(&r);
	select_layout(p);
	add_param(&r, "profile.layout", msc_vendor_name(p->host.vendor));
	if (r.err) {
		msc_host_profile_release(p);
		return r.err;
	}
	return 0;
}

/** msc_host_profile_release - free what msc_host_live_read() allocated */
void msc_host_profile_release(struct msc_host_profile *p)
{
	free(p->params);
	p->params = NULL;
	p->nr_params = 0;
}
