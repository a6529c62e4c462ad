/* manifest: see src/batch/manifest.h. */
#include "batch/manifest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "batch/pattern.h"
#include "util/utf8.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MANIFEST_SCHEMA "kscore.batch/1"
#define MAX_MANIFEST_BYTES (16u << 20)
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

	if (!text || strlen(text) < 19 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) ||
	    p[7] != '-' || digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != 't' && p[10] != ' ') ||
	    digits(p + 11, 2, &h) || p[13] != ':' || digits(p + 14, 2, &mi) || p[16] != ':' ||
	    digits(p + 17, 2, &s))
		goto bad;
	p += 19;
	/* a local time without its offset names a different instant on every machine: say what to add */
	if (!*p)
		return ks_error_set(KS_EINVALID, "\"%s\" has no UTC offset, so it names no single instant: "
				    "write the zone after the seconds, Z for UTC (%.19sZ) or the offset of "
				    "local time (%.19s+08:00 for UTC+8, %.19s-07:00 for UTC-7)", text, text,
				    text, text);
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

char *ks_manifest_clean_name(const char *text)
{
	char *s = ks_utf8_clean(text), *o = ks_malloc(strlen(s) + 1);
	size_t n = 0, i;
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char x = c < 0x20 || c == 0x7f ? ' ' : (char)c;
		if (x == ' ' && (n == 0 || o[n - 1] == ' '))
			continue;
		o[n++] = x;
	}
	o[n] = '\0';
	/* by characters, never inside one: a cut name is still valid UTF-8 */
	n = ks_utf8_prefix(o, (size_t)-1, KS_MANIFEST_MAX_NAME, NULL);
	while (n && o[n - 1] == ' ')
		n--;
	o[n] = '\0';
	ks_free(s);
	return o;
}

/* ---- team names written in commit subjects ---- */

/* Subjects of one word that name what was done, not who did it. */
static const char *const git_words[] = {
	"add", "added", "adds", "change", "changes", "cleanup", "commit", "done", "edit", "final",
	"first", "fix", "fixes", "fixed", "init", "initial", "merge", "misc", "readme", "refactor",
	"result", "results", "revert", "submission", "submissions", "submit", "test", "tests",
	"tmp", "update", "updates", "updated", "upload", "wip", NULL
};

static int is_word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-' || c >= 0x80;
}

/* s[0..n) without the spaces and the separators ':' '-' '=' around it. */
static char *trimmed(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == ':' || *s == '=' || *s == '-'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == ':' || s[n - 1] == '-' || s[n - 1] == '.'))
		n--;
	return n ? ks_strndup(s, n) : NULL;
}

/* At most `words` words of s; more, and only the first one. */
static char *few_words(char *s, int words, int keep_first)
{
	int count = 1;
	char *p, *second = NULL;
	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (*p == ' ' && p[1] && p[1] != ' ') {
			count++;
			if (count == 2 + keep_first)
				second = p;
		}
	if (count > words && second)
		*second = '\0';
	return s;
}

/* A separator that ends a name written inline. */
static size_t name_span(const char *s)
{
	size_t n = strcspn(s, ":,;|([)]");
	const char *dash = strstr(s, " - ");
	if (dash && (size_t)(dash - s) < n)
		n = (size_t)(dash - s);
	return n;
}

/* "[Team X]" or "(Team X)", "[team: X]": the name inside; NULL when no bracket holds one. */
static char *in_brackets(const char *s)
{
	const char *p;
	for (p = s; (p = strpbrk(p, "[(")) != NULL; p++) {
		const char *close = strchr(p + 1, *p == '[' ? ']' : ')'), *in = p + 1;
		size_t n;
		if (!close)
			return NULL;
		while (*in == ' ')
			in++;
		n = (size_t)(close - in);
		if (n > 5 && !strncasecmp(in, "team", 4) && !is_word_char((unsigned char)in[4])) {
			const char *rest = in + 4;
			while (*rest == ' ')
				rest++;
			if (*rest == ':' || *rest == '=')
				return trimmed(rest + 1, (size_t)(close - rest - 1));
			return trimmed(in, n);
		}
	}
	return NULL;
}

