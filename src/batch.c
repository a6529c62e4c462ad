#include "batch.h"
#include "buf.h"
#include "errors.h"
#include "fsutil.h"
#include "hash.h"
#include "jsonutil.h"
#include "mem.h"
#include "outdir.h"
#include "pipeline.h"
#include "scoreopts.h"
#include "shard.h"
#include "slurm.h"
#include "submission.h"
#include "upload.h"

#include <curl/curl.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif

#define MANIFEST_SCHEMA "kscore.batch/1"
#define TEAM_SCHEMA "kscore.batch-team/1"
#define MAX_MANIFEST_BYTES (16u << 20)
#define MAX_RECORD_BYTES (1024u << 20)
#define MAX_NAME_BYTES 128
#define MAX_FOLDER_BYTES 64
#define MAX_LATER 100

enum {
	EXIT_OK = 0,
	EXIT_SOME = 1,
	EXIT_NO_GPU = 3,
	EXIT_USAGE = 64,
	EXIT_DATAERR = 65,
	EXIT_UNAVAILABLE = 69,
	EXIT_CANTCREAT = 73,
	EXIT_IOERR = 74,
	EXIT_CONFIG = 78
};

/* ---- times and names ---- */

static int digits(const char *s, int n, int *out)
{
	int i, v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int ks_batch_parse_time(int64_t *out, const char *text)
{
	struct tm tm, back;
	int y, mo, d, h, mi, s, oh = 0, om = 0, sign = 0;
	const char *p = text;
	time_t t;

	if (!text || strlen(text) < 20 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) ||
	    p[7] != '-' || digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != 't' && p[10] != ' ') ||
	    digits(p + 11, 2, &h) || p[13] != ':' || digits(p + 14, 2, &mi) || p[16] != ':' ||
	    digits(p + 17, 2, &s))
		goto bad;
	p += 19;
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		sign = 0;
	} else if ((*p == '+' || *p == '-') && ((strlen(p) == 6 && p[3] == ':' && !digits(p + 1, 2, &oh) &&
						 !digits(p + 4, 2, &om)) ||
						(strlen(p) == 5 && !digits(p + 1, 2, &oh) &&
						 !digits(p + 3, 2, &om)))) {
		sign = *p == '+' ? 1 : -1;
		if (oh > 23 || om > 59)
			goto bad;
	} else {
		goto bad;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	t = timegm(&tm);
	/* timegm normalises 2025-02-30 into March: a date that does not survive the trip is wrong */
	gmtime_r(&t, &back);
	if (mo < 1 || mo > 12 || back.tm_year != y - 1900 || back.tm_mon != mo - 1 || back.tm_mday != d ||
	    back.tm_hour != h || back.tm_min != mi || back.tm_sec != s)
		goto bad;
	*out = (int64_t)t - sign * (int64_t)(oh * 3600 + om * 60);
	return 0;
bad:
	return ks_error_set(KS_EINVALID, "\"%s\" is not a time like 2025-08-24T23:59:59Z (UTC) or "
			    "2025-08-24T16:59:59-07:00", text ? text : "");
}

void ks_batch_format_time(char out[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)t);
}

char *ks_batch_folder_name(const char *name)
{
	size_t n = 0, i;
	char *f = ks_malloc(MAX_FOLDER_BYTES + 6), *out;
	for (i = 0; name[i] && n < MAX_FOLDER_BYTES; i++) {
		unsigned char c = (unsigned char)name[i];
		char o = (isalnum(c) && c < 0x80) || c == '-' || c == '_' ? (char)c : '_';
		if (o == '_' && (n == 0 || f[n - 1] == '_'))
			continue; /* no leading '_', no runs */
		if (o == '-' && n == 0)
			continue; /* a leading '-' reads as an option */
		f[n++] = o;
	}
	while (n && f[n - 1] == '_')
		n--;
	f[n] = '\0';
	if (!n)
		strcpy(f, "team");
	if (!strncasecmp(f, "leaderboard", 11)) {
		out = ks_asprintf("team-%s", f);
		ks_free(f);
		return out;
	}
	return f;
}

/* A name for people: control characters become spaces, runs of spaces one, trimmed, at most
 * MAX_NAME_BYTES without cutting a UTF-8 sequence. */
static char *clean_name(const char *s)
{
	size_t n = 0, i;
	char *o = ks_malloc(strlen(s) + 1);
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char x = c < 0x20 || c == 0x7f ? ' ' : (char)c;
		if (x == ' ' && (n == 0 || o[n - 1] == ' '))
			continue;
		o[n++] = x;
	}
	while (n && o[n - 1] == ' ')
		n--;
	if (n > MAX_NAME_BYTES) {
		n = MAX_NAME_BYTES;
		while (n && ((unsigned char)o[n] & 0xC0) == 0x80)
			n--;
		while (n && o[n - 1] == ' ')
			n--;
	}
	o[n] = '\0';
	return o;
}

/* ---- the manifest ---- */

ks_batch_manifest *ks_batch_manifest_new(void)
{
	ks_batch_manifest *m = ks_calloc(1, sizeof(*m));
	m->deadline = KS_BATCH_NO_DEADLINE;
	return m;
}

static void team_clear(ks_batch_team *t)
{
	ks_free(t->name);
	ks_free(t->folder);
	ks_free(t->repo);
	ks_free(t->ref);
	ks_free(t->submission);
	ks_free(t->head_subject);
	memset(t, 0, sizeof(*t));
}

void ks_batch_manifest_free(ks_batch_manifest *m)
{
	size_t i;
	if (!m)
		return;
	for (i = 0; i < m->nteams; i++)
		team_clear(&m->teams[i]);
	ks_free(m->teams);
	ks_free(m->submission);
	ks_free(m->pull_repo);
	ks_free_strv(m->map_numbers, m->nmap_numbers);
	ks_free_strv(m->map_number_names, m->nmap_numbers);
	ks_free_strv(m->map_subjects, m->nmap_subjects);
	ks_free_strv(m->map_subject_names, m->nmap_subjects);
	ks_free(m->exclude);
	ks_free(m);
}

