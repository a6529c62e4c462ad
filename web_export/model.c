#include "web_export/model.h"
#include "batch/leaderboard.h"
#include "batch/manifest.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Result files are the scorer's own, but may have been edited or truncated: caps keep a broken
 * one from exhausting memory, and nesting deeper than any record kscore writes is refused. */
#define MAX_SCORE_BYTES ((size_t)512 << 20)
#define MAX_RECORD_BYTES ((size_t)64 << 20)
#define MAX_DEPTH 64
#define MAX_FAILED_CASES 5

static long jlong(const cJSON *o, const char *key, long dflt)
{
	double d = ks_json_numval(o, key);
	return isnan(d) || d < -1e15 || d > 1e15 ? dflt : (long)d;
}

/* 1 true, 0 false, -1 absent or null */
static int jbool(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

/* One line on the log (the caller's stderr): which file could not be used, and why. */
static void warn(const ks_export_load_options *o, const char *msg)
{
	if (o->unreadable)
		(*o->unreadable)++;
	if (o->log)
		fprintf(o->log, "site: warning: %s (left out)\n", msg);
}

/* Reads a JSON file; NULL when absent (silently) or unreadable (with a warning). */
static cJSON *read_json(const char *dir, const char *name, size_t max, const ks_export_load_options *o)
{
	char *path = ks_path_join(dir, name), *text = NULL;
	cJSON *v = NULL;
	size_t n = 0;
	int rc = ks_fs_read(&text, &n, path, max);
	if (rc == 0)
		rc = ks_json_parse(&v, text, n, MAX_DEPTH, path);
	if (rc < 0 && rc != KS_ENOTFOUND)
		warn(o, ks_error_msg());
	ks_error_clear();
	ks_free(text);
	ks_free(path);
	return rc == 0 ? v : NULL;
}

static void perf_load(ks_export_perf *p, const cJSON *c)
{
	p->label = ks_json_strdup(c, "case");
	p->ms = ks_json_numval(c, "ms");
	p->ms_min = ks_json_numval(c, "ms_min");
	p->ms_max = ks_json_numval(c, "ms_max");
	p->golden_ms = ks_json_numval(c, "golden_ms");
	p->speedup = ks_json_numval(c, "speedup");
	p->bytes = ks_json_numval(c, "bytes");
	p->flops = ks_json_numval(c, "flops");
	p->gbps = ks_json_numval(c, "gbps");
	p->tflops = ks_json_numval(c, "tflops");
	p->floor_ms = ks_json_numval(c, "floor_ms");
	p->roofline_fraction = ks_json_numval(c, "roofline_fraction");
	p->runs = jlong(c, "runs", -1);
	p->golden_runs = jlong(c, "golden_runs", -1);
	p->verified = jlong(c, "verified_runs", -1);
	p->suspicious = jbool(c, "suspicious") == 1;
	p->why = ks_json_strdup(c, "why");
}

static void kernel_load(ks_export_kernel *k, const cJSON *o)
{
	const cJSON *a, *x;
	k->pass = jlong(o, "pass", 0);
	k->index = jlong(o, "index", 0);
	k->file = ks_json_strdup(o, "file");
	k->problem = ks_json_strdup(o, "problem");
	k->compiled = jbool(o, "compiled") == 1;
	k->call = jbool(o, "call");
	k->exec = jbool(o, "exec");
	k->reason = ks_json_strdup(o, "reason");
	k->detail = ks_json_strdup(o, "detail");
	k->extraction = ks_json_strdup(o, "extraction");
	k->launch_source = ks_json_strdup(o, "launch_source");
	k->compile_log = ks_json_strdup(cJSON_GetObjectItemCaseSensitive(o, "compile"), "log");
	k->timing_error = ks_json_strdup(o, "timing_error");
	k->speedup = ks_json_numval(o, "speedup");
	k->speedup_geomean = ks_json_numval(o, "speedup_geomean");
	k->roofline_fraction = ks_json_numval(o, "roofline_fraction");
	k->score = ks_json_numval(o, "score");
	k->suspicious = jbool(o, "suspicious") == 1;
	k->suspicious_why = ks_json_strdup(o, "suspicious_why");
	k->entry_sha256 = ks_json_strdup(o, "entry_sha256");
	/* score.json: {"text", "bytes", "truncated"} (what the kernel printed); older files: a string */
	x = cJSON_GetObjectItemCaseSensitive(o, "device_output");
	k->output = cJSON_IsObject(x) ? ks_json_strdup(x, "text") : ks_json_strdup(o, "device_output");
	k->output_truncated = cJSON_IsObject(x) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "truncated"));
	/* the profile stage's diagnosis (--profile): one sentence a line */
	a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "profile"), "diagnosis");
	if (cJSON_IsArray(a)) {
		ks_buf d = KS_BUF_INIT(64u << 10);
		cJSON_ArrayForEach(x, a)
			if (cJSON_IsString(x)) {
				ks_buf_puts(&d, x->valuestring);
				ks_buf_puts(&d, "\n");
			}
		k->diagnosis = d.len ? ks_buf_take(&d, NULL) : NULL;
		ks_buf_free(&d);
	}
	a = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
		k->fns = ks_calloc((size_t)cJSON_GetArraySize(a), sizeof(*k->fns));
		cJSON_ArrayForEach(x, a)
		{
			ks_export_fn *f = &k->fns[k->nfns++];
			f->name = ks_json_strdup(x, "name");
			f->registers = jlong(x, "registers", -1);
			f->shared = jlong(x, "shared_static_bytes", -1);
			f->local = jlong(x, "local_bytes", -1);
		}
	}
	a = cJSON_GetObjectItemCaseSensitive(o, "perf");
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
		k->perf = ks_calloc((size_t)cJSON_GetArraySize(a), sizeof(*k->perf));
		cJSON_ArrayForEach(x, a)
			perf_load(&k->perf[k->nperf++], x);
	}
	a = cJSON_GetObjectItemCaseSensitive(o, "cases");
	if (cJSON_IsArray(a)) {
		k->failed = ks_calloc(MAX_FAILED_CASES, sizeof(*k->failed));
		cJSON_ArrayForEach(x, a)
		{
			k->ncases++;
			if (jbool(x, "passed") == 0 && k->nfailed < MAX_FAILED_CASES) {
				ks_export_case *c = &k->failed[k->nfailed++];
				c->label = ks_json_strdup(x, "case");
				c->reason = ks_json_strdup(x, "reason");
				c->detail = ks_json_strdup(x, "detail");
			}
		}
	}
}