/* "team: X" or "team=X" anywhere, "team" a word of its own. */
static char *labelled(const char *s)
{
	const char *p;
	for (p = s; (p = strcasestr(p, "team")) != NULL; p += 4) {
		const char *q = p + 4;
		if (p > s && is_word_char((unsigned char)p[-1]))
			continue;
		while (*q == ' ')
			q++;
		if (*q != ':' && *q != '=')
			continue;
		q++;
		while (*q == ' ')
			q++;
		return few_words(trimmed(q, name_span(q)), 3, 0);
	}
	return NULL;
}

/* A subject that starts "Team X". */
static char *leading(const char *s)
{
	if (strncasecmp(s, "team ", 5) || !is_word_char((unsigned char)s[5]))
		return NULL;
	return few_words(trimmed(s, name_span(s)), 4, 1);
}

static char *one_word(const char *s)
{
	size_t i, n = strlen(s), alpha = 0;
	if (!n || strchr(s, ' '))
		return NULL;
	for (i = 0; i < n; i++) {
		if (!is_word_char((unsigned char)s[i]))
			return NULL;
		alpha += !isdigit((unsigned char)s[i]);
	}
	for (i = 0; git_words[i]; i++)
		if (!strcasecmp(s, git_words[i]))
			return NULL;
	return alpha ? ks_strdup(s) : NULL;
}

char *ks_manifest_team_in_subject(const char *subject)
{
	char *s = ks_manifest_clean_name(subject), *name;
	if (!(name = in_brackets(s)) && !(name = labelled(s)) && !(name = leading(s)))
		name = one_word(s);
	ks_free(s);
	if (name && !*name) {
		ks_free(name);
		name = NULL;
	}
	return name;
}

const char *ks_manifest_name_source_name(ks_manifest_name_source s)
{
	static const char *const names[] = { "manifest", "subject", "author", "number" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "manifest";
}

int ks_manifest_name_from_parse(ks_manifest_name_from *out, const char *text)
{
	if (text && !strcmp(text, "subject"))
		*out = KS_MANIFEST_NAME_SUBJECT;
	else if (text && !strcmp(text, "author"))
		*out = KS_MANIFEST_NAME_AUTHOR;
	else if (text && !strcmp(text, "number"))
		*out = KS_MANIFEST_NAME_NUMBER;
	else
		return ks_error_set(KS_EINVALID, "\"%s\" is not subject, author or number", text ? text : "");
	return 0;
}

/* ---- submission paths ---- */

void ks_manifest_paths_clear(ks_manifest_paths *p)
{
	ks_free_strv(p->v, p->n);
	p->v = NULL;
	p->n = 0;
}

int ks_manifest_paths_set(ks_manifest_paths *out, const char *const *v, size_t n)
{
	size_t i;
	int rc;
	if (!n || n > KS_MANIFEST_MAX_PATHS)
		return ks_error_set(KS_EINVALID, "give 1 to %d submission paths or patterns, not %zu",
				    KS_MANIFEST_MAX_PATHS, n);
	for (i = 0; i < n; i++)
		if ((rc = ks_pattern_check(v[i])) < 0)
			return rc;
	ks_manifest_paths_clear(out);
	out->v = ks_calloc(n + 1, sizeof(*out->v));
	for (i = 0; i < n; i++)
		out->v[i] = ks_strdup(v[i]);
	out->n = n;
	return 0;
}

/* "submission": a path or pattern, or an array of them (tried in order). Absent or null: left
 * as it is. */
static int json_paths(ks_manifest_paths *out, const cJSON *o, const char *where)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "submission"), *e;
	const char *list[KS_MANIFEST_MAX_PATHS];
	size_t n = 0;
	int rc;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v)) {
		list[n++] = v->valuestring;
	} else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) <= KS_MANIFEST_MAX_PATHS) {
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e))
				return ks_error_set(KS_EINVALID, "%s: \"submission\" must be a path or pattern, "
						    "or an array of them", where);
			list[n++] = e->valuestring;
		}
	} else {
		return ks_error_set(KS_EINVALID, "%s: \"submission\" must be a path or pattern, or an "
				    "array of 1 to %d of them", where, KS_MANIFEST_MAX_PATHS);
	}
	if ((rc = ks_manifest_paths_set(out, list, n)) < 0)
		return ks_error_wrap(rc, "%s: submission", where);
	return 0;
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
	ks_manifest_paths_clear(&t->submission);
	ks_free(t->base);
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
	ks_manifest_paths_clear(&m->submission);
	ks_free(m->deadline_given);
	ks_free(m->pull_repo);
	ks_free(m->pull_base);
	for (i = 0; m->map_number_overrides && i < m->nmap_numbers; i++) {
		ks_manifest_paths_clear(&m->map_number_overrides[i].submission);
		ks_free(m->map_number_overrides[i].base);
	}
	ks_free(m->map_number_overrides);
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
	if (!n || s[0] == ' ' || s[n - 1] == ' ' || !ks_utf8_valid(s, n, NULL) ||
	    ks_utf8_length(s) > KS_MANIFEST_MAX_NAME)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int bad_name(const char *where, const char *s)
{
	char *shown = ks_utf8_clean(s);
	int rc = ks_error_set(KS_EINVALID, "%s: name \"%.140s\" must be 1 to %d characters of UTF-8 "
			      "without control characters or leading or trailing spaces", where, shown,
			      KS_MANIFEST_MAX_NAME);
	ks_free(shown);
	return rc;
}