/* Unknown keys are errors, so that a typo ("deadine") is not silently ignored. */
static int check_keys(const cJSON *o, const char *const *known, const char *where)
{
	const cJSON *k;
	size_t i;
	cJSON_ArrayForEach(k, o) {
		int ok = k->string[0] == '_';
		for (i = 0; !ok && known[i]; i++)
			ok = !strcmp(k->string, known[i]);
		if (!ok)
			return ks_error_set(KS_EINVALID, "%s: unknown key \"%s\"", where, k->string);
	}
	return 0;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s), i;
	if (!n || n > MAX_NAME_BYTES || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static char *repo_location(const char *given, const char *dir)
{
	if (ks_repo_is_url(given) || given[0] == '/' || !dir || !*dir || !strcmp(dir, "."))
		return ks_strdup(given);
	return ks_path_join(dir, given);
}

static int parse_team(ks_batch_team *t, const cJSON *o, size_t i, const char *name, const char *dir)
{
	static const char *const keys[] = { "name", "repo", "ref", "submission", NULL };
	const char *s = NULL, *repo = NULL, *ref = "HEAD", *sub = NULL;
	char where[256];
	int rc;

	snprintf(where, sizeof(where), "%s: teams[%zu]", name, i);
	if (!cJSON_IsObject(o))
		return ks_error_set(KS_EINVALID, "%s: not an object", where);
	if ((rc = ks_json_str(&s, o, "name", 1)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (!valid_name(s))
		return ks_error_set(KS_EINVALID, "%s: name \"%.140s\" must be 1 to %d printable bytes "
				    "without leading or trailing spaces", where, s, MAX_NAME_BYTES);
	snprintf(where, sizeof(where), "%s: team \"%s\"", name, s);
	if ((rc = check_keys(o, keys, where)) < 0)
		return rc;
	if ((rc = ks_json_str(&repo, o, "repo", 1)) < 0 || (rc = ks_json_str(&ref, o, "ref", 0)) < 0 ||
	    (rc = ks_json_str(&sub, o, "submission", 0)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (!*repo)
		return ks_error_set(KS_EINVALID, "%s: \"repo\" is empty", where);
	if (!*ref)
		return ks_error_set(KS_EINVALID, "%s: \"ref\" is empty", where);
	if (sub && (rc = ks_repo_pattern_check(sub)) < 0)
		return ks_error_wrap(rc, "%s", where);
	t->name = ks_strdup(s);
	t->folder = ks_batch_folder_name(s);
	t->repo = repo_location(repo, dir);
	t->ref = ks_strdup(ref);
	t->submission = sub ? ks_strdup(sub) : NULL;
	return 0;
}

static int parse_pulls(ks_batch_manifest *m, const cJSON *o, const char *name, const char *dir)
{
	static const char *const keys[] = { "repo", "teams_by_number", "teams_by_subject", "exclude", NULL };
	const cJSON *map, *e;
	const char *repo = NULL;
	char where[256];
	size_t n;
	int rc;

	snprintf(where, sizeof(where), "%s: pull_requests", name);
	if (!cJSON_IsObject(o))
		return ks_error_set(KS_EINVALID, "%s: not an object", where);
	if ((rc = check_keys(o, keys, where)) < 0)
		return rc;
	if ((rc = ks_json_str(&repo, o, "repo", 0)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (repo)
		m->pull_repo = repo_location(repo, dir);
	map = cJSON_GetObjectItemCaseSensitive(o, "teams_by_number");
	if (map && !cJSON_IsNull(map)) {
		if (!cJSON_IsObject(map))
			return ks_error_set(KS_EINVALID, "%s: teams_by_number must map numbers to names", where);
		n = (size_t)cJSON_GetArraySize(map);
		m->map_numbers = ks_calloc(n + 1, sizeof(char *));
		m->map_number_names = ks_calloc(n + 1, sizeof(char *));
		cJSON_ArrayForEach(e, map) {
			char *end;
			unsigned long v = strtoul(e->string, &end, 10);
			if (!*e->string || *end || !isdigit((unsigned char)e->string[0]) || !v ||
			    !cJSON_IsString(e) || !valid_name(e->valuestring))
				return ks_error_set(KS_EINVALID, "%s: teams_by_number: \"%s\" must be a pull "
						    "request number mapped to a team name", where, e->string);
			m->map_numbers[m->nmap_numbers] = ks_asprintf("%lu", v);
			m->map_number_names[m->nmap_numbers++] = ks_strdup(e->valuestring);
		}
	}
	map = cJSON_GetObjectItemCaseSensitive(o, "teams_by_subject");
	if (map && !cJSON_IsNull(map)) {
		if (!cJSON_IsObject(map))
			return ks_error_set(KS_EINVALID, "%s: teams_by_subject must map subjects to names", where);
		n = (size_t)cJSON_GetArraySize(map);
		m->map_subjects = ks_calloc(n + 1, sizeof(char *));
		m->map_subject_names = ks_calloc(n + 1, sizeof(char *));
		cJSON_ArrayForEach(e, map) {
			if (!cJSON_IsString(e) || !valid_name(e->valuestring))
				return ks_error_set(KS_EINVALID, "%s: teams_by_subject: \"%s\" must map to a "
						    "team name", where, e->string);
			m->map_subjects[m->nmap_subjects] = ks_strdup(e->string);
			m->map_subject_names[m->nmap_subjects++] = ks_strdup(e->valuestring);
		}
	}
	map = cJSON_GetObjectItemCaseSensitive(o, "exclude");
	if (map && !cJSON_IsNull(map)) {
		if (!cJSON_IsArray(map))
			return ks_error_set(KS_EINVALID, "%s: exclude must be an array of numbers", where);
		m->exclude = ks_calloc((size_t)cJSON_GetArraySize(map) + 1, sizeof(*m->exclude));
		cJSON_ArrayForEach(e, map) {
			if (!cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 1e15 ||
			    e->valuedouble != floor(e->valuedouble))
				return ks_error_set(KS_EINVALID, "%s: exclude must be an array of pull "
						    "request numbers", where);
			m->exclude[m->nexclude++] = (unsigned long)e->valuedouble;
		}
	}
	return 0;
}

int ks_batch_manifest_parse(ks_batch_manifest **out, const char *text, size_t len, const char *name,
			    const char *dir)
{
	static const char *const keys[] = { "schema", "deadline", "submission", "teams", "pull_requests",
					    NULL };
	ks_batch_manifest *m = ks_batch_manifest_new();
	const cJSON *teams, *pulls, *e;
	const char *schema = NULL, *deadline = NULL, *sub = NULL;
	cJSON *root = NULL;
	size_t i, j;
	int rc;

	*out = NULL;
	if ((rc = ks_json_parse(&root, text, len, 16, name)) < 0)
		goto done;
	if (!cJSON_IsObject(root)) {
		rc = ks_error_set(KS_EINVALID, "%s: a manifest is a JSON object", name);
		goto done;
	}
	if ((rc = check_keys(root, keys, name)) < 0)
		goto done;
	if ((rc = ks_json_str(&schema, root, "schema", 1)) < 0 || (rc = ks_json_str(&deadline, root, "deadline", 0)) < 0 ||
	    (rc = ks_json_str(&sub, root, "submission", 0)) < 0) {
		ks_error_wrap(rc, "%s", name);
		goto done;
	}
	if (strcmp(schema, MANIFEST_SCHEMA)) {
		rc = ks_error_set(KS_EINVALID, "%s: schema is \"%s\", expected \"%s\"", name, schema,
				  MANIFEST_SCHEMA);
		goto done;
	}
	if (deadline && (rc = ks_batch_parse_time(&m->deadline, deadline)) < 0) {
		ks_error_wrap(rc, "%s: deadline", name);
		goto done;
	}
	if (sub) {
		if ((rc = ks_repo_pattern_check(sub)) < 0) {
			ks_error_wrap(rc, "%s: submission", name);
			goto done;
		}
		m->submission = ks_strdup(sub);
	}
	teams = cJSON_GetObjectItemCaseSensitive(root, "teams");
	pulls = cJSON_GetObjectItemCaseSensitive(root, "pull_requests");
	if (teams && pulls) {
		rc = ks_error_set(KS_EINVALID, "%s: a manifest has \"teams\" or \"pull_requests\", not both",
				  name);
		goto done;
	}
	if (pulls && (rc = parse_pulls(m, pulls, name, dir)) < 0)
		goto done;
	if (teams) {
		if (!cJSON_IsArray(teams)) {
			rc = ks_error_set(KS_EINVALID, "%s: teams must be an array", name);
			goto done;
		}
		m->teams = ks_calloc((size_t)cJSON_GetArraySize(teams) + 1, sizeof(*m->teams));
		i = 0;
		cJSON_ArrayForEach(e, teams) {
			if ((rc = parse_team(&m->teams[i], e, i, name, dir)) < 0)
				goto done;
			m->nteams = ++i;
		}
		for (i = 0; i < m->nteams; i++) {
			if (!m->teams[i].submission && !m->submission) {
				rc = ks_error_set(KS_EINVALID, "%s: team \"%s\" has no \"submission\" and the "
						  "manifest gives no default", name, m->teams[i].name);
				goto done;
			}
			for (j = 0; j < i; j++)
				if (!strcasecmp(m->teams[i].folder, m->teams[j].folder)) {
					rc = ks_error_set(KS_EINVALID, "%s: teams \"%s\" and \"%s\" would share "
							  "the result folder \"%s\": rename one", name,
							  m->teams[j].name, m->teams[i].name, m->teams[i].folder);
					goto done;
				}
		}
	}
	*out = m;
	m = NULL;
done:
	cJSON_Delete(root);
	ks_batch_manifest_free(m);
	return rc;
}

int ks_batch_manifest_load(ks_batch_manifest **out, const char *path)
{
	char *text = NULL, *dir;
	size_t n;
	int rc;
	*out = NULL;
	if ((rc = ks_fs_read(&text, &n, path, MAX_MANIFEST_BYTES)) < 0)
		return rc;
	dir = ks_path_dirname(path);
	rc = ks_batch_manifest_parse(out, text, n, path, dir);
	ks_free(dir);
	ks_free(text);
	return rc;
}

static const char *map_lookup(char **keys, char **vals, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return vals[i];
	return NULL;
}

void ks_batch_add_pull_teams(ks_batch_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn)
{
	size_t i, j, k;
	m->teams = ks_realloc(m->teams, (m->nteams + n + 1) * sizeof(*m->teams));
	for (i = 0; i < n; i++) {
		ks_batch_team *t = &m->teams[m->nteams];
		char num[32], *subject = clean_name(prs[i].subject);
		const char *name;
		int excluded = 0;
		for (k = 0; k < m->nexclude; k++)
			excluded |= m->exclude[k] == prs[i].number;
		if (excluded) {
			ks_free(subject);
			continue;
		}
		snprintf(num, sizeof(num), "%lu", prs[i].number);
		memset(t, 0, sizeof(*t));
		name = map_lookup(m->map_numbers, m->map_number_names, m->nmap_numbers, num);
		if (!name)
			name = map_lookup(m->map_subjects, m->map_subject_names, m->nmap_subjects, subject);
		t->name = name ? ks_strdup(name) : *subject ? ks_strdup(subject) : ks_asprintf("pr-%s", num);
		t->folder = ks_batch_folder_name(t->name);
		for (j = 0; j < m->nteams; j++)
			if (!strcasecmp(m->teams[j].folder, t->folder))
				break;
		if (j < m->nteams) {
			char *name2 = ks_asprintf("%s #%s", t->name, num);
			char *folder2 = ks_asprintf("%s-pr%s", t->folder, num);
			if (warn)
				fprintf(warn, "score batch: warning: pull requests #%lu and #%s both name team "
					"\"%s\"; #%s is scored as \"%s\" (map them in the manifest's "
					"pull_requests.teams_by_number)\n", m->teams[j].pull, num, t->name,
					num, name2);
			ks_free(t->name);
			ks_free(t->folder);
			t->name = name2;
			t->folder = folder2;
		}
		t->repo = ks_strdup(m->pull_repo);
		t->ref = ks_asprintf("refs/pull/%s/head", num);
		t->pull = prs[i].number;
		t->head_subject = subject;
		m->nteams++;
	}
}

/* ---- leaderboard ---- */

void ks_batch_row_clear(ks_batch_row *r)
{
	ks_free(r->team);
	ks_free(r->folder);
	ks_free(r->status);
	ks_free(r->reason);
	ks_free(r->mode);
	ks_free(r->commit);
	memset(r, 0, sizeof(*r));
}

static double num_or_nan(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static char *str_or_null(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? ks_strdup(v->valuestring) : NULL;
}

static cJSON *read_json(const char *path, size_t max)
{
	char *text = NULL;
	size_t n;
	cJSON *v = NULL;
	if (ks_fs_read(&text, &n, path, max) == 0 && ks_json_parse(&v, text, n, 64, path) < 0)
		v = NULL;
	ks_free(text);
	ks_error_clear();
	return v;
}

void ks_batch_row_load(ks_batch_row *row, const char *out_dir, const ks_batch_team *t)
{
	char *dir = ks_path_join(out_dir, t->folder), *bp = ks_path_join(dir, "batch.json");
	char *sp = ks_path_join(dir, "score.json");
	cJSON *b = read_json(bp, MAX_RECORD_BYTES), *s = NULL;
	double v;

	memset(row, 0, sizeof(*row));
	row->team = ks_strdup(t->name);
	row->folder = ks_strdup(t->folder);
	row->score = row->exec_accuracy = row->call_accuracy = row->compile_accuracy = NAN;
	row->commit_time = KS_BATCH_NO_DEADLINE;
	if (!b) {
		row->status = ks_strdup("not_scored");
		goto done;
	}
	row->status = str_or_null(b, "status");
	if (!row->status)
		row->status = ks_strdup("incomplete");
	row->reason = str_or_null(b, "reason");
	row->commit = str_or_null(b, "commit");
	v = num_or_nan(b, "commit_time_epoch");
	if (!isnan(v))
		row->commit_time = (int64_t)v;
	if (strcmp(row->status, "scored"))
		goto done;
	s = read_json(sp, MAX_RECORD_BYTES);
	if (!s) {
		ks_free(row->status);
		row->status = ks_strdup("incomplete");
		goto done;
	}
	{
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(s, "summary");
		const cJSON *susp = cJSON_GetObjectItemCaseSensitive(s, "suspicious");
		row->mode = str_or_null(s, "mode");
		row->gpu = row->mode && !strcmp(row->mode, "gpu");
		row->has_result = 1;
		row->score = num_or_nan(sum, "score");
		row->exec_accuracy = num_or_nan(sum, "exec_accuracy");
		row->call_accuracy = num_or_nan(sum, "call_accuracy");
		row->compile_accuracy = num_or_nan(sum, "compile_accuracy");
		v = num_or_nan(sum, "kernels");
		row->kernels = isnan(v) ? 0 : (long)v;
		v = num_or_nan(sum, "suspicious");
		row->suspicious = !isnan(v) ? (long)v : cJSON_IsArray(susp) ? cJSON_GetArraySize(susp) : 0;
	}
done:
	cJSON_Delete(b);
	cJSON_Delete(s);
	ks_free(dir);
	ks_free(bp);
	ks_free(sp);
}

/* Higher first; an absent (NaN) value after every present one. */
static int cmp_desc(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a > b ? -1 : a < b;
}

static int group(const ks_batch_row *r)
{
	return !r->has_result ? 2 : r->gpu ? 0 : 1;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const ks_batch_row *a = pa, *b = pb;
	int c;
	if ((c = group(a) - group(b)))
		return c;
	if (group(a) == 0) {
		if ((c = cmp_desc(a->score, b->score)) || (c = cmp_desc(a->exec_accuracy, b->exec_accuracy)) ||
		    (c = cmp_desc(a->call_accuracy, b->call_accuracy)))
			return c;
	} else if (group(a) == 1) {
		if ((c = cmp_desc(a->compile_accuracy, b->compile_accuracy)))
			return c;
	}
	/* KS_BATCH_NO_DEADLINE is INT64_MIN: a missing commit time goes last, not first */
	if (a->commit_time != b->commit_time) {
		if (a->commit_time == KS_BATCH_NO_DEADLINE || b->commit_time == KS_BATCH_NO_DEADLINE)
			return a->commit_time == KS_BATCH_NO_DEADLINE ? 1 : -1;
		return a->commit_time < b->commit_time ? -1 : 1;
	}
	if ((c = strcmp(a->team, b->team)))
		return c;
	return strcmp(a->folder, b->folder);
}

void ks_batch_rank(ks_batch_row *rows, size_t n)
{
	size_t i;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	for (i = 0; i < n; i++)
		rows[i].rank = i + 1;
}

static const char ranking_rule[] =
	"GPU results, then compile-only results, then teams without a result; GPU results by "
	"summary.score (present before absent), then exec_accuracy, then call_accuracy, higher first; "
	"compile-only results by compile_accuracy, higher first; then the earlier commit_time; then "
	"team, then folder (bytewise). Ranks are 1..n with no ties.";

static void csv_field(ks_buf *b, const char *s)
{
	/* RFC 4180 quoting, and a leading quote mark on text a spreadsheet would run as a formula */
	int quote = s && (strpbrk(s, ",\"\r\n") != NULL);
	int formula = s && (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r');
	if (!s)
		return;
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
	if (formula)
		ks_buf_put_truncated(b, "'", 1);
	for (; *s; s++) {
		if (*s == '"')
			ks_buf_put_truncated(b, "\"", 1);
		ks_buf_put_truncated(b, s, 1);
	}
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
}

static void csv_num(ks_buf *b, double v, int integer)
{
	if (isnan(v))
		return;
	if (integer)
		ks_buf_printf(b, "%.0f", v);
	else
		ks_buf_printf(b, "%.6g", v);
}

int ks_batch_leaderboard_write(const char *out_dir, const ks_batch_row *rows, size_t n,
			       int64_t deadline)
{
	cJSON *o = cJSON_CreateObject(), *x, *arr;
	ks_buf csv = KS_BUF_INIT((size_t)1 << 30);
	char ts[32], *jp = ks_path_join(out_dir, "leaderboard.json"), *cp = ks_path_join(out_dir, "leaderboard.csv");
	size_t i;
	int rc;

	cJSON_AddStringToObject(o, "schema", "kscore.leaderboard/1");
	x = cJSON_AddObjectToObject(o, "scorer");
	cJSON_AddStringToObject(x, "name", "kscore");
	cJSON_AddStringToObject(x, "version", KS_VERSION);
	ks_batch_format_time(ts, (int64_t)time(NULL));
	cJSON_AddStringToObject(o, "generated", ts);
	if (deadline != KS_BATCH_NO_DEADLINE) {
		ks_batch_format_time(ts, deadline);
		cJSON_AddStringToObject(o, "deadline", ts);
	}
	cJSON_AddStringToObject(o, "ranking", ranking_rule);
	arr = cJSON_AddArrayToObject(o, "teams");
	ks_buf_puts(&csv, "rank,team,folder,status,mode,score,exec_accuracy,call_accuracy,compile_accuracy,"
		    "kernels,suspicious,commit,commit_time,reason\r\n");
	for (i = 0; i < n; i++) {
		const ks_batch_row *r = &rows[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddNumberToObject(t, "rank", (double)r->rank);
		cJSON_AddStringToObject(t, "team", r->team);
		cJSON_AddStringToObject(t, "folder", r->folder);
		cJSON_AddStringToObject(t, "status", r->status);
		if (r->reason)
			cJSON_AddStringToObject(t, "reason", r->reason);
		else
			cJSON_AddNullToObject(t, "reason");
		if (r->mode)
			cJSON_AddStringToObject(t, "mode", r->mode);
		else
			cJSON_AddNullToObject(t, "mode");
		ks_json_add_num(t, "score", r->score);
		ks_json_add_num(t, "exec_accuracy", r->exec_accuracy);
		ks_json_add_num(t, "call_accuracy", r->call_accuracy);
		ks_json_add_num(t, "compile_accuracy", r->compile_accuracy);
		if (r->has_result) {
			cJSON_AddNumberToObject(t, "kernels", (double)r->kernels);
			cJSON_AddNumberToObject(t, "suspicious", (double)r->suspicious);
		} else {
			cJSON_AddNullToObject(t, "kernels");
			cJSON_AddNullToObject(t, "suspicious");
		}
		if (r->commit)
			cJSON_AddStringToObject(t, "commit", r->commit);
		else
			cJSON_AddNullToObject(t, "commit");
		if (r->commit_time != KS_BATCH_NO_DEADLINE) {
			ks_batch_format_time(ts, r->commit_time);
			cJSON_AddStringToObject(t, "commit_time", ts);
		} else {
			ts[0] = '\0';
			cJSON_AddNullToObject(t, "commit_time");
		}
		cJSON_AddItemToArray(arr, t);

		ks_buf_printf(&csv, "%zu,", r->rank);
		csv_field(&csv, r->team);
		ks_buf_puts(&csv, ",");
		csv_field(&csv, r->folder);
		ks_buf_printf(&csv, ",%s,%s,", r->status, r->mode ? r->mode : "");
		csv_num(&csv, r->score, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->exec_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->call_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->compile_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->has_result ? (double)r->kernels : NAN, 1);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->has_result ? (double)r->suspicious : NAN, 1);
		ks_buf_printf(&csv, ",%s,%s,", r->commit ? r->commit : "", ts);
		csv_field(&csv, r->reason);
		ks_buf_puts(&csv, "\r\n");
	}
	rc = ks_json_write_file(jp, o, 1);
	if (rc == 0)
		rc = ks_fs_write_atomic(cp, csv.ptr ? csv.ptr : "", csv.len);
	cJSON_Delete(o);
	ks_buf_free(&csv);
	ks_free(jp);
	ks_free(cp);
	return rc;
}

/* ---- one batch run ---- */

typedef struct {
	char *location;
	ks_repo *repo;        /* NULL when it could not be opened */
	char *error;          /* why it cannot be used (open or fetch failed, nothing cached) */
	const char *reason;   /* the reason code that goes with error */
	char *warning;        /* the fetch failed but an earlier fetch is in the cache */
} repo_slot;

typedef struct {
	ks_scoreopts so;
	const char *out, *manifest_path, *pull_repo, *deadline_arg, *submission_arg, *only_team;
	const char *upload_config;
	int rescore, json, quiet, no_fetch, color_opt;
	/* a share of the teams (--shard), the leaderboard alone (--collect), or a Slurm job array */
	int sharded, collect, slurm, dry_run;
	ks_shard shard;
	unsigned nshards;
	const char **sbatch_opts;
	size_t nsbatch_opts;
	char **args;                      /* the command line as given, for the Slurm scripts */
	int nargs;
	char **own_args;                  /* the elements of args that are --slurm options */
	size_t nown_args;
	int *in_shard;                    /* per team: 1 when this run's shard holds it */
	int shard_lock_fd;

	ks_batch_manifest *m;
	ks_pipeline *pl;
	ks_upload_setup *up;
	char *cache, *compile_cache, *refs;
	char problems_sha[65];
	const char *mode;                 /* "gpu" or "compile-only" */
	repo_slot **slots;                /* each allocated on its own: outcomes point at them */
	size_t nslots;
	ks_batch_row *rows;               /* in manifest order */
	int tty, color, lock_fd;
	size_t ndone, ntodo, nscored, nskipped, nfailed;
	double scored_s;                  /* time spent on teams that were scored, for the ETA */
	size_t nscored_timed;
	cJSON *jteams;
} batch;

typedef struct {
	const char *status;               /* "scored", "already_scored", "failed" */
	const char *reason;               /* failed: a stable code */
	char *detail;
	repo_slot *slot;
	char tip[41];
	ks_repo_pick pick;
	char *file;
	char sha[65];
	char *previous;                   /* the commit this result replaced, if another */
	int previous_in_history;
	const char *upload;               /* upload status name, or NULL */
	int kept;                         /* failed this run, and the earlier result was kept */
} outcome;

static const char *col(const batch *b, const char *code)
{
	return b->color ? code : "";
}

static void progress(batch *b, const ks_batch_team *t, const char *stage)
{
	char eta[32] = "";
	double left;
	if (!b->tty)
		return;
	if (b->nscored_timed) {
		left = b->scored_s / (double)b->nscored_timed * (double)(b->ntodo - b->ndone);
		if (left >= 3600)
			snprintf(eta, sizeof(eta), ", ETA %dh%02dm", (int)(left / 3600), ((int)left % 3600) / 60);
		else
			snprintf(eta, sizeof(eta), ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s%s", b->ndone + 1, b->ntodo, t->name, stage, eta);
	fflush(stderr);
}

static void progress_clear(const batch *b)
{
	if (b->tty) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

static void outcome_clear(outcome *o)
{
	ks_free(o->detail);
	ks_free(o->file);
	ks_free(o->previous);
	ks_repo_pick_clear(&o->pick);
	memset(o, 0, sizeof(*o));
}

/* Records why a team cannot be scored; the sentence names the team, the ref and (through the
 * message of repos.h) the repository, commit and file. */
static void fail(outcome *o, const ks_batch_team *t, const char *reason, const char *detail)
{
	o->status = "failed";
	o->reason = reason;
	ks_free(o->detail);
	o->detail = ks_asprintf("team %s, ref %s: %s", t->name, t->ref, detail);
}

/* The repository of a location, opened and fetched once per run, however many teams use it. */
static repo_slot *get_repo(batch *b, const char *location)
{
	ks_repo_options ro = KS_REPO_OPTIONS_INIT;
	repo_slot *s;
	size_t i;
	for (i = 0; i < b->nslots; i++)
		if (!strcmp(b->slots[i]->location, location))
			return b->slots[i];
	b->slots = ks_realloc(b->slots, (b->nslots + 1) * sizeof(*b->slots));
	s = b->slots[b->nslots++] = ks_calloc(1, sizeof(*s));
	s->location = ks_strdup(location);
	ro.cache_dir = b->cache;
	if (ks_repo_open(&s->repo, location, &ro) < 0) {
		s->error = ks_strdup(ks_error_msg());
		s->reason = "cache_error";
		return s;
	}
	if (b->no_fetch) {
		if (!ks_repo_has_refs(s->repo)) {
			s->error = ks_asprintf("repository %s: not in the cache (%s) and --no-fetch was given",
					       ks_repo_display(s->repo), ks_repo_path(s->repo));
			s->reason = "unreachable";
		}
		return s;
	}
	if (ks_repo_fetch(s->repo) < 0) {
		char *why = ks_strdup(ks_error_msg());
		if (ks_repo_has_refs(s->repo)) {
			char ts[32];
			ks_batch_format_time(ts, (int64_t)ks_repo_fetched_at(s->repo));
			s->warning = ks_asprintf("%s; using the copy cached at %s", why, ts);
			ks_free(why);
		} else {
			s->error = why;
			s->reason = "unreachable";
		}
	}
	return s;
}

static char *team_dir(const batch *b, const ks_batch_team *t)
{
	return ks_path_join(b->out, t->folder);
}

/* The rule for a team's folder (outdir.h): kscore's to replace, never an input. in[] holds the
 * inputs and must outlive *oo. */
static void team_outdir(const batch *b, ks_outdir_options *oo, const char *in[4])
{
	in[0] = b->manifest_path;
	in[1] = b->refs;
	in[2] = b->so.config;
	in[3] = b->cache;
	oo->kind = KS_OUTDIR_RESULT;
	oo->inputs = in;
	oo->ninputs = 4;
}

static cJSON *commit_json(const ks_repo_commit *c, int later)
{
	cJSON *o = cJSON_CreateObject();
	char ts[32];
	ks_batch_format_time(ts, c->time);
	cJSON_AddStringToObject(o, "id", c->id);
	cJSON_AddStringToObject(o, "time", ts);
	cJSON_AddStringToObject(o, "subject", c->subject ? c->subject : "");
	if (later)
		cJSON_AddBoolToObject(o, "ancestor_of_scored", c->ancestor_of_chosen);
	return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *later_json(const outcome *o)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < o->pick.nlater; i++)
		cJSON_AddItemToArray(a, commit_json(&o->pick.later[i], 1));
	return a;
}

/* The team's batch.json: where its result came from, or why there is none. */
static cJSON *team_record(const batch *b, const ks_batch_team *t, const outcome *o)
{
	cJSON *r = cJSON_CreateObject(), *x;
	const char *spec = t->submission ? t->submission : b->m->submission;
	char ts[32], *display = o->slot && o->slot->repo ? ks_strdup(ks_repo_display(o->slot->repo)) :
				ks_repo_redact(t->repo);
	time_t fetched = o->slot && o->slot->repo ? ks_repo_fetched_at(o->slot->repo) : 0;

	cJSON_AddStringToObject(r, "schema", TEAM_SCHEMA);
	cJSON_AddStringToObject(r, "team", t->name);
	cJSON_AddStringToObject(r, "folder", t->folder);
	cJSON_AddStringToObject(r, "status", !strcmp(o->status, "failed") ? "failed" : "scored");
	add_str_or_null(r, "reason", o->reason);
	add_str_or_null(r, "detail", o->detail);
	if (t->pull) {
		cJSON_AddNumberToObject(r, "pull_request", (double)t->pull);
		add_str_or_null(r, "head_subject", t->head_subject);
	}
	cJSON_AddStringToObject(r, "repository", display);
	cJSON_AddStringToObject(r, "ref", t->ref);
	add_str_or_null(r, "ref_commit", o->tip[0] ? o->tip : NULL);
	ks_batch_format_time(ts, b->m->deadline);
	cJSON_AddStringToObject(r, "deadline", ts);
	if (fetched) {
		ks_batch_format_time(ts, (int64_t)fetched);
		cJSON_AddStringToObject(r, "fetched_at", ts);
	} else {
		cJSON_AddNullToObject(r, "fetched_at");
	}
	if (o->slot && o->slot->warning)
		cJSON_AddStringToObject(r, "fetch_warning", o->slot->warning);
	if (o->pick.found) {
		cJSON_AddStringToObject(r, "commit", o->pick.chosen.id);
		ks_batch_format_time(ts, o->pick.chosen.time);
		cJSON_AddStringToObject(r, "commit_time", ts);
		cJSON_AddNumberToObject(r, "commit_time_epoch", (double)o->pick.chosen.time);
		cJSON_AddStringToObject(r, "commit_subject", o->pick.chosen.subject);
	} else {
		cJSON_AddNullToObject(r, "commit");
		cJSON_AddNullToObject(r, "commit_time");
	}
	add_str_or_null(r, "submission", spec);
	add_str_or_null(r, "file", o->file);
	cJSON_AddItemToObject(r, "later_commits", later_json(o));
	cJSON_AddNumberToObject(r, "later_commits_total", (double)o->pick.later_total);
	if (o->previous) {
		cJSON_AddStringToObject(r, "previous_commit", o->previous);
		cJSON_AddBoolToObject(r, "previous_commit_in_history", o->previous_in_history);
	}
	x = cJSON_AddObjectToObject(r, "scorer");
	cJSON_AddStringToObject(x, "name", "kscore");
	cJSON_AddStringToObject(x, "version", KS_VERSION);
	cJSON_AddStringToObject(r, "mode", b->mode);
	cJSON_AddBoolToObject(r, "timing", !b->so.no_timing);
	add_str_or_null(r, "config", b->so.config);
	cJSON_AddStringToObject(r, "problems_sha256", b->problems_sha);
	add_str_or_null(r, "submission_sha256", o->sha[0] ? o->sha : NULL);
	ks_batch_format_time(ts, (int64_t)time(NULL));
	cJSON_AddStringToObject(r, "recorded_at", ts);
	ks_free(display);
	return r;
}

static int same_str(const cJSON *o, const char *key, const char *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return !x || cJSON_IsNull(x);
	return cJSON_IsString(x) && !strcmp(x->valuestring, v);
}

static int same_version(const cJSON *rec)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "scorer");
	return same_str(s, "version", KS_VERSION);
}

/* 1 when the later commits recorded in rec are those of o (so the record needs no update). */
static int same_later(const cJSON *rec, const outcome *o)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(rec, "later_commits"), *e;
	size_t i = 0;
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != o->pick.nlater)
		return 0;
	cJSON_ArrayForEach(e, a) {
		if (!same_str(e, "id", o->pick.later[i].id))
			return 0;
		i++;
	}
	return 1;
}

/* The team's existing record, when its result is complete: NULL otherwise. */
static cJSON *existing_record(const batch *b, const ks_batch_team *t)
{
	char *dir = team_dir(b, t), *p = ks_path_join(dir, "batch.json");
	cJSON *rec = read_json(p, MAX_RECORD_BYTES);
	ks_free(p);
	ks_free(dir);
	return rec;
}

/* A result already there for the same commit, submission bytes, scorer version, mode, timing
 * settings and problems, with a score.json of the same submission (the result folder is renamed into place
 * whole, so a score.json means a complete folder). */
static int already_scored(const batch *b, const ks_batch_team *t, const cJSON *rec, const outcome *o)
{
	char *dir, *sp;
	cJSON *s;
	int ok;
	if (!rec || !same_str(rec, "status", "scored") || !same_str(rec, "commit", o->pick.chosen.id) ||
	    !same_str(rec, "submission_sha256", o->sha) || !same_str(rec, "file", o->file) ||
	    !same_version(rec) || !same_str(rec, "mode", b->mode) ||
	    !same_str(rec, "problems_sha256", b->problems_sha) ||
	    !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(rec, "timing")) ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timing")) != !b->so.no_timing ||
	    !same_str(rec, "config", b->so.config))
		return 0;
	dir = team_dir(b, t);
	sp = ks_path_join(dir, "score.json");
	s = read_json(sp, MAX_RECORD_BYTES);
	ok = s && same_str(cJSON_GetObjectItemCaseSensitive(s, "submission"), "sha256", o->sha);
	cJSON_Delete(s);
	ks_free(sp);
	ks_free(dir);
	return ok;
}

static int write_record(const batch *b, const ks_batch_team *t, const cJSON *rec)
{
	char *dir = team_dir(b, t), *p = ks_path_join(dir, "batch.json");
	int rc = ks_json_write_file(p, rec, 1);
	if (rc < 0)
		ks_error_wrap(rc, "team %s: cannot write its record", t->name);
	ks_free(p);
	ks_free(dir);
	return rc;
}

/* 1 when a failure is the run's, not the team's (nothing could be fetched or read), and the team
 * has a scored result already: that result is kept as it is. */
static int kept_despite(const outcome *o, const cJSON *old)
{
	return old && same_str(old, "status", "scored") &&
	       (!strcmp(o->reason, "unreachable") || !strcmp(o->reason, "cache_error") ||
		!strcmp(o->reason, "history_error"));
}

/* A failure replaces whatever result the team had: the folder then holds batch.json only. An
 * unchanged failure (same commit, reason and message) leaves the folder as it is. */
static int record_failure(const batch *b, const ks_batch_team *t, const outcome *o, const cJSON *old)
{
	char *dir;
	cJSON *rec;
	int rc;
	if (old && same_str(old, "status", "failed") && same_str(old, "reason", o->reason) &&
	    same_str(old, "detail", o->detail) && same_version(old) &&
	    same_str(old, "commit", o->pick.found ? o->pick.chosen.id : NULL) && same_later(old, o))
		return 0;
	dir = team_dir(b, t);
	{
		ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
		const char *in[4];
		char *tmp = NULL;
		team_outdir(b, &oo, in);
		if ((rc = ks_outdir_begin(&tmp, dir, &oo)) < 0 || (rc = ks_outdir_commit(tmp, dir, &oo)) < 0) {
			ks_outdir_abort(tmp);
			ks_free(tmp);
			ks_error_wrap(rc, "team %s: cannot write its results folder", t->name);
			ks_free(dir);
			return rc;
		}
		ks_free(tmp);
	}
	ks_free(dir);
	rec = team_record(b, t, o);
	rc = write_record(b, t, rec);
	cJSON_Delete(rec);
	return rc;
}

static void upload_one(batch *b, const ks_batch_team *t, outcome *o)
{
	ks_upload_report ur;
	char *dir;
	if (!b->up)
		return;
	if (!ks_pipeline_has_gpu(b->pl)) {
		o->upload = "skipped";
		return;
	}
	dir = team_dir(b, t);
	ks_upload_result_dir(&ur, dir, ks_upload_setup_options(b->up));
	o->upload = ks_upload_status_name(ur.status);
	progress_clear(b);
	fprintf(stderr, "score batch: %s: upload: %s: %s\n", t->name, o->upload, ur.message);
	ks_upload_report_clear(&ur);
	ks_free(dir);
}

/* Fetch, choose the commit, read and parse the submission: everything before scoring. Leaves
 * o->status NULL, with *pass parsed and o->sha its fingerprint, when the team can be scored;
 * sets o->status to "failed" with the reason otherwise. Nothing here stops the batch. */
static void prepare(batch *b, const ks_batch_team *t, outcome *o, ks_pass *pass)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	const char *spec = t->submission ? t->submission : b->m->submission;
	char *data = NULL;
	size_t len = 0;
	ks_sha256 *h;
	int rc;

	progress(b, t, "fetching");
	o->slot = get_repo(b, t->repo);
	if (o->slot->error) {
		fail(o, t, o->slot->reason, o->slot->error);
		return;
	}
	if ((rc = ks_repo_resolve(o->tip, o->slot->repo, t->ref)) < 0) {
		fail(o, t, "bad_ref", ks_error_msg());
		return;
	}
	if ((rc = ks_repo_pick_commit(&o->pick, o->slot->repo, o->tip, b->m->deadline, MAX_LATER)) < 0) {
		fail(o, t, "history_error", ks_error_msg());
		return;
	}
	if (!o->pick.found) {
		char ts[32], *msg;
		ks_batch_format_time(ts, b->m->deadline);
		msg = ks_asprintf("repository %s: ref %s has no commit at or before the deadline %s "
				  "(%zu later commits)", ks_repo_display(o->slot->repo), t->ref, ts,
				  o->pick.later_total);
		fail(o, t, "no_commit_before_deadline", msg);
		ks_free(msg);
		return;
	}
	rc = ks_repo_read_file(&data, &len, &o->file, o->slot->repo, o->pick.chosen.id, spec,
			       lim.max_file_bytes);
	if (rc < 0) {
		fail(o, t, rc == KS_ENOTFOUND ? "missing_file" : rc == KS_ELIMIT ? "file_too_large" :
		     "unusable_file", ks_error_msg());
		return;
	}
	ks_pass_parse(pass, o->file, data, len, &lim);
	ks_free(data);
	h = ks_sha256_new();
	ks_sha256_update_str(h, pass->sha256);
	ks_sha256_final(h, o->sha);
	if (pass->error || pass->nentries == 0) {
		char *msg = pass->error ? ks_strdup(pass->error) :
			    ks_asprintf("%s: holds no entries", o->file);
		char *full = ks_asprintf("repository %s: commit %.12s: %s", ks_repo_display(o->slot->repo),
					 o->pick.chosen.id, msg);
		fail(o, t, "malformed_file", full);
		ks_free(full);
		ks_free(msg);
	}
}

/* The commit a result replaces, and whether the tip's history still contains it: a force-push
 * that dropped a scored commit is worth an organizer's look. */
static void note_previous(outcome *o, const cJSON *old)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(old, "commit");
	if (!cJSON_IsString(c) || !o->pick.found || !strcmp(c->valuestring, o->pick.chosen.id))
		return;
	o->previous = ks_strdup(c->valuestring);
	o->previous_in_history = ks_repo_contains(o->slot->repo, o->tip, o->previous) == 1;
	ks_error_clear();
}

static int process_team(batch *b, size_t idx)
{
	const ks_batch_team *t = &b->m->teams[idx];
	outcome o;
	ks_pass pass;
	ks_submission sub;
	ks_scored sc;
	cJSON *old = NULL, *rec, *jt;
	char *dir = NULL;
	struct timespec t0, t1;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	memset(&pass, 0, sizeof(pass));
	memset(&sub, 0, sizeof(sub));
	memset(&sc, 0, sizeof(sc));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	old = existing_record(b, t);
	prepare(b, t, &o, &pass);
	if (o.status && kept_despite(&o, old)) {
		/* the repository cannot be reached now, but what was scored from it stands: a
		 * network or cache problem of this run must not delete a team's result */
		o.kept = 1;
	} else if (o.status) {
		if ((rc = record_failure(b, t, &o, old)) < 0)
			goto done;
	} else if (!b->rescore && already_scored(b, t, old, &o)) {
		o.status = "already_scored";
		/* commits pushed after the deadline since the result was written are still recorded */
		if (!same_later(old, &o)) {
			char ts[32];
			ks_batch_format_time(ts, (int64_t)ks_repo_fetched_at(o.slot->repo));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "later_commits", later_json(&o));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "later_commits_total",
							      cJSON_CreateNumber((double)o.pick.later_total));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "fetched_at", cJSON_CreateString(ts));
			if ((rc = write_record(b, t, old)) < 0)
				goto done;
		}
		upload_one(b, t, &o);
	} else {
		progress(b, t, "scoring");
		note_previous(&o, old);
		sub.path = ks_asprintf("%s@%s:%s", ks_repo_display(o.slot->repo), o.pick.chosen.id, o.file);
		sub.passes = &pass;
		sub.npasses = 1;
		memcpy(sub.sha256, o.sha, sizeof(sub.sha256));
		dir = team_dir(b, t);
		if ((rc = ks_pipeline_score(b->pl, &sc, &sub, t->name, dir)) < 0) {
			ks_error_wrap(rc, "team %s", t->name);
			goto done;
		}
		progress(b, t, "writing");
		o.status = "scored";
		rec = team_record(b, t, &o);
		rc = write_record(b, t, rec);
		cJSON_Delete(rec);
		if (rc < 0)
			goto done;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		b->scored_s += (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		b->nscored_timed++;
		upload_one(b, t, &o);
	}

	progress_clear(b);
	if (!strcmp(o.status, "failed")) {
		b->nfailed++;
		fprintf(stderr, "score batch: [%zu/%zu] %s: %sfailed%s: %s: %s%s\n", b->ndone + 1, b->ntodo,
			t->name, col(b, "\033[31m"), col(b, "\033[0m"), o.reason, o.detail,
			o.kept ? " (its earlier result is kept)" : "");
	} else {
		char ts[32];
		ks_batch_format_time(ts, o.pick.chosen.time);
		if (!strcmp(o.status, "scored"))
			b->nscored++;
		else
			b->nskipped++;
		fprintf(stderr, "score batch: [%zu/%zu] %s: %s%s%s: commit %.12s (%s), %s", b->ndone + 1,
			b->ntodo, t->name, col(b, !strcmp(o.status, "scored") ? "\033[32m" : "\033[36m"),
			!strcmp(o.status, "scored") ? "scored" : "already scored", col(b, "\033[0m"),
			o.pick.chosen.id, ts, o.file);
		if (o.pick.later_total)
			fprintf(stderr, "; %zu later commit%s not scored", o.pick.later_total,
				o.pick.later_total == 1 ? "" : "s");
		if (o.slot && o.slot->warning)
			fprintf(stderr, "; warning: %s", o.slot->warning);
		fputc('\n', stderr);
	}
	jt = cJSON_CreateObject();
	cJSON_AddStringToObject(jt, "team", t->name);
	cJSON_AddStringToObject(jt, "folder", t->folder);
	cJSON_AddStringToObject(jt, "status", o.status);
	add_str_or_null(jt, "reason", o.reason);
	add_str_or_null(jt, "detail", o.detail);
	add_str_or_null(jt, "commit", o.pick.found ? o.pick.chosen.id : NULL);
	add_str_or_null(jt, "file", o.file);
	cJSON_AddNumberToObject(jt, "later_commits", (double)o.pick.later_total);
	if (o.slot && o.slot->warning)
		cJSON_AddStringToObject(jt, "fetch_warning", o.slot->warning);
	add_str_or_null(jt, "upload", o.upload);
	if (o.kept)
		cJSON_AddBoolToObject(jt, "earlier_result_kept", 1);
	cJSON_AddItemToArray(b->jteams, jt);

	/* the leaderboard follows every team, so a stopped batch leaves a current one */
	ks_batch_row_clear(&b->rows[idx]);
	ks_batch_row_load(&b->rows[idx], b->out, t);
done:
	cJSON_Delete(old);
	ks_scored_clear(&sc);
	ks_free(sub.path);
	ks_pass_clear(&pass);
	ks_free(dir);
	outcome_clear(&o);
	return rc;
}

static int write_leaderboard(batch *b)
{
	ks_batch_row *sorted = ks_calloc(b->m->nteams + 1, sizeof(*sorted));
	int rc;
	/* rank a shallow copy: b->rows stays in manifest order for updates */
	memcpy(sorted, b->rows, b->m->nteams * sizeof(*sorted));
	ks_batch_rank(sorted, b->m->nteams);
	rc = ks_batch_leaderboard_write(b->out, sorted, b->m->nteams, b->m->deadline);
	ks_free(sorted);
	if (rc < 0)
		ks_error_wrap(rc, "cannot write the leaderboard in %s", b->out);
	return rc;
}

/* A fingerprint of the reference problems (names and spec hashes): a result scored against other
 * problems is not "already scored". */
static void problems_fingerprint(char out[65], const ks_problem_set *ps)
{
	ks_sha256 *h = ks_sha256_new();
	size_t i;
	for (i = 0; i < ps->n; i++) {
		ks_sha256_update_str(h, ps->problems[i]->name);
		ks_sha256_update_str(h, ps->problems[i]->sha256);
	}
	ks_sha256_final(h, out);
}

/* Removes what a killed run left beside the team folders: "<folder>.tmp-<pid>" and
 * "<folder>.old-<pid>" (ks_report_write), "<file>.tmp.<pid>" (atomic writes). */
static void remove_leftovers(const batch *b)
{
	char **names = NULL;
	size_t n = 0, i;
	if (ks_fs_list(&names, &n, b->out, 1) < 0) {
		ks_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		const char *dot = strchr(names[i], '.');
		size_t k;
		int known = 0;
		if (!dot)
			continue;
		if (strncmp(dot, ".tmp-", 5) && strncmp(dot, ".old-", 5) &&
		    strncmp(dot, ".json.tmp.", 10) && strncmp(dot, ".csv.tmp.", 9))
			continue;
		/* a shard removes only its own teams' leftovers: the others may be in use */
		for (k = 0; !known && k < b->m->nteams; k++)
			known = strlen(b->m->teams[k].folder) == (size_t)(dot - names[i]) &&
				!strncmp(names[i], b->m->teams[k].folder, (size_t)(dot - names[i])) &&
				(!b->in_shard || b->in_shard[k]);
		known |= !b->sharded && !strncmp(names[i], "leaderboard.", 12);
		if (known) {
			char *p = ks_path_join(b->out, names[i]);
			ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
			/* a leftover folder is removed only when it is provably kscore's */
			if (!ks_fs_is_dir(p) || ks_outdir_check(p, &oo) == 0)
				ks_fs_rm_rf(p);
			ks_error_clear();
			ks_free(p);
		}
	}
	ks_free_strv(names, n);
}

static void usage(FILE *f)
{
	fputs("Usage: score batch [OPTIONS] MANIFEST\n"
	      "       score batch [OPTIONS] --pull-requests REPO --deadline TIME --submission PATH [MANIFEST]\n"
	      "Score every team of a hackathon from its git repository: fetch it into a cache, take the\n"
	      "newest commit at or before the deadline, read the submission from that commit (no\n"
	      "checkout), score it into OUT/<team>/ and rank the teams in OUT/leaderboard.json and .csv.\n"
	      "A batch that stops resumes where it stopped; teams already scored are skipped.\n"
	      "The manifest format is in docs/batch.md.\n"
	      "\n"
	      "Batch options:\n"
	      "  -o, --out DIR             results folder (default: results)\n"
	      "      --pull-requests REPO  score every refs/pull/N/head of REPO, one team each, named by\n"
	      "                            its head commit's subject (unless the manifest maps it)\n"
	      "      --deadline TIME       UTC deadline, e.g. 2025-08-24T23:59:59Z (overrides the manifest)\n"
	      "      --submission PATH     path or pattern of the submission in each repository\n"
	      "                            (overrides the manifest's default; \"<N>\" picks the highest N)\n"
	      "      --team NAME           only this team (by name or folder); the leaderboard keeps all\n"
	      "      --rescore             score every team again, even those already scored\n"
	      "      --no-fetch            use the cached repositories as they are (a frozen batch)\n"
	      "      --json                print a JSON summary on stdout instead of the table\n"
	      "  -q, --quiet               no progress and no table\n"
	      "      --shard I/N           score only share I (0..N-1) of the teams; no leaderboard\n"
	      "      --collect             score nothing: build the leaderboard from the team folders\n"
	      "                            present (teams without one are listed as failed)\n"
	      "      --slurm               fetch here, then submit a Slurm job array of shards and a\n"
	      "                            collect job that runs after it (afterany)\n"
	      "      --shards N            the array's size (default: one per team, at most 16)\n"
	      "      --slurm-option OPT    an sbatch option for both jobs: partition, account, time\n"
	      "                            limit (repeatable)\n"
	      "      --dry-run             with --slurm: print the job scripts, submit nothing\n"
	      "      --color[=WHEN]        never, always or auto (default; honours NO_COLOR)\n"
	      "  -h, --help                show this help and exit\n"
	      "\n"
	      "Scoring and upload options (as for score):\n", f);
	ks_scoreopts_usage(f);
	fputs("\n"
	      "Repositories are cached in CACHE/repos/ (CACHE: --cache-dir, else $XDG_CACHE_HOME/kscore).\n"
	      "\n"
	      "Exit status:\n"
	      "   0  every team scored (or already scored)   1  some teams could not be scored (recorded)\n"
	      "   3  no GPU: compile-only results            64  usage error\n"
	      "  65  the manifest is invalid                  69  --require-gpu and no usable GPU\n"
	      "  73  OUT or a team folder exists and is not kscore's, or is, holds or lies inside an\n"
	      "      input: refused, nothing written\n"
	      "  74  results or cache not writable            78  the upload configuration is unusable\n"
	      "  With --slurm: 69 when sbatch is missing or refuses a job.\n", f);
}

static void upload_log(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "score batch: upload: %s\n", line);
}

static void print_table(const batch *b)
{
	ks_batch_row *sorted = ks_calloc(b->m->nteams + 1, sizeof(*sorted));
	size_t i;
	memcpy(sorted, b->rows, b->m->nteams * sizeof(*sorted));
	ks_batch_rank(sorted, b->m->nteams);
	printf("%-5s %-28s %-12s %-24s %s\n", "rank", "team", "status", "result", "commit");
	for (i = 0; i < b->m->nteams; i++) {
		const ks_batch_row *r = &sorted[i];
		char res[64] = "";
		if (r->has_result && r->gpu && !isnan(r->score))
			snprintf(res, sizeof(res), "score %.4g", r->score);
		else if (r->has_result && r->gpu)
			snprintf(res, sizeof(res), "exec %.3g call %.3g", isnan(r->exec_accuracy) ? 0 :
				 r->exec_accuracy, isnan(r->call_accuracy) ? 0 : r->call_accuracy);
		else if (r->has_result)
			snprintf(res, sizeof(res), "compile %.3g", isnan(r->compile_accuracy) ? 0 :
				 r->compile_accuracy);
		else if (r->reason)
			snprintf(res, sizeof(res), "%s", r->reason);
		printf("%-5zu %-28.28s %-12s %-24s %.12s\n", r->rank, r->team, r->status, res,
		       r->commit ? r->commit : "-");
	}
	printf("leaderboard: %s/leaderboard.json, %s/leaderboard.csv\n", b->out, b->out);
	ks_free(sorted);
}

static int team_selected(const batch *b, const ks_batch_team *t)
{
	if (b->in_shard && !b->in_shard[t - b->m->teams])
		return 0;
	return !b->only_team || !strcmp(b->only_team, t->name) || !strcmp(b->only_team, t->folder);
}

static int check_only_team(const batch *b)
{
	size_t i;
	if (!b->only_team)
		return 0;
	for (i = 0; i < b->m->nteams; i++)
		if (team_selected(b, &b->m->teams[i]))
			return 0;
	fprintf(stderr, "score batch: no team named \"%s\"\n", b->only_team);
	return EXIT_USAGE;
}

static int load_teams(batch *b)
{
	int rc;
	if (b->manifest_path) {
		if ((rc = ks_batch_manifest_load(&b->m, b->manifest_path)) < 0) {
			fprintf(stderr, "score batch: error: manifest: %s\n", ks_error_msg());
			return EXIT_DATAERR;
		}
	} else {
		b->m = ks_batch_manifest_new();
	}
	if (b->deadline_arg && ks_batch_parse_time(&b->m->deadline, b->deadline_arg) < 0) {
		fprintf(stderr, "score batch: --deadline: %s\n", ks_error_msg());
		return EXIT_USAGE;
	}
	if (b->submission_arg) {
		if (ks_repo_pattern_check(b->submission_arg) < 0) {
			fprintf(stderr, "score batch: --submission: %s\n", ks_error_msg());
			return EXIT_USAGE;
		}
		ks_free(b->m->submission);
		b->m->submission = ks_strdup(b->submission_arg);
	}
	if (b->pull_repo) {
		if (b->m->nteams) {
			fprintf(stderr, "score batch: --pull-requests cannot be used with a manifest that "
				"lists teams\n");
			return EXIT_USAGE;
		}
		ks_free(b->m->pull_repo);
		b->m->pull_repo = ks_strdup(b->pull_repo);
	}
	if (b->m->deadline == KS_BATCH_NO_DEADLINE) {
		fprintf(stderr, "score batch: no deadline: set \"deadline\" in the manifest or use --deadline\n");
		return b->manifest_path ? EXIT_DATAERR : EXIT_USAGE;
	}
	if (b->m->pull_repo && !b->m->submission) {
		fprintf(stderr, "score batch: pull-request mode needs the submission's path: \"submission\" "
			"in the manifest or --submission\n");
		return b->manifest_path ? EXIT_DATAERR : EXIT_USAGE;
	}
	if (!b->m->pull_repo && !b->m->nteams) {
		fprintf(stderr, "score batch: the manifest lists no teams\n");
		return EXIT_DATAERR;
	}
	return 0;
}

/* Pull-request mode: fetch the repository and make one team per pull-request head. */
static int pull_teams(batch *b)
{
	repo_slot *s = get_repo(b, b->m->pull_repo);
	ks_repo_pull *prs = NULL;
	size_t n = 0;
	if (s->error) {
		fprintf(stderr, "score batch: error: %s\n", s->error);
		return EXIT_SOME;
	}
	if (s->warning)
		fprintf(stderr, "score batch: warning: %s\n", s->warning);
	if (ks_repo_pull_requests(&prs, &n, s->repo) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		return EXIT_SOME;
	}
	ks_batch_add_pull_teams(b->m, prs, n, stderr);
	ks_repo_pulls_free(prs, n);
	if (!b->m->nteams)
		fprintf(stderr, "score batch: warning: %s has no pull requests to score\n",
			ks_repo_display(s->repo));
	return 0;
}

/* The results folder must be absent, empty, or kscore's (outdir.h), before anything is made in it,
 * and then each team folder to be written must be kscore's too. */
static int check_out(const batch *b, int teams)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	char *refs = teams ? NULL : ks_scoreopts_find_refs(b->so.refs);
	const char *in[4] = { b->manifest_path, refs, b->so.config, NULL };
	size_t i;
	int rc = 0;

	oo.kind = KS_OUTDIR_BATCH;
	oo.inputs = in;
	oo.ninputs = 3;
	if (!teams)
		rc = ks_outdir_check(b->out, &oo);
	for (i = 0; teams && rc == 0 && i < b->m->nteams; i++) {
		char *dir = team_dir(b, &b->m->teams[i]);
		team_outdir(b, &oo, in);
		if (team_selected(b, &b->m->teams[i]))
			rc = ks_outdir_check(dir, &oo);
		ks_free(dir);
	}
	ks_free(refs);
	if (rc < 0)
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
	return rc == 0 ? 0 : rc == KS_EINVALID ? EXIT_CANTCREAT : EXIT_IOERR;
}

