// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the analyzer's pure parts: the "KVM stats after" parser
 * (both workload formats seen in the captures), the census helpers and the
 * stable names that are file format.
 */
#include "history/local.h"
#include "test.h"

static void t_stats_k61(void)
{
	int64_t p[MSC_HISTORY_MAX_LEVEL + 1];
	char phase[64];

	check(hcensus_parse_stats("kvm_dirtylog_harness: KVM stats after enable dirty logging  : "
				  "pages_4k=8193 pages_2m=0 pages_1g=0 remote_tlb_flush_requests=1",
				  phase, sizeof(phase), p));
	check_str(phase, "enable dirty logging");
	check_int(p[1], ==, 8193);
	check_int(p[2], ==, 0);
	check_int(p[3], ==, 0);
}

static void t_stats_k612(void)
{
	int64_t p[MSC_HISTORY_MAX_LEVEL + 1];
	char phase[64];

	check(hcensus_parse_stats("mmuscope-dirtylog: KVM stats after populate: pages_4k=1 "
				  "pages_2m=0 pages_1g=1 remote_tlb_flush=0", phase, sizeof(phase), p));
	check_str(phase, "populate");
	check_int(p[1], ==, 1);
	check_int(p[3], ==, 1);
	check(!hcensus_parse_stats("mmuscope-dirtylog: phase=populate begin", phase,
				   sizeof(phase), p));
	check(!hcensus_parse_stats("KVM stats after x: remote_tlb_flush=3", phase, sizeof(phase), p));
}

static void t_census_mapped(void)
{
	struct msc_census c = { .pages = { 0, 1, 16, 1 } };

	check_uint(msc_census_mapped(&c), ==, 1 + 16 * 512 + 262144);
}

static void t_names(void)
{
	check_str(msc_map_cause_name(MSC_CAUSE_EAGER_SPLIT), "eager-split");
	check_str(msc_map_cause_name(MSC_CAUSE_TRACE_START), "trace-start");
	check_str(msc_phase_kind_name(MSC_PHASE_REPROMOTE), "re-promotion");
	check_str(msc_phase_source_name(MSC_PHASE_SRC_INFERRED), "inferred");
	check_str(msc_anomaly_kind_name(MSC_ANOMALY_LEFT_FROZEN), "left-frozen");
	check_str(msc_region_kind_name(MSC_REGION_4K), "4K");
	/* schema/002-analysis.sql's map_cause ids are the enum values */
	check_int(MSC_CAUSE_OTHER, ==, 21);
	check_int(MSC_CAUSE_RESYNC, ==, 19);
}

int main(void)
{
	TEST(t_stats_k61(), "KVM stats line of the 6.1 harness (names with spaces)");
	TEST(t_stats_k612(), "KVM stats line of the 6.12 workload; other markers are not");
	TEST(t_census_mapped(), "mapped memory from the census");
	TEST(t_names(), "stable names and map_cause ids");
	return test_done();
}
