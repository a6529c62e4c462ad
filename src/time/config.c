#include "time/config.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/version.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "run/proto.h"

#include <string.h>

static int num(double *dst, const cJSON *o, const char *key, double lo, double hi, const char *path)
{
	double v = *dst;
	int rc = ks_json_num(&v, o, key, 0);
	if (rc < 0)
		return ks_error_wrap(rc, "%s", path);
	if (rc == 0 && !(v >= lo && v <= hi))
		return ks_error_set(KS_EINVALID, "%s: %s must be between %g and %g", path, key, lo, hi);
	*dst = v;
	return 0;
}

static int inum(int *dst, const cJSON *o, const char *key, int lo, int hi, const char *path)
{
	int64_t v = *dst;
	int rc = ks_json_int_in(&v, o, key, 0, lo, hi);
	if (rc < 0)
		return ks_error_wrap(rc, "%s", path);
	*dst = (int)v;
	return 0;
}

int ks_config_load(ks_config *c, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *j = NULL;
	const cJSON *t, *r;
	int rc;

	if ((rc = ks_fs_read(&text, &len, path, 1u << 20)) < 0)
		return rc;
	if ((rc = ks_json_parse(&j, text, len, 16, path)) < 0)
		goto done;
	t = cJSON_GetObjectItemCaseSensitive(j, "timing");
	r = cJSON_GetObjectItemCaseSensitive(j, "roofline");
	if ((t && (rc = inum(&c->input_sets, t, "input_sets", 1, KS_PROTO_MAX_SETS, path)) < 0) ||
	    (t && (rc = inum(&c->warmup_runs, t, "warmup_runs", 1, 100, path)) < 0) ||
	    (t && (rc = inum(&c->min_runs, t, "min_runs", 3, 100000, path)) < 0) ||
	    (t && (rc = inum(&c->max_runs, t, "max_runs", 3, 100000, path)) < 0) ||
	    (t && (rc = num(&c->target_rel_error, t, "target_rel_error", 1e-5, 0.5, path)) < 0) ||
	    (t && (rc = num(&c->max_seconds_per_case, t, "max_seconds_per_case", 0.01, 3600, path)) < 0) ||
	    (t && (rc = num(&c->batch_ms, t, "batch_ms", 1, 10000, path)) < 0) ||
	    (t && (rc = inum(&c->verify_runs, t, "verify_runs", 0, 100, path)) < 0) ||
	    (t && (rc = num(&c->check_fraction, t, "check_fraction", 0, 1, path)) < 0) ||
	    (t && (rc = num(&c->input_change, t, "input_change", 0, 1, path)) < 0) ||
	    (r && (rc = num(&c->roofline_margin, r, "margin", 0, 0.9, path)) < 0) ||
	    (r && (rc = num(&c->timer_floor_us, r, "timer_floor_us", 0, 1e6, path)) < 0) ||
	    (r && (rc = num(&c->max_speedup, r, "max_speedup", 1, 1e9, path)) < 0))
		goto done;
	if (c->max_runs < c->min_runs)
		rc = ks_error_set(KS_EINVALID, "%s: max_runs is below min_runs", path);
done:
	cJSON_Delete(j);
	ks_free(text);
	return rc;
}

char *ks_config_find(const char *refs_dir)
{
	char *exe = ks_exe_dir(), *c[4], *found = NULL;
	int i;
	c[0] = refs_dir ? ks_asprintf("%s/../scoring/scoring.json", refs_dir) : NULL;
	c[1] = ks_asprintf("%s/../share/kscore/scoring/scoring.json", exe);
	c[2] = ks_asprintf("%s/../scoring/scoring.json", exe);
	c[3] = ks_strdup(KS_DATADIR "/scoring/scoring.json");
	for (i = 0; i < 4; i++) {
		if (!found && c[i] && ks_fs_exists(c[i]))
			found = ks_strdup(c[i]);
		ks_free(c[i]);
	}
	ks_free(exe);
	return found;
}
