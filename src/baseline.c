/* baseline: see include/baseline.h. The `score baseline` command is cmd_baseline.c. */
#include "baseline.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"

#include <stdio.h>
#include <string.h>

#define BASELINE_SCHEMA KS_BASELINE_SCHEMA

typedef struct {
	char *name;
	char sha256[65];
	ks_stats *cases;
	size_t ncases;
} entry;

struct ks_baseline {
	char uuid[64], device[256], measured_at[32], describe[512];
	int driver_version;
	entry *e;
	size_t n;
};

void ks_baseline_free(ks_baseline *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		ks_free(b->e[i].name);
		ks_free(b->e[i].cases);
	}
	ks_free(b->e);
	ks_free(b);
}

static double num(const cJSON *o, const char *k)
{
	double d = 0;
	ks_json_num(&d, o, k, 0);
	return d;
}

int ks_baseline_load(ks_baseline **out, const char *path)
{
	char *text = NULL;
	cJSON *j = NULL;
	const cJSON *ps, *p;
	const char *s = NULL;
	ks_baseline *b = ks_calloc(1, sizeof(*b));
	int rc;

	*out = NULL;
	if ((rc = ks_fs_read(&text, NULL, path, 16u << 20)) < 0 ||
	    (rc = ks_json_parse(&j, text, strlen(text), 16, path)) < 0)
		goto done;
	if (ks_json_str(&s, j, "schema", 1) < 0 || strcmp(s, BASELINE_SCHEMA)) {
		rc = ks_error_set(KS_EINVALID, "%s: not a kscore.baseline/1 file", path);
		goto done;
	}
	if (ks_json_str(&s, j, "uuid", 0) == 0)
		snprintf(b->uuid, sizeof(b->uuid), "%s", s);
	if (ks_json_str(&s, j, "device", 0) == 0)
		snprintf(b->device, sizeof(b->device), "%s", s);
	if (ks_json_str(&s, j, "measured_at", 0) == 0)
		snprintf(b->measured_at, sizeof(b->measured_at), "%s", s);
	b->driver_version = (int)num(j, "driver_version");
	ps = cJSON_GetObjectItemCaseSensitive(j, "problems");
	b->e = ks_calloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof(entry));
	cJSON_ArrayForEach(p, ps)
	{
		entry *e = &b->e[b->n];
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(p, "cases"), *c;
		if (ks_json_str(&s, p, "problem", 1) < 0)
			continue;
		e->name = ks_strdup(s);
		if (ks_json_str(&s, p, "sha256", 0) == 0)
			snprintf(e->sha256, sizeof(e->sha256), "%s", s);
		e->cases = ks_calloc((size_t)cJSON_GetArraySize(cs) + 1, sizeof(ks_stats));
		cJSON_ArrayForEach(c, cs)
		{
			ks_stats *st = &e->cases[e->ncases++];
			st->median = num(c, "ms");
			st->mean = num(c, "mean");
			st->min = num(c, "min");
			st->max = num(c, "max");
			st->stdev = num(c, "stdev");
			st->rel_error = num(c, "rel_error");
			st->n = (size_t)num(c, "runs");
		}
		b->n++;
	}
	snprintf(b->describe, sizeof(b->describe), "stored baseline %s, measured %s on %s", path, b->measured_at,
		 b->device);
done:
	cJSON_Delete(j);
	ks_free(text);
	if (rc < 0)
		ks_baseline_free(b);
	else
		*out = b;
	return rc;
}

int ks_baseline_matches(const ks_baseline *b, const ks_device_info *dev)
{
	return b && dev && !strcmp(b->uuid, dev->uuid) && b->driver_version == dev->driver_version;
}

const char *ks_baseline_describe(const ks_baseline *b)
{
	return b->describe;
}

const ks_stats *ks_baseline_find(const ks_baseline *b, const ks_problem *p, size_t ci)
{
	size_t i;
	for (i = 0; b && i < b->n; i++)
		if (!strcmp(b->e[i].name, p->name))
			return !strcmp(b->e[i].sha256, p->sha256) && b->e[i].ncases == p->nperf && ci < p->nperf &&
					       b->e[i].cases[ci].median > 0
				       ? &b->e[i].cases[ci]
				       : NULL;
	return NULL;
}

char *ks_baseline_default_path(const char *cache_dir, const ks_device_info *dev)
{
	return ks_asprintf("%s/baselines/%s-%d.json", cache_dir, dev->uuid[0] ? dev->uuid : "unknown",
			   dev->driver_version);
}