static void kernel_clear(ks_export_kernel *k)
{
	size_t i;
	ks_free(k->file);
	ks_free(k->problem);
	ks_free(k->reason);
	ks_free(k->detail);
	ks_free(k->extraction);
	ks_free(k->launch_source);
	ks_free(k->compile_log);
	ks_free(k->timing_error);
	ks_free(k->suspicious_why);
	ks_free(k->entry_sha256);
	ks_free(k->code);
	ks_free(k->code_note);
	ks_free(k->output);
	ks_free(k->diagnosis);
	for (i = 0; i < k->nfns; i++)
		ks_free(k->fns[i].name);
	ks_free(k->fns);
	for (i = 0; i < k->nperf; i++) {
		ks_free(k->perf[i].label);
		ks_free(k->perf[i].why);
	}
	ks_free(k->perf);
	for (i = 0; i < k->nfailed; i++) {
		ks_free(k->failed[i].label);
		ks_free(k->failed[i].reason);
		ks_free(k->failed[i].detail);
	}
	ks_free(k->failed);
}

static void team_init(ks_export_team *t)
{
	memset(t, 0, sizeof(*t));
	t->score = t->exec_acc = t->call_acc = t->compile_acc = NAN;
	t->geomean = t->fast_1 = t->fast_2 = t->roofline = t->wall_seconds = NAN;
	t->commit_epoch = INT64_MIN;
	t->nkernels = t->nsuspicious = -1;
}

static void team_clear(ks_export_team *t)
{
	size_t i;
	char **strs[] = { &t->name, &t->slug, &t->dir, &t->status, &t->reason, &t->detail, &t->mode,
			  &t->commit, &t->commit_time, &t->commit_subject, &t->repository, &t->ref,
			  &t->file, &t->deadline, &t->deadline_given, &t->fetched_at, &t->fetch_warning, &t->created,
			  &t->scorer_version, &t->seed, &t->submission_path, &t->submission_sha256,
			  &t->no_gpu_reason, &t->device_name, &t->device_uuid, &t->driver_cuda,
			  &t->compute_capability, &t->arch, &t->nvrtc, &t->golden_times, &t->unscored_note,
			  &t->baseline_kind, &t->baseline_text };
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		ks_free(*strs[i]);
	for (i = 0; i < t->nlater; i++) {
		ks_free(t->later[i].id);
		ks_free(t->later[i].time);
		ks_free(t->later[i].subject);
	}
	ks_free(t->later);
	for (i = 0; i < t->nk; i++)
		kernel_clear(&t->kernels[i]);
	ks_free(t->kernels);
	cJSON_Delete(t->ceilings);
	cJSON_Delete(t->protocol);
}