static char *repo_location(const char *given, const char *dir)
{
	if (ks_repo_is_url(given) || given[0] == '/' || !dir || !*dir || !strcmp(dir, "."))
		return ks_strdup(given);
	return ks_path_join(dir, given);
}

/* "base": a ref whose history is not the team's own. */
static int json_base(char **out, const cJSON *o, const char *where)
{
	const char *base = NULL;
	int rc = ks_json_str(&base, o, "base", 0);
	if (rc < 0)
		return ks_error_wrap(rc, "%s", where);
	if (base && !*base)
		return ks_error_set(KS_EINVALID, "%s: \"base\" is empty", where);
	if (base) {
		ks_free(*out);
		*out = ks_strdup(base);
	}
	return 0;
}

static int parse_team(ks_manifest_team *t, const cJSON *o, size_t i, const char *name, const char *dir)
{
	static const char *const keys[] = { "name", "repo", "ref", "submission", "base", NULL };
	const char *s = NULL, *repo = NULL, *ref = "HEAD";
	char where[256];
	int rc;

	snprintf(where, sizeof(where), "%s: teams[%zu]", name, i);
	if (!cJSON_IsObject(o))
		return ks_error_set(KS_EINVALID, "%s: not an object", where);
	if ((rc = ks_json_str(&s, o, "name", 1)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (!valid_name(s))
		return bad_name(where, s);
	snprintf(where, sizeof(where), "%s: team \"%s\"", name, s);
	if ((rc = check_keys(o, keys, where)) < 0)
		return rc;
	if ((rc = ks_json_str(&repo, o, "repo", 1)) < 0 || (rc = ks_json_str(&ref, o, "ref", 0)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (!*repo)
		return ks_error_set(KS_EINVALID, "%s: \"repo\" is empty", where);
	if (!*ref)
		return ks_error_set(KS_EINVALID, "%s: \"ref\" is empty", where);
	if ((rc = json_paths(&t->submission, o, where)) < 0)
		return rc;
	if ((rc = json_base(&t->base, o, where)) < 0) {
		/* the team is not added: what was parsed of it goes with it */
		ks_manifest_paths_clear(&t->submission);
		return rc;
	}
	t->name = ks_strdup(s);
	t->folder = ks_manifest_folder_name(s);
	t->repo = repo_location(repo, dir);
	t->ref = ks_strdup(ref);
	t->name_source = KS_MANIFEST_NAMED_BY_MANIFEST;
	return 0;
}

/* One entry of teams_by_number: a name, or {"name", "submission", "base"}. */
static int parse_number(ks_manifest *m, const cJSON *e, const char *where)
{
	static const char *const keys[] = { "name", "submission", "base", NULL };
	ks_manifest_pull_override *ov = &m->map_number_overrides[m->nmap_numbers];
	const char *nm = NULL;
	char *end, here[360];
	unsigned long v = strtoul(e->string, &end, 10);
	int rc;

	if (!*e->string || *end || !isdigit((unsigned char)e->string[0]) || !v ||
	    (!cJSON_IsString(e) && !cJSON_IsObject(e)))
		return ks_error_set(KS_EINVALID, "%s: teams_by_number: \"%.40s\" must be a pull request "
				    "number mapped to a team name or to {\"name\", \"submission\", \"base\"}",
				    where, e->string);
	snprintf(here, sizeof(here), "%s: teams_by_number: \"%.40s\"", where, e->string);
	m->map_numbers[m->nmap_numbers] = ks_asprintf("%lu", v);
	m->map_number_names[m->nmap_numbers++] = NULL;
	if (cJSON_IsString(e))
		nm = e->valuestring;
	else if ((rc = check_keys(e, keys, here)) < 0 || (rc = json_paths(&ov->submission, e, here)) < 0 ||
		 (rc = json_base(&ov->base, e, here)) < 0)
		return rc;
	else if ((rc = ks_json_str(&nm, e, "name", 0)) < 0)
		return ks_error_wrap(rc, "%s", here);
	if (nm && !valid_name(nm))
		return bad_name(here, nm);
	m->map_number_names[m->nmap_numbers - 1] = nm ? ks_strdup(nm) : NULL;
	return 0;
}

static int parse_pulls(ks_manifest *m, const cJSON *o, const char *name, const char *dir)
{
	static const char *const keys[] = { "repo", "teams_by_number", "teams_by_subject", "exclude", "base",
					    "name_from", NULL };
	const cJSON *map, *e;
	const char *repo = NULL, *from = NULL;
	char where[256];
	size_t n;
	int rc;

	snprintf(where, sizeof(where), "%s: pull_requests", name);
	if (!cJSON_IsObject(o))
		return ks_error_set(KS_EINVALID, "%s: not an object", where);
	if ((rc = check_keys(o, keys, where)) < 0)
		return rc;
	if ((rc = ks_json_str(&repo, o, "repo", 0)) < 0 || (rc = ks_json_str(&from, o, "name_from", 0)) < 0)
		return ks_error_wrap(rc, "%s", where);
	if (repo)
		m->pull_repo = repo_location(repo, dir);
	if (from && (rc = ks_manifest_name_from_parse(&m->name_from, from)) < 0)
		return ks_error_wrap(rc, "%s: name_from", where);
	if ((rc = json_base(&m->pull_base, o, where)) < 0)
		return rc;
	map = cJSON_GetObjectItemCaseSensitive(o, "teams_by_number");
	if (map && !cJSON_IsNull(map)) {
		if (!cJSON_IsObject(map))
			return ks_error_set(KS_EINVALID, "%s: teams_by_number must map numbers to names", where);
		n = (size_t)cJSON_GetArraySize(map);
		m->map_numbers = ks_calloc(n + 1, sizeof(char *));
		m->map_number_names = ks_calloc(n + 1, sizeof(char *));
		m->map_number_overrides = ks_calloc(n + 1, sizeof(*m->map_number_overrides));
		cJSON_ArrayForEach(e, map)
			if ((rc = parse_number(m, e, where)) < 0)
				return rc;
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
	const char *schema = NULL, *deadline = NULL;
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
	if ((rc = ks_json_str(&schema, root, "schema", 1)) < 0 ||
	    (rc = ks_json_str(&deadline, root, "deadline", 0)) < 0) {
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
	if (deadline)
		m->deadline_given = ks_strdup(deadline);
	if ((rc = json_paths(&m->submission, root, name)) < 0)
		goto done;
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
	rc = 0;
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

/* The index of key in keys[0..n), or n. */
static size_t map_find(char **keys, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n && strcmp(keys[i], key); i++)
		;
	return i;
}

/* A pull request's name by the manifest's rule: *source tells which rule gave it. */
static char *pull_name(ks_manifest_name_source *source, const ks_manifest *m, const ks_repo_pull *pr,
		       const char *subject, const char *num)
{
	char *name = NULL;
	switch (m->name_from) {
	case KS_MANIFEST_NAME_DEFAULT:
		name = ks_manifest_team_in_subject(subject);
		break;
	case KS_MANIFEST_NAME_SUBJECT:
		name = *subject ? ks_strdup(subject) : NULL;
		break;
	case KS_MANIFEST_NAME_AUTHOR:
		name = pr->author ? ks_manifest_clean_name(pr->author) : NULL;
		if (name && !*name) {
			ks_free(name);
			name = NULL;
		}
		break;
	case KS_MANIFEST_NAME_NUMBER:
		break;
	}
	*source = !name ? KS_MANIFEST_NAMED_BY_NUMBER : m->name_from == KS_MANIFEST_NAME_AUTHOR ?
		  KS_MANIFEST_NAMED_BY_AUTHOR : KS_MANIFEST_NAMED_BY_SUBJECT;
	return name ? name : ks_asprintf("pr-%s", num);
}

/* The index of the team whose folder is `folder` (compared as the filesystem may: without case),
 * or m->nteams when none. */
static size_t folder_taken(const ks_manifest *m, const char *folder)
{
	size_t j;
	for (j = 0; j < m->nteams; j++)
		if (!strcasecmp(m->teams[j].folder, folder))
			break;
	return j;
}

void ks_manifest_add_pull_teams(ks_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn)
{
	size_t i, j, k;
	m->teams = ks_realloc(m->teams, (m->nteams + n + 1) * sizeof(*m->teams));
	for (i = 0; i < n; i++) {
		ks_manifest_team *t = &m->teams[m->nteams];
		const ks_manifest_pull_override *ov = NULL;
		/* named from the commit that is scored: a commit pushed after the deadline never
		 * renames a team (nor gives it another team's folder) */
		const char *named_by = prs[i].scored_subject ? prs[i].scored_subject : prs[i].subject;
		char num[32], *subject = ks_manifest_clean_name(named_by ? named_by : "");
		const char *name = NULL;
		size_t at;
		int excluded = 0;
		for (k = 0; k < m->nexclude; k++)
			excluded |= m->exclude[k] == prs[i].number;
		if (excluded) {
			ks_free(subject);
			continue;
		}
		snprintf(num, sizeof(num), "%lu", prs[i].number);
		memset(t, 0, sizeof(*t));
		if ((at = map_find(m->map_numbers, m->nmap_numbers, num)) < m->nmap_numbers) {
			name = m->map_number_names[at];
			ov = m->map_number_overrides ? &m->map_number_overrides[at] : NULL;
		}
		if (!name && (at = map_find(m->map_subjects, m->nmap_subjects, subject)) < m->nmap_subjects)
			name = m->map_subject_names[at];
		if (name) {
			t->name = ks_strdup(name);
			t->name_source = KS_MANIFEST_NAMED_BY_MANIFEST;
		} else {
			t->name = pull_name(&t->name_source, m, &prs[i], subject, num);
		}
		t->folder = ks_manifest_folder_name(t->name);
		if ((j = folder_taken(m, t->folder)) < m->nteams) {
			char *name2 = ks_asprintf("%s #%s", t->name, num);
			char *folder2 = ks_asprintf("%s-pr%s", t->folder, num);
			unsigned again = 2;
			/* the renamed folder may be taken in turn (a team named so, or the same number
			 * twice): count on until it is free, so no two teams ever share a folder */
			while (folder_taken(m, folder2) < m->nteams) {
				ks_free(folder2);
				ks_free(name2);
				folder2 = ks_asprintf("%s-pr%s-%u", t->folder, num, again);
				name2 = ks_asprintf("%s #%s (%u)", t->name, num, again++);
			}
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
		t->repo = ks_strdup(m->pull_repo ? m->pull_repo : "");
		t->ref = ks_asprintf("refs/pull/%s/head", num);
		t->pull = prs[i].number;
		t->head_subject = ks_manifest_clean_name(prs[i].subject ? prs[i].subject : "");
		ks_free(subject);
		if (ov && ov->submission.n)
			ks_manifest_paths_set(&t->submission, (const char *const *)ov->submission.v,
					      ov->submission.n);
		if (ov && ov->base)
			t->base = ks_strdup(ov->base);
		else if (m->pull_base)
			t->base = ks_strdup(m->pull_base);
		m->nteams++;
	}
}