/* One process per shard: a second run of the same shard would score its teams twice at once. */
static int lock_shard(batch *b)
{
	char name[64], *lock;
	int fd;
	snprintf(name, sizeof(name), ".lock-shard-%u-of-%u", b->shard.index, b->shard.count);
	lock = ks_path_join(b->out, name);
	fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ks_free(lock);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "score batch: error: shard %u/%u of %s is already being scored\n",
			b->shard.index, b->shard.count, b->out);
		if (fd >= 0)
			close(fd);
		return EXIT_IOERR;
	}
	b->shard_lock_fd = fd;
	return 0;
}

static int setup(batch *b)
{
	ks_pipeline_options po;
	int rc;
	char *cache_root;

	if ((rc = check_out(b, 0)) != 0)
		return rc;
	cache_root = b->so.cache_dir ? ks_strdup(b->so.cache_dir) : ks_scoreopts_default_cache();
	if (!cache_root)
		cache_root = ks_path_join(b->out, ".cache");
	b->cache = cache_root;
	{
		char *repos = ks_path_join(b->cache, "repos");
		rc = ks_fs_mkdir_p(repos, 0755);
		ks_free(repos);
		if (rc < 0) {
			fprintf(stderr, "score batch: error: cannot use the cache %s: %s\n", b->cache,
				ks_error_msg());
			return EXIT_IOERR;
		}
	}
	if (!b->so.no_cache)
		b->compile_cache = ks_strdup(b->cache);
	if (ks_fs_mkdir_p(b->out, 0755) < 0) {
		fprintf(stderr, "score batch: error: cannot create %s: %s\n", b->out, ks_error_msg());
		return EXIT_IOERR;
	}
	{
		char *lock = ks_path_join(b->out, ".lock");
		b->lock_fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
		ks_free(lock);
		if (b->lock_fd < 0) {
			fprintf(stderr, "score batch: error: cannot write in %s: %s\n", b->out, strerror(errno));
			return EXIT_IOERR;
		}
		/* shards of one batch write disjoint team folders and share the lock; a whole batch or
		 * a collect excludes every other run */
		if (flock(b->lock_fd, (b->sharded ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0) {
			fprintf(stderr, "score batch: error: another score batch is writing %s%s\n", b->out,
				b->collect ? " (are shards still running?)" : "");
			return EXIT_IOERR;
		}
		if (ks_outdir_mark(b->out, KS_OUTDIR_BATCH) < 0) {
			fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
			return EXIT_IOERR;
		}
		if (b->sharded && (rc = lock_shard(b)) != 0)
			return rc;
	}
	if (b->collect || b->slurm)
		return 0;  /* neither scores: no GPU session, no upload */
	if (b->so.upload) {
		/* before any child process starts: this removes the token from the environment */
		curl_global_init(CURL_GLOBAL_ALL);
		b->so.up.log_fn = upload_log;
		if (ks_upload_setup_new(&b->up, &b->so.up, b->so.upload_config, KS_UPLOAD_NEED_ENDPOINT) < 0) {
			fprintf(stderr, "score batch: error: upload configuration: %s\n", ks_error_msg());
			return EXIT_CONFIG;
		}
	}
	b->refs = ks_scoreopts_find_refs(b->so.refs);
	if (!b->refs) {
		fprintf(stderr, "score batch: error: cannot load the reference problems: no reference_tests "
			"folder found (use --refs)\n");
		return EXIT_DATAERR;
	}
	ks_scoreopts_pipeline(&po, &b->so, b->refs, b->compile_cache);
	if ((rc = ks_pipeline_new(&b->pl, &po)) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		return rc == KS_EUNSUPPORTED ? EXIT_UNAVAILABLE : EXIT_DATAERR;
	}
	if (!b->so.compile_only && !ks_pipeline_has_gpu(b->pl))
		fprintf(stderr, "score batch: warning: no usable GPU (%s)\n"
			"score batch: warning: falling back to compile-only mode: kernels are compiled for %s "
			"but not run (exit status 3; --require-gpu makes this an error)\n",
			ks_pipeline_no_gpu_reason(b->pl), b->so.arch);
	b->mode = ks_pipeline_has_gpu(b->pl) ? "gpu" : "compile-only";
	problems_fingerprint(b->problems_sha, ks_pipeline_problems(b->pl));
	return 0;
}

/* The combinations of --shard, --collect and --slurm that make sense. */
static int check_modes(const batch *b)
{
	const char *bad = NULL;
	if (b->sharded + b->collect + b->slurm > 1)
		bad = "--shard, --collect and --slurm exclude each other";
	else if (b->dry_run && !b->slurm)
		bad = "--dry-run goes with --slurm";
	else if ((b->nshards || b->nsbatch_opts) && !b->slurm)
		bad = "--shards and --slurm-option go with --slurm";
	else if (b->slurm && b->only_team)
		bad = "--team cannot be used with --slurm";
	if (!bad)
		return 0;
	fprintf(stderr, "score batch: %s\nTry 'score batch --help' for more information.\n", bad);
	return EXIT_USAGE;
}

/* --collect: a team without a result is one whose shard did not finish; it is listed as failed. */
static void mark_unfinished(batch *b)
{
	size_t i;
	for (i = 0; i < b->m->nteams; i++) {
		ks_batch_row *r = &b->rows[i];
		if (r->status && strcmp(r->status, "not_scored"))
			continue;
		ks_free(r->status);
		ks_free(r->reason);
		r->status = ks_strdup("failed");
		r->reason = ks_strdup("not_scored");
		b->nfailed++;
	}
}

static int is_own_arg(const batch *b, const char *arg)
{
	size_t i;
	for (i = 0; i < b->nown_args; i++)
		if (b->own_args[i] == arg)
			return 1;
	return 0;
}

/* --slurm: fetch here (the login node), then hand the scoring to a job array and the leaderboard
 * to a job that runs after it. */
static int submit_slurm(batch *b)
{
	ks_slurm_options so = KS_SLURM_OPTIONS_INIT;
	ks_slurm_jobs jobs = { 0 };
	const char **args = ks_calloc((size_t)b->nargs + 1, sizeof(*args));
	char *exe = realpath("/proc/self/exe", NULL), *cwd = getcwd(NULL, 0);
	char *outabs = realpath(b->out, NULL), *dir = NULL, *ap = NULL, *cp = NULL;
	char *array = NULL, *collect = NULL;
	size_t i, nunreachable = 0;
	int rc = EXIT_OK;

	for (i = 0; i < b->m->nteams; i++) {
		repo_slot *s = get_repo(b, b->m->teams[i].repo);
		if (s->error && !b->quiet)
			fprintf(stderr, "score batch: warning: team %s: %s\n", b->m->teams[i].name, s->error);
		nunreachable += s->error != NULL;
	}
	if (!exe || !cwd || !outabs) {
		fprintf(stderr, "score batch: error: cannot resolve the paths for the Slurm scripts: %s\n",
			strerror(errno));
		rc = EXIT_IOERR;
		goto done;
	}
	for (i = 1; i < (size_t)b->nargs; i++)
		if (!is_own_arg(b, b->args[i]))
			args[so.nbatch_args++] = b->args[i];
	so.score_bin = exe;
	so.workdir = cwd;
	so.script_dir = dir = ks_path_join(outabs, "slurm");
	so.batch_args = args;
	so.sbatch_opts = b->sbatch_opts;
	so.nsbatch_opts = b->nsbatch_opts;
	so.shards = b->nshards ? b->nshards : (unsigned)(b->m->nteams < 16 ? b->m->nteams : 16);
	if (so.shards == 0)
		so.shards = 1;
	if (so.shards > b->m->nteams && b->m->nteams) {
		fprintf(stderr, "score batch: %u shards for %zu teams: using %zu\n", so.shards, b->m->nteams,
			b->m->nteams);
		so.shards = (unsigned)b->m->nteams;
	}
	so.gpus = ks_scoreopts_slurm_gpus(&b->so);
	if (ks_slurm_scripts(&array, &collect, &so) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		rc = EXIT_USAGE;
		goto done;
	}
	if (b->dry_run) {
		printf("%s\n%s", array, collect);
		fprintf(stderr, "score batch: --dry-run: the scripts above were not submitted (%u shards, "
			"%zu teams)\n", so.shards, b->m->nteams);
		goto done;
	}
	ap = ks_path_join(dir, "shards.sh");
	cp = ks_path_join(dir, "collect.sh");
	if (ks_fs_mkdir_p(dir, 0755) < 0 || ks_fs_write_atomic(ap, array, strlen(array)) < 0 ||
	    ks_fs_write_atomic(cp, collect, strlen(collect)) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		rc = EXIT_IOERR;
		goto done;
	}
	if (ks_slurm_submit(&jobs, ap, cp) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		if (jobs.array_id)
			fprintf(stderr, "score batch: the job array %s was submitted; cancel it with "
				"scancel %s\n", jobs.array_id, jobs.array_id);
		rc = EXIT_UNAVAILABLE;
		goto done;
	}
	{
		cJSON *j = cJSON_CreateObject();
		char ts[32], *jp = ks_path_join(dir, "jobs.json");
		cJSON_AddStringToObject(j, "schema", "kscore.slurm-jobs/1");
		cJSON_AddStringToObject(j, "array_job", jobs.array_id);
		cJSON_AddStringToObject(j, "collect_job", jobs.collect_id);
		cJSON_AddNumberToObject(j, "shards", so.shards);
		cJSON_AddNumberToObject(j, "teams", (double)b->m->nteams);
		ks_batch_format_time(ts, (int64_t)time(NULL));
		cJSON_AddStringToObject(j, "submitted_at", ts);
		if (ks_json_write_file(jp, j, 1) < 0)
			fprintf(stderr, "score batch: warning: %s\n", ks_error_msg());
		if (b->json) {
			char *txt = cJSON_Print(j);
			printf("%s\n", txt);
			cJSON_free(txt);
		}
		cJSON_Delete(j);
		ks_free(jp);
	}
	if (!b->json)
		printf("submitted job array %s (%u shards, %zu teams) and collect job %s (after the array)\n"
		       "follow:      squeue -j %s,%s\n"
		       "shard logs:  %s/shard-<I>.log\n"
		       "leaderboard: %s/leaderboard.csv once job %s has ended (re-run: score batch ... "
		       "--collect)\n", jobs.array_id, so.shards, b->m->nteams, jobs.collect_id,
		       jobs.array_id, jobs.collect_id, dir, outabs, jobs.collect_id);
	if (nunreachable)
		rc = EXIT_SOME;
done:
	ks_slurm_jobs_clear(&jobs);
	ks_free(array);
	ks_free(collect);
	ks_free(ap);
	ks_free(cp);
	ks_free(dir);
	ks_free(args);
	free(exe);  /* from realpath/getcwd: libc's allocator */
	free(cwd);
	free(outabs);
	return rc;
}

int ks_batch_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "out", required_argument, 0, 'o' },
		{ "pull-requests", required_argument, 0, 1 },
		{ "deadline", required_argument, 0, 2 },
		{ "submission", required_argument, 0, 3 },
		{ "team", required_argument, 0, 4 },
		{ "rescore", no_argument, 0, 5 },
		{ "no-fetch", no_argument, 0, 6 },
		{ "json", no_argument, 0, 7 },
		{ "quiet", no_argument, 0, 'q' },
		{ "color", optional_argument, 0, 8 },
		{ "shard", required_argument, 0, 9 },
		{ "collect", no_argument, 0, 10 },
		{ "slurm", no_argument, 0, 11 },
		{ "slurm-option", required_argument, 0, 12 },
		{ "shards", required_argument, 0, 13 },
		{ "dry-run", no_argument, 0, 14 },
		{ "help", no_argument, 0, 'h' },
		KS_SCOREOPTS_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	batch b;
	cJSON *jroot = NULL;
	const char *nc = getenv("NO_COLOR");
	size_t i;
	int c, rc = EXIT_OK;

	memset(&b, 0, sizeof(b));
	ks_scoreopts_init(&b.so);
	b.out = "results";
	b.color_opt = -1;
	b.lock_fd = b.shard_lock_fd = -1;
	/* getopt_long permutes argv: keep the order as given for the Slurm scripts */
	b.nargs = argc;
	b.args = ks_calloc((size_t)argc + 1, sizeof(*b.args));
	memcpy(b.args, argv, (size_t)argc * sizeof(*argv));
	b.own_args = ks_calloc((size_t)argc + 1, sizeof(*b.own_args));
	b.sbatch_opts = ks_calloc((size_t)argc + 1, sizeof(*b.sbatch_opts));
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh" KS_SCOREOPTS_SHORTOPTS, lopts, NULL)) != -1) {
		int r;
		if (c >= 11 && c <= 14) {
			/* --slurm's own options never reach the jobs: remember their argv elements */
			b.own_args[b.nown_args++] = argv[optind - 1];
			if (optarg && optarg == argv[optind - 1] && optind >= 2)
				b.own_args[b.nown_args++] = argv[optind - 2];
		}
		switch (c) {
		case 'o':
			b.out = optarg;
			continue;
		case 1:
			b.pull_repo = optarg;
			continue;
		case 2:
			b.deadline_arg = optarg;
			continue;
		case 3:
			b.submission_arg = optarg;
			continue;
		case 4:
			b.only_team = optarg;
			continue;
		case 5:
			b.rescore = 1;
			continue;
		case 6:
			b.no_fetch = 1;
			continue;
		case 7:
			b.json = 1;
			continue;
		case 'q':
			b.quiet = 1;
			continue;
		case 8:
			if (!optarg || !strcmp(optarg, "always"))
				b.color_opt = 1;
			else if (!strcmp(optarg, "never"))
				b.color_opt = 0;
			else if (!strcmp(optarg, "auto"))
				b.color_opt = -1;
			else {
				fprintf(stderr, "score batch: --color takes never, always or auto\n");
				return EXIT_USAGE;
			}
			continue;
		case 9:
			if (ks_shard_parse(&b.shard, optarg) < 0) {
				fprintf(stderr, "score batch: %s\n", ks_error_msg());
				rc = EXIT_USAGE;
				goto done;
			}
			b.sharded = 1;
			continue;
		case 10:
			b.collect = 1;
			continue;
		case 11:
			b.slurm = 1;
			continue;
		case 12:
			if (ks_slurm_option_check(optarg) < 0) {
				fprintf(stderr, "score batch: %s\n", ks_error_msg());
				rc = EXIT_USAGE;
				goto done;
			}
			b.sbatch_opts[b.nsbatch_opts++] = optarg;
			continue;
		case 13: {
			ks_shard tmp;
			char spec[32];
			snprintf(spec, sizeof(spec), "0/%.20s", optarg);
			if (ks_shard_parse(&tmp, spec) < 0) {
				fprintf(stderr, "score batch: --shards takes a number from 1 to %d\n", KS_SHARD_MAX);
				rc = EXIT_USAGE;
				goto done;
			}
			b.nshards = tmp.count;
			continue;
		}
		case 14:
			b.dry_run = 1;
			continue;
		case 'h':
			usage(stdout);
			rc = 0;
			goto done;
		default:
			break;
		}
		r = ks_scoreopts_parse(&b.so, c, optarg);
		if (r < 0) {
			fprintf(stderr, "score batch: %s\n", ks_error_msg());
			rc = EXIT_USAGE;
			goto done;
		}
		if (r == 0) {
			fprintf(stderr, "Try 'score batch --help' for more information.\n");
			rc = EXIT_USAGE;
			goto done;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "score batch: one MANIFEST at most\n");
		rc = EXIT_USAGE;
		goto done;
	}
	b.manifest_path = optind < argc ? argv[optind] : NULL;
	if (!b.manifest_path && !b.pull_repo) {
		fprintf(stderr, "score batch: no MANIFEST given (or --pull-requests REPO)\n"
			"Try 'score batch --help' for more information.\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if (ks_scoreopts_finish(&b.so) < 0) {
		fprintf(stderr, "score batch: %s\n", ks_error_msg());
		rc = EXIT_USAGE;
		goto done;
	}
	b.tty = isatty(2) && !b.json && !b.quiet;
	b.color = b.color_opt == -1 ? isatty(2) && !(nc && *nc) : b.color_opt;
	if ((rc = check_modes(&b)) != 0)
		goto done;
	b.jteams = cJSON_CreateArray();

	if (b.collect)
		b.no_fetch = 1;  /* the leaderboard of what the shards scored, from the cache as it is */
	if ((rc = load_teams(&b)) != 0)
		goto done;
	/* a manifest's teams are known now; pull requests only once their repository is fetched */
	if (!b.m->pull_repo && (rc = check_only_team(&b)) != 0)
		goto done;
	if ((rc = setup(&b)) != 0)
		goto done;
	if (b.m->pull_repo && ((rc = pull_teams(&b)) != 0 || (rc = check_only_team(&b)) != 0))
		goto done;
	if (b.slurm) {
		rc = submit_slurm(&b);
		goto done;
	}
	if (b.sharded) {
		const char **folders = ks_calloc(b.m->nteams + 1, sizeof(*folders));
		for (i = 0; i < b.m->nteams; i++)
			folders[i] = b.m->teams[i].folder;
		b.in_shard = ks_calloc(b.m->nteams + 1, sizeof(*b.in_shard));
		ks_shard_select(b.in_shard, folders, b.m->nteams, b.shard);
		ks_free(folders);
	}
	if (!b.collect && (rc = check_out(&b, 1)) != 0)
		goto done;
	if (!b.collect)
		remove_leftovers(&b);
	b.rows = ks_calloc(b.m->nteams + 1, sizeof(*b.rows));
	for (i = 0; i < b.m->nteams; i++) {
		ks_batch_row_load(&b.rows[i], b.out, &b.m->teams[i]);
		b.ntodo += !b.collect && team_selected(&b, &b.m->teams[i]);
	}
	if (b.collect)
		mark_unfinished(&b);
	for (i = 0; !b.collect && i < b.m->nteams; i++) {
		if (!team_selected(&b, &b.m->teams[i]))
			continue;
		/* shards leave the leaderboard to --collect: each sees only its own teams' progress */
		if (process_team(&b, i) < 0 || (!b.sharded && write_leaderboard(&b) < 0)) {
			progress_clear(&b);
			fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
			rc = EXIT_IOERR;
			goto done;
		}
		b.ndone++;
	}
	if (!b.sharded && write_leaderboard(&b) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		rc = EXIT_IOERR;
		goto done;
	}
	if (!b.collect && !ks_pipeline_has_gpu(b.pl) && !b.so.compile_only)
		rc = EXIT_NO_GPU;
	else if (b.nfailed)
		rc = EXIT_SOME;
	else
		rc = EXIT_OK;
	if (b.collect)
		fprintf(stderr, "score batch: collected %zu teams, %zu without a result\n", b.m->nteams,
			b.nfailed);
	else
		fprintf(stderr, "score batch: %s%zu scored, %zu already scored, %zu failed\n",
			b.sharded ? "this shard: " : "", b.nscored, b.nskipped, b.nfailed);
	if (b.sharded && !b.quiet)
		fprintf(stderr, "score batch: shard %u/%u done; `score batch ... --collect` builds the "
			"leaderboard once every shard has ended\n", b.shard.index, b.shard.count);
	if (!b.json && !b.quiet && !b.sharded)
		print_table(&b);
done:
	if (b.json && b.jteams && !b.slurm) {
		char *s, ts[32];
		jroot = cJSON_CreateObject();
		cJSON_AddStringToObject(jroot, "schema", "kscore.batch-report/1");
		cJSON_AddStringToObject(jroot, "scorer", "kscore " KS_VERSION);
		add_str_or_null(jroot, "mode", b.mode);
		if (b.m && b.m->deadline != KS_BATCH_NO_DEADLINE) {
			ks_batch_format_time(ts, b.m->deadline);
			cJSON_AddStringToObject(jroot, "deadline", ts);
		}
		cJSON_AddStringToObject(jroot, "out", b.out);
		cJSON_AddItemToObject(jroot, "teams", b.jteams);
		b.jteams = NULL;
		cJSON_AddNumberToObject(jroot, "scored", (double)b.nscored);
		cJSON_AddNumberToObject(jroot, "already_scored", (double)b.nskipped);
		cJSON_AddNumberToObject(jroot, "failed", (double)b.nfailed);
		cJSON_AddNumberToObject(jroot, "exit_status", rc);
		s = cJSON_Print(jroot);
		printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(jroot);
	}
	cJSON_Delete(b.jteams);
	for (i = 0; b.rows && i < b.m->nteams; i++)
		ks_batch_row_clear(&b.rows[i]);
	ks_free(b.rows);
	for (i = 0; i < b.nslots; i++) {
		ks_repo_free(b.slots[i]->repo);
		ks_free(b.slots[i]->location);
		ks_free(b.slots[i]->error);
		ks_free(b.slots[i]->warning);
		ks_free(b.slots[i]);
	}
	ks_free(b.slots);
	ks_pipeline_free(b.pl);
	ks_batch_manifest_free(b.m);
	ks_free(b.cache);
	ks_free(b.compile_cache);
	ks_free(b.refs);
	if (b.lock_fd >= 0)
		close(b.lock_fd);
	if (b.shard_lock_fd >= 0)
		close(b.shard_lock_fd);
	ks_free(b.in_shard);
	ks_free(b.args);
	ks_free(b.own_args);
	ks_free(b.sbatch_opts);
	if (b.so.upload) {
		ks_upload_setup_free(b.up);
		curl_global_cleanup();
	}
	return rc;
}