static void batch_record(ks_export_team *t, const cJSON *b)
{
	const cJSON *a, *x;
	double v;
	t->status = ks_json_strdup(b, "status");
	t->reason = ks_json_strdup(b, "reason");
	t->detail = ks_json_strdup(b, "detail");
	t->repository = ks_json_strdup(b, "repository");
	t->ref = ks_json_strdup(b, "ref");
	t->file = ks_json_strdup(b, "file");
	t->deadline = ks_json_strdup(b, "deadline");
	t->deadline_given = ks_json_strdup(b, "deadline_given");
	t->fetched_at = ks_json_strdup(b, "fetched_at");
	t->fetch_warning = ks_json_strdup(b, "fetch_warning");
	t->commit = ks_json_strdup(b, "commit");
	t->commit_time = ks_json_strdup(b, "commit_time");
	t->commit_subject = ks_json_strdup(b, "commit_subject");
	t->pull_request = jlong(b, "pull_request", 0);
	v = ks_json_numval(b, "commit_time_epoch");
	if (!isnan(v) && fabs(v) < 1e17)
		t->commit_epoch = (int64_t)v;
	t->later_total = jlong(b, "later_commits_total", 0);
	a = cJSON_GetObjectItemCaseSensitive(b, "later_commits");
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
		t->later = ks_calloc((size_t)cJSON_GetArraySize(a), sizeof(*t->later));
		cJSON_ArrayForEach(x, a)
		{
			ks_export_commit *c = &t->later[t->nlater++];
			c->id = ks_json_strdup(x, "id");
			c->time = ks_json_strdup(x, "time");
			c->subject = ks_json_strdup(x, "subject");
			c->ancestor = jbool(x, "ancestor_of_scored") == 1;
		}
	}
	if (!t->submission_sha256)
		t->submission_sha256 = ks_json_strdup(b, "submission_sha256");
}

static void score_record(ks_export_team *t, const cJSON *s)
{
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(s, "summary");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(s, "device");
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(s, "submission");
	const cJSON *tim = cJSON_GetObjectItemCaseSensitive(s, "timing"), *c, *a, *x;

	t->has_result = 1;
	t->mode = ks_json_strdup(s, "mode");
	t->gpu = t->mode && !strcmp(t->mode, "gpu");
	t->score = ks_json_numval(sum, "score");
	t->exec_acc = ks_json_numval(sum, "exec_accuracy");
	t->call_acc = ks_json_numval(sum, "call_accuracy");
	t->compile_acc = ks_json_numval(sum, "compile_accuracy");
	t->geomean = ks_json_numval(sum, "geomean_speedup");
	t->fast_1 = ks_json_numval(sum, "fast_1");
	t->fast_2 = ks_json_numval(sum, "fast_2");
	t->roofline = ks_json_numval(sum, "roofline_fraction");
	t->nkernels = jlong(sum, "kernels", -1);
	t->nsuspicious = jlong(sum, "suspicious", -1);
	t->created = ks_json_strdup(s, "created");
	t->scorer_version = ks_json_strdup(cJSON_GetObjectItemCaseSensitive(s, "scorer"), "version");
	t->seed = ks_json_strdup(s, "seed");
	t->no_gpu_reason = ks_json_strdup(s, "no_gpu_reason");
	t->wall_seconds = ks_json_numval(s, "wall_seconds");
	t->submission_path = ks_json_strdup(sub, "path");
	ks_free(t->submission_sha256);
	t->submission_sha256 = ks_json_strdup(sub, "sha256");
	t->device_name = ks_json_strdup(dev, "name");
	t->device_uuid = ks_json_strdup(dev, "uuid");
	t->driver_cuda = ks_json_strdup(dev, "driver_cuda_version");
	t->compute_capability = ks_json_strdup(dev, "compute_capability");
	t->arch = ks_json_strdup(cJSON_GetObjectItemCaseSensitive(s, "toolchain"), "arch");
	t->nvrtc = ks_json_strdup(cJSON_GetObjectItemCaseSensitive(s, "toolchain"), "nvrtc_version");
	c = cJSON_GetObjectItemCaseSensitive(s, "ceilings");
	if (cJSON_IsObject(c))
		t->ceilings = cJSON_Duplicate(c, 1);
	c = cJSON_GetObjectItemCaseSensitive(s, "baseline");
	t->baseline_kind = ks_json_strdup(c, "kind");
	t->baseline_text = ks_json_strdup(c, "text");
	if (cJSON_IsObject(tim)) {
		t->golden_times = ks_json_strdup(tim, "golden_times");
		t->protocol = cJSON_CreateObject();
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(tim, "protocol")))
			cJSON_AddItemToObject(t->protocol, "protocol",
					      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tim, "protocol"), 1));
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(tim, "roofline")))
			cJSON_AddItemToObject(t->protocol, "roofline",
					      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tim, "roofline"), 1));
	}
	a = cJSON_GetObjectItemCaseSensitive(s, "kernels");
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
		t->kernels = ks_calloc((size_t)cJSON_GetArraySize(a), sizeof(*t->kernels));
		cJSON_ArrayForEach(x, a)
			kernel_load(&t->kernels[t->nk++], x);
	}
	ks_unscored_add_score(&t->unscored, s);
	t->unscored_note = ks_unscored_note(&t->unscored);
	/* no answer could be checked here: its compile accuracy was not measured, it is not 0% */
	if (!t->gpu && t->unscored.answers && t->unscored.unscored == t->unscored.answers)
		t->compile_acc = NAN;
	if (t->nkernels < 0)
		t->nkernels = (long)t->nk;
	if (t->nsuspicious < 0) {
		size_t i;
		t->nsuspicious = 0;
		for (i = 0; i < t->nk; i++)
			t->nsuspicious += t->kernels[i].suspicious;
	}
}

