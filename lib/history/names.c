// SPDX-License-Identifier: GPL-2.0-only
/*
 * The names of the analysis's enums (mmuscope/history.h), as the tables
 * store them and the programs print them: the bottom of lib/history/, it
 * calls nothing.
 */
#include "mmuscope/history.h"
#include "mmuscope/util.h"

static const char *const cause_names[] = {
#define X(name, str) [MSC_CAUSE_##name] = str,
	MSC_MAP_CAUSES(X)
#undef X
};

static const char *const phase_kind_names[] = {
#define X(name, str) [MSC_PHASE_##name] = str,
	MSC_PHASE_KINDS(X)
#undef X
};

static const char *const phase_source_names[] = {
#define X(name, str) [MSC_PHASE_SRC_##name] = str,
	MSC_PHASE_SOURCES(X)
#undef X
};

static const char *const phase_bounds_names[] = {
#define X(name, str) [MSC_BOUNDS_##name] = str,
	MSC_PHASE_BOUNDS(X)
#undef X
};

static const char *const anomaly_names[] = {
#define X(name, str) [MSC_ANOMALY_##name] = str,
	MSC_ANOMALY_KINDS(X)
#undef X
};

static const char *const region_kind_names[] = {
	[MSC_REGION_UNMAPPED] = "unmapped", [MSC_REGION_4K] = "4K",
	[MSC_REGION_2M] = "2M", [MSC_REGION_1G] = "1G",
};

const char *msc_map_cause_name(enum msc_map_cause cause)
{
	return cause < MSC_CAUSE_NR ? cause_names[cause] : "?";
}

const char *msc_phase_kind_name(enum msc_phase_kind kind)
{
	return kind < MSC_PHASE_KIND_NR ? phase_kind_names[kind] : "?";
}

const char *msc_phase_source_name(enum msc_phase_source source)
{
	return source < MSC_PHASE_SRC_NR ? phase_source_names[source] : "?";
}

const char *msc_phase_bounds_name(enum msc_phase_bounds bounds)
{
	return bounds < MSC_BOUNDS_NR ? phase_bounds_names[bounds] : "?";
}

const char *msc_anomaly_kind_name(enum msc_anomaly_kind kind)
{
	return kind < MSC_ANOMALY_KIND_NR ? anomaly_names[kind] : "?";
}

const char *msc_region_kind_name(enum msc_region_kind kind)
{
	return kind < ARRAY_SIZE(region_kind_names) ? region_kind_names[kind] : "?";
}
