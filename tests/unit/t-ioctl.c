// SPDX-License-Identifier: GPL-2.0-only
/*
 * The KVM ioctls on a real sys_enter_ioctl format (a 7.3 capture's): the
 * filter record asks the kernel for keeps a VMM's requests whether it
 * passed them as unsigned or, as QEMU does, as a sign-extended int, and the
 * decoder reads both as the request the kernel acts on.  The filter is
 * applied with libtraceevent's own filter, which compares a field of the
 * format's size (8 bytes) as the kernel's does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "mmuscope/decode.h"
#include "mmuscope/event.h"
#include "test.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record bytes below are little-endian"
#endif

#define FORMAT "traces/k73st-split_hugetlb2m_16m/formats/syscalls/sys_enter_ioctl/format"

static struct tep_handle *tep_with_format(void)
{
	struct tep_handle *tep = tep_alloc();
	char path[1024], *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_data_dir(), FORMAT);
	f = fopen(path, "r");
	if (!check(f != NULL) || !tep)
		goto out;
	text = malloc(65536);
	len = fread(text, 1, 65535, f);
	text[len] = '\0';
	fclose(f);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (!check_int(tep_parse_event(tep, text, len, "syscalls"), ==, 0)) {
		tep_free(tep);
		tep = NULL;
	}
out:
	free(text);
	return tep;
}

/* A sys_enter_ioctl record of that format: fd at 16, cmd at 24, arg at 32. */
static void record(struct tep_handle *tep, unsigned char *buf, uint64_t cmd)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "syscalls", "sys_enter_ioctl");
	uint16_t id = ev ? (uint16_t)ev->id : 0;
	int32_t pid = 4242, nr = 16;
	uint64_t fd = 12, arg = 0x7ffd0000;

	memset(buf, 0, 40);
	memcpy(buf, &id, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &nr, 4);
	memcpy(buf + 16, &fd, 8);
	memcpy(buf + 24, &cmd, 8);
	memcpy(buf + 32, &arg, 8);
}

static void t_filter_sign_extended(void)
{
	struct tep_handle *tep = tep_with_format();
	struct tep_event_filter *filter;
	static const struct {
		uint64_t cmd;
		bool kept;
	} cases[] = {
		{ 0xc018aec0, true },			/* KVM_CLEAR_DIRTY_LOG, unsigned */
		{ 0xffffffffc018aec0ULL, true },	/* the same from QEMU's int */
		{ 0x4010ae42, true },			/* KVM_GET_DIRTY_LOG */
		{ 0xaec7, true },			/* KVM_RESET_DIRTY_RINGS */
		{ 0xae03, false },			/* KVM_CHECK_EXTENSION */
		{ 0xae80, false },			/* KVM_RUN: too frequent */
		{ 0xffffffff4010ae42ULL, false },	/* no int sign-extends bit 31 clear */
		{ 0x5401, false },			/* TCGETS */
	};
	char text[512], str[600];
	unsigned char buf[40];

	if (!tep)
		return;
	msc_kvm_ioctl_filter(text, sizeof(text));
	check(strstr(text, "cmd == 0xffffffffc018aec0") != NULL);
	filter = tep_filter_alloc(tep);
	snprintf(str, sizeof(str), "syscalls/sys_enter_ioctl: %s", text);
	if (check(filter != NULL) && check_int(tep_filter_add_filter_str(filter, str), ==, 0)) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct tep_record rec = { .data = buf, .size = 40 };

			record(tep, buf, cases[i].cmd);
			if (!check_int(tep_filter_match(filter, &rec) == FILTER_MATCH, ==, cases[i].kept))
				printf("# cmd %#llx\n", (unsigned long long)cases[i].cmd);
		}
	}
	tep_filter_free(filter);
	tep_free(tep);
}

static void t_decode_sign_extended(void)
{
	struct tep_handle *tep = tep_with_format();
	struct msc_decoder *d = NULL;
	unsigned char buf[40];

	if (!tep || !check_int(msc_decoder_new(tep, &d), ==, 0)) {
		if (tep)
			tep_free(tep);
		return;
	}
	for (int signext = 0; signext <= 1; signext++) {
		struct tep_record rec = { .ts = 1000, .cpu = 0, .data = buf, .size = 40 };
		struct msc_event ev = { 0 };

		record(tep, buf, signext ? 0xffffffffc018aec0ULL : 0xc018aec0);
		if (check_int(msc_decoder_decode(d, &rec, &ev), ==, 1) &&
		    check_int(ev.type, ==, MSC_EV_IOCTL)) {
			check_uint(ev.ioctl.cmd, ==, 0xc018aec0);
			check(msc_kvm_ioctl_name(ev.ioctl.cmd) &&
			      !strcmp(msc_kvm_ioctl_name(ev.ioctl.cmd), "KVM_CLEAR_DIRTY_LOG"));
		}
	}
	msc_decoder_free(d);
	tep_free(tep);
}

int main(void)
{
	TEST(t_filter_sign_extended(),
	     "the ioctl filter keeps KVM_CLEAR_DIRTY_LOG passed as an int (sign-extended)");
	TEST(t_decode_sign_extended(), "a sign-extended request decodes as the kernel reads it");
	return test_done();
}