/* GEAK-eval's records carry "stdout": the device output of a kernel, "None" when there was none.
 * They are written in the same order as score.json's kernels. */
static void attach_output(ks_export_team *t, const cJSON *all)
{
	const cJSON *x;
	size_t i = 0;
	if (!cJSON_IsArray(all))
		return;
	cJSON_ArrayForEach(x, all)
	{
		ks_export_kernel *k;
		char *out, *fn;
		if (i >= t->nk)
			break;
		k = &t->kernels[i++];
		if (jlong(x, "pass_num", -1) != k->pass)
			break;
		fn = ks_json_strdup(x, "file_name");
		out = ks_json_strdup(x, "stdout");
		if (out && *out && strcmp(out, "None") && !k->output &&
		    ((!fn && !k->file) || (fn && k->file && !strcmp(fn, k->file)))) {
			k->output = out;
			out = NULL;
		}
		ks_free(out);
		ks_free(fn);
	}
}

static char *base_name(const char *dir)
{
	char *d = ks_strdup(dir), *slash;
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	slash = strrchr(d, '/');
	if (slash && slash[1]) {
		char *b = ks_strdup(slash + 1);
		ks_free(d);
		return b;
	}
	return d;
}

/* Loads one team folder. Returns 1 when the folder holds a team (batch.json or score.json). */
static int team_load(ks_export_team *t, const char *dir, const ks_export_load_options *o)
{
	cJSON *b = read_json(dir, "batch.json", MAX_RECORD_BYTES, o), *s = NULL, *all = NULL;
	char *bp = ks_path_join(dir, "score.json");
	int has_score = ks_fs_exists(bp);
	ks_free(bp);
	team_init(t);
	if (!b && !has_score)
		return 0;
	t->dir = ks_strdup(dir);
	if (b) {
		t->in_batch = 1;
		batch_record(t, b);
	}
	if (!b || (t->status && !strcmp(t->status, "scored"))) {
		s = read_json(dir, "score.json", MAX_SCORE_BYTES, o);
		if (s) {
			score_record(t, s);
			all = read_json(dir, "out.json_all_passes.json", MAX_SCORE_BYTES, o);
			attach_output(t, all);
		}
	}
	if (!t->status)
		t->status = ks_strdup(b ? "incomplete" : "scored");
	if (!strcmp(t->status, "scored") && !t->has_result) {
		ks_free(t->status);
		t->status = ks_strdup("incomplete");
		if (!t->reason)
			t->reason = ks_strdup("unreadable_result");
	}
	t->name = s ? ks_json_strdup(s, "team") : NULL;
	if (!t->name && b)
		t->name = ks_json_strdup(b, "team");
	if (!t->name)
		t->name = base_name(dir);
	cJSON_Delete(b);
	cJSON_Delete(s);
	cJSON_Delete(all);
	return 1;
}

