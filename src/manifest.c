/* manifest: see include/manifest.h. */
#include "manifest.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"
#include "pattern.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MANIFEST_SCHEMA "kscore.batch/1"
#define MAX_MANIFEST_BYTES (16u << 20)
#define MAX_NAME_BYTES 128
#define MAX_FOLDER_BYTES 64

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

int ks_manifest_parse_time(int64_t *out, const char *text)
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

void ks_manifest_format_time(char out[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)t);
}

char *ks_manifest_folder_name(const char *name)
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

ks_manifest *ks_manifest_new(void)
{
	ks_manifest *m = ks_calloc(1, sizeof(*m));
	m->deadline = KS_MANIFEST_NO_DEADLINE;
	return m;
}

static void team_clear(ks_manifest_team *t)
{
	ks_free(t->name);
	ks_free(t->folder);
	ks_free(t->repo);
	ks_free(t->ref);
	ks_free(t->submission);
	ks_free(t->head_subject);
	memset(t, 0, sizeof(*t));
}

void ks_manifest_free(ks_manifest *m)
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

static int parse_team(ks_manifest_team *t, const cJSON *o, size_t i, const char *name, const char *dir)
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
	if (sub && (rc = ks_pattern_check(sub)) < 0)
		return ks_error_wrap(rc, "%s", where);
	t->name = ks_strdup(s);
	t->folder = ks_manifest_folder_name(s);
	t->repo = repo_location(repo, dir);
	t->ref = ks_strdup(ref);
	t->submission = sub ? ks_strdup(sub) : NULL;
	return 0;
}

static int parse_pulls(ks_manifest *m, const cJSON *o, const char *name, const char *dir)
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

int ks_manifest_parse(ks_manifest **out, const char *text, size_t len, const char *name,
			    const char *dir)
{
	static const char *const keys[] = { "schema", "deadline", "submission", "teams", "pull_requests",
					    NULL };
	ks_manifest *m = ks_manifest_new();
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
	if (deadline && (rc = ks_manifest_parse_time(&m->deadline, deadline)) < 0) {
		ks_error_wrap(rc, "%s: deadline", name);
		goto done;
	}
	if (sub) {
		if ((rc = ks_pattern_check(sub)) < 0) {
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
	ks_manifest_free(m);
	return rc;
}

int ks_manifest_load(ks_manifest **out, const char *path)
{
	char *text = NULL, *dir;
	size_t n;
	int rc;
	*out = NULL;
	if ((rc = ks_fs_read(&text, &n, path, MAX_MANIFEST_BYTES)) < 0)
		return rc;
	dir = ks_path_dirname(path);
	rc = ks_manifest_parse(out, text, n, path, dir);
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

void ks_manifest_add_pull_teams(ks_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn)
{
	size_t i, j, k;
	m->teams = ks_realloc(m->teams, (m->nteams + n + 1) * sizeof(*m->teams));
	for (i = 0; i < n; i++) {
		ks_manifest_team *t = &m->teams[m->nteams];
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
		t->folder = ks_manifest_folder_name(t->name);
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
