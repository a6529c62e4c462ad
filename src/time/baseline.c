/* baseline: see src/time/baseline.h. The `score baseline` command is cmd_baseline.c. */
#include "time/baseline.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

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
	ks_json_str_copy(b->uuid, sizeof(b->uuid), j, "uuid");
	ks_json_str_copy(b->device, sizeof(b->device), j, "device");
	ks_json_str_copy(b->measured_at, sizeof(b->measured_at), j, "measured_at");
	b->driver_version = (int)ks_json_num_or(j, "driver_version", 0);
	ps = cJSON_GetObjectItemCaseSensitive(j, "problems");
	b->e = ks_calloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof(entry));
	cJSON_ArrayForEach(p, ps)
	{
		entry *e = &b->e[b->n];
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(p, "cases"), *c;
		if (ks_json_str(&s, p, "problem", 1) < 0)
			continue;
		e->name = ks_strdup(s);
		ks_json_str_copy(e->sha256, sizeof(e->sha256), p, "sha256");
		e->cases = ks_calloc((size_t)cJSON_GetArraySize(cs) + 1, sizeof(ks_stats));
		cJSON_ArrayForEach(c, cs)
		{
			ks_stats *st = &e->cases[e->ncases++];
			st->median = ks_json_num_or(c, "ms", 0);
			st->mean = ks_json_num_or(c, "mean", 0);
			st->min = ks_json_num_or(c, "min", 0);
			st->max = ks_json_num_or(c, "max", 0);
			st->stdev = ks_json_num_or(c, "stdev", 0);
			st->rel_error = ks_json_num_or(c, "rel_error", 0);
			st->n = (size_t)ks_json_num_or(c, "runs", 0);
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