typedef struct {
	ks_export_team *v;
	size_t n, cap;
} team_list;

static ks_export_team *push(team_list *l)
{
	l->v = ks_grow(l->v, sizeof(*l->v), &l->cap, l->n + 1);
	return &l->v[l->n++];
}

static int name_known(const team_list *l, size_t from, const char *name)
{
	size_t i;
	for (i = from; i < l->n; i++)
		if (l->v[i].name && !strcmp(l->v[i].name, name))
			return 1;
	return 0;
}

/* A batch's results: its team folders, then the teams its leaderboard lists without a folder. */
static int load_batch(team_list *l, ks_export_model *m, const char *dir, const ks_export_load_options *o)
{
	cJSON *lb = read_json(dir, "leaderboard.json", MAX_RECORD_BYTES, o);
	char **names = NULL;
	size_t n = 0, i, first = l->n;
	int found = 0;

	if (ks_fs_list(&names, &n, dir, 1) < 0)
		return ks_error_wrap(KS_EINVALID, "%s", dir);
	for (i = 0; i < n; i++) {
		char *p;
		if (strstr(names[i], ".tmp-") || strstr(names[i], ".old-"))
			continue; /* a write that a kill interrupted */
		p = ks_path_join(dir, names[i]);
		if (ks_fs_is_dir(p)) {
			ks_export_team *t = push(l);
			if (team_load(t, p, o))
				found = 1;
			else
				l->n--;
		}
		ks_free(p);
	}
	ks_free_strv(names, n);
	if (lb) {
		const cJSON *x, *teams = cJSON_GetObjectItemCaseSensitive(lb, "teams");
		if (!m->deadline)
			m->deadline = ks_json_strdup(lb, "deadline");
		cJSON_ArrayForEach(x, teams)
		{
			char *name = ks_json_strdup(x, "team");
			ks_export_team *t;
			if (!name || name_known(l, first, name)) {
				ks_free(name);
				continue;
			}
			t = push(l);
			team_init(t);
			t->in_batch = 1;
			t->name = name;
			t->status = ks_json_strdup(x, "status");
			if (!t->status)
				t->status = ks_strdup("not_scored");
			t->reason = ks_json_strdup(x, "reason");
			t->commit = ks_json_strdup(x, "commit");
			t->commit_time = ks_json_strdup(x, "commit_time");
			found = 1;
		}
		found = 1;
	}
	cJSON_Delete(lb);
	m->batch = 1;
	if (!found)
		return ks_error_set(KS_ENOTFOUND, "%s: no result here: neither a result folder (score.json) nor "
				    "a batch's results (leaderboard.json or team folders)", dir);
	return 0;
}

static void unique_slug(ks_export_team *t, const ks_export_team *all, size_t n)
{
	/* a batch team keeps its results folder's name; a single run is named by its team */
	char *src = t->dir && t->in_batch ? base_name(t->dir) : ks_strdup(t->name ? t->name : "team");
	char *base = ks_manifest_folder_name(src);
	size_t i, k = 1;
	int taken;
	t->slug = ks_strdup(base);
	do {
		taken = 0;
		for (i = 0; i < n && !taken; i++)
			taken = all[i].slug && &all[i] != t && !strcmp(all[i].slug, t->slug);
		if (taken) {
			ks_free(t->slug);
			t->slug = ks_asprintf("%s-%zu", base, ++k);
		}
	} while (taken);
	ks_free(base);
	ks_free(src);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_problems(ks_export_model *m)
{
	size_t i, j, cap = 0, n = 0;
	char **v = NULL;
	for (i = 0; i < m->nteams; i++)
		for (j = 0; j < m->teams[i].nk; j++) {
			const char *p = m->teams[i].kernels[j].problem;
			if (!p)
				continue;
			v = ks_grow(v, sizeof(*v), &cap, n + 1);
			v[n++] = (char *)p;
		}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	m->problems = ks_calloc(n + 1, sizeof(*m->problems));
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]))
			m->problems[m->nproblems++] = ks_strdup(v[i]);
	ks_free(v);
}

/* Ranks by the leaderboard's own rule (ks_leaderboard_rank): one rule for the CSV and the site. */
static void rank(ks_export_model *m)
{
	ks_leaderboard_row *rows = ks_calloc(m->nteams + 1, sizeof(*rows));
	ks_export_team *sorted = ks_calloc(m->nteams + 1, sizeof(*sorted));
	size_t i, j;
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		ks_leaderboard_row *r = &rows[i];
		r->team = ks_strdup(t->name);
		r->folder = ks_strdup(t->slug);
		r->status = ks_leaderboard_status_parse(t->status ? t->status : "");
		r->has_result = t->has_result;
		r->gpu = t->gpu;
		r->score = t->score;
		r->exec_accuracy = t->exec_acc;
		r->call_accuracy = t->call_acc;
		r->compile_accuracy = t->compile_acc;
		r->commit_time = t->commit_epoch == INT64_MIN ? KS_MANIFEST_NO_DEADLINE : t->commit_epoch;
	}
	ks_leaderboard_rank(rows, m->nteams);
	for (i = 0; i < m->nteams; i++) {
		for (j = 0; j < m->nteams; j++)
			if (m->teams[j].slug && !strcmp(m->teams[j].slug, rows[i].folder))
				break;
		sorted[i] = m->teams[j];
		m->teams[j].slug = NULL;
		sorted[i].rank = rows[i].rank;
		ks_leaderboard_row_clear(&rows[i]);
	}
	ks_free(rows);
	ks_free(m->teams);
	m->teams = sorted;
}

int ks_export_model_load(ks_export_model **out, const char *const *inputs, size_t ninputs,
			 const ks_export_load_options *opts)
{
	ks_export_load_options dflt = KS_EXPORT_LOAD_OPTIONS_INIT;
	ks_export_model *m = ks_calloc(1, sizeof(*m));
	team_list l = { NULL, 0, 0 };
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!opts)
		opts = &dflt;
	for (i = 0; i < ninputs && rc == 0; i++) {
		char *sp = ks_path_join(inputs[i], "score.json");
		if (!ks_fs_is_dir(inputs[i])) {
			rc = ks_error_set(ks_fs_exists(inputs[i]) ? KS_EINVALID : KS_ENOTFOUND,
					  "%s: not a folder (give a result folder or a batch's results folder)",
					  inputs[i]);
		} else if (ks_fs_exists(sp)) {
			ks_export_team *t = push(&l);
			team_load(t, inputs[i], opts);
		} else {
			rc = load_batch(&l, m, inputs[i], opts);
		}
		ks_free(sp);
	}
	m->teams = l.v;
	m->nteams = l.n;
	if (rc < 0) {
		ks_export_model_free(m);
		return rc;
	}
	for (i = 0; i < m->nteams; i++) {
		unique_slug(&m->teams[i], m->teams, m->nteams);
		if (!m->deadline && m->teams[i].deadline)
			m->deadline = ks_strdup(m->teams[i].deadline);
		if (!m->deadline_given && m->teams[i].deadline_given)
			m->deadline_given = ks_strdup(m->teams[i].deadline_given);
		if (m->teams[i].has_result)
			ks_export_code_attach(&m->teams[i], opts);
	}
	rank(m);
	list_problems(m);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->generated = ks_strdup(ts);
	*out = m;
	return 0;
}

void ks_export_model_free(ks_export_model *m)
{
	size_t i;
	if (!m)
		return;
	for (i = 0; i < m->nteams; i++)
		team_clear(&m->teams[i]);
	ks_free(m->teams);
	ks_free_strv(m->problems, m->nproblems);
	ks_free(m->deadline);
	ks_free(m->deadline_given);
	ks_free(m->generated);
	ks_free(m);
}

const ks_export_kernel *ks_export_best_kernel(const ks_export_team *t, const char *problem)
{
	const ks_export_kernel *best = NULL;
	size_t i;
	for (i = 0; i < t->nk; i++) {
		const ks_export_kernel *k = &t->kernels[i];
		double ks, bs;
		if (!k->problem || strcmp(k->problem, problem))
			continue;
		if (!best) {
			best = k;
			continue;
		}
		ks = isnan(k->score) ? -1 : k->score;
		bs = isnan(best->score) ? -1 : best->score;
		if (ks > bs || (ks == bs && !isnan(k->speedup) && (isnan(best->speedup) || k->speedup > best->speedup)))
			best = k;
	}
	return best;
}

const char *ks_export_verdict(const ks_export_kernel *k)
{
	if (k->suspicious)
		return "suspicious";
	if (k->exec == 1)
		return "correct";
	if (k->exec == 0 || k->call == 0)
		return "failed";
	/* a Triton answer this host could not trace (no GPU, no torch): not a compile failure */
	if (!k->compiled && k->reason && !strcmp(k->reason, "not_run"))
		return "not run";
	return k->compiled ? "compiled" : "not compiled";
}
