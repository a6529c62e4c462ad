#include "nvtool/sanitize.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const g_tools[KS_SAN_NTOOLS] = { "memcheck", "racecheck", "initcheck", "synccheck" };

/* ---- the case */

const char *ks_sanitize_case_rule_name(ks_sanitize_case_rule r)
{
	return r == KS_SAN_CASE_TAIL ? "partial_tail" : r == KS_SAN_CASE_LARGEST ? "largest_under_cap" : "smallest";
}

const char *ks_sanitize_case_rule_text(ks_sanitize_case_rule r)
{
	return r == KS_SAN_CASE_TAIL	  ? "the first with several blocks and a partial tail"
	       : r == KS_SAN_CASE_LARGEST ? "the largest under the size cap: none under it has several blocks "
					    "and a partial tail"
					  : "the smallest: every case is over the size cap";
}

int ks_sanitize_plan_has_tail(const ks_plan *plan)
{
	size_t k, j;
	for (k = 0; k < plan->nkernels; k++) {
		const ks_plan_kernel *pk = &plan->kernels[k];
		uint64_t blocks = (uint64_t)pk->grid[0] * pk->grid[1] * pk->grid[2];
		uint64_t threads = (uint64_t)pk->block[0] * pk->block[1] * pk->block[2];
		if (blocks < 2 || !threads)
			continue;
		for (j = 0; j < pk->nparams; j++) {
			const ks_plan_buf *b;
			uint64_t share, tile;
			if (pk->params[j].kind != KS_PARAM_BUF || pk->params[j].buf >= plan->nbufs)
				continue;
			b = &plan->bufs[pk->params[j].buf];
			if ((b->role == KS_ROLE_IN && !b->scratch) || !b->count)
				continue;
			share = (b->count + blocks - 1) / blocks;
			tile = (share + threads - 1) / threads * threads;
			if (b->count % tile)
				return 1;
		}
	}
	return 0;
}

int ks_sanitize_pick_case(size_t *ci, ks_sanitize_case_rule *rule, const ks_candidate_image *img,
			  const ks_plan_limits *lim, uint64_t max_bytes)
{
	const ks_problem *p = img->problem;
	size_t i, largest = SIZE_MAX, smallest = SIZE_MAX;
	uint64_t largest_bytes = 0, smallest_bytes = UINT64_MAX;
	char *why = NULL;

	for (i = 0; i < p->ncorrectness; i++) {
		ks_env env = KS_ENV_INIT;
		ks_plan plan;
		uint64_t bytes;
		int tail;
		if (ks_problem_env(&env, p, &p->correctness[i]) < 0 ||
		    ks_candidate_plan(&plan, img, 0, i, &env, 0, 0, lim) < 0) {
			if (!why)
				why = ks_strdup(ks_error_msg());
			ks_env_free(&env);
			continue;
		}
		bytes = ks_plan_bytes(&plan);
		tail = ks_sanitize_plan_has_tail(&plan);
		ks_plan_clear(&plan);
		ks_env_free(&env);
		if (bytes <= max_bytes && tail) {
			ks_free(why);
			*ci = i;
			*rule = KS_SAN_CASE_TAIL;
			return 0;
		}
		if (bytes <= max_bytes && (largest == SIZE_MAX || bytes > largest_bytes)) {
			largest = i;
			largest_bytes = bytes;
		}
		if (bytes < smallest_bytes) {
			smallest = i;
			smallest_bytes = bytes;
		}
	}
	if (largest != SIZE_MAX || smallest != SIZE_MAX) {
		ks_free(why);
		*ci = largest != SIZE_MAX ? largest : smallest;
		*rule = largest != SIZE_MAX ? KS_SAN_CASE_LARGEST : KS_SAN_CASE_SMALLEST;
		return 0;
	}
	{
		int rc = ks_error_set(KS_EINVALID, "%s: no correctness case to run the sanitizer on%s%s", p->name,
				      why ? ": " : "", why ? why : "");
		ks_free(why);
		return rc;
	}
}

const char *ks_sanitize_tool_name(unsigned t)
{
	int i;
	for (i = 0; i < KS_SAN_NTOOLS; i++)
		if (t == (1u << i))
			return g_tools[i];
	return NULL;
}

int ks_sanitize_tools_parse(unsigned *mask, const char *list)
{
	char *dup = ks_strdup(list ? list : ""), *tok, *save = NULL;
	int rc = 0, i;
	*mask = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			*mask |= KS_SAN_ALL;
			continue;
		}
		for (i = 0; i < KS_SAN_NTOOLS; i++)
			if (!strcmp(tok, g_tools[i]))
				break;
		if (i == KS_SAN_NTOOLS) {
			rc = ks_error_set(KS_EINVALID, "--sanitize takes tools from memcheck, racecheck, initcheck, "
					  "synccheck or all, not \"%.40s\"", tok);
			break;
		}
		*mask |= 1u << i;
	}
	ks_free(dup);
	if (rc == 0 && !*mask)
		rc = ks_error_set(KS_EINVALID, "--sanitize needs at least one tool (memcheck, racecheck, initcheck, "
				  "synccheck or all)");
	return rc;
}

void ks_sanitize_argv(char ***argv, size_t *n, const char *sanitizer, unsigned tool, const char *log_path)
{
	const char *name = ks_sanitize_tool_name(tool);
	char **a = ks_calloc(16, sizeof(char *));
	size_t k = 0;
	a[k++] = ks_strdup(sanitizer);
	a[k++] = ks_strdup("--tool");
	a[k++] = ks_strdup(name ? name : "memcheck");
	/* a finding makes the tool exit with this status: a second witness besides the log */
	a[k++] = ks_strdup("--error-exitcode");
	a[k++] = ks_asprintf("%d", KS_SANITIZE_EXIT_CODE);
	/* one finding is enough to fail a kernel; the log stays small whatever the kernel does */
	a[k++] = ks_strdup("--print-limit");
	a[k++] = ks_strdup("32");
	a[k++] = ks_strdup("--show-backtrace");
	a[k++] = ks_strdup("no");
	/* the harness's own failing calls are no finding about the kernel: the worker counts a
	 * kernel's parameters by calling cuFuncGetParamInfo until it refuses, which memcheck otherwise
	 * reports as an error (and exits with --error-exitcode) for every clean kernel */
	a[k++] = ks_strdup("--report-api-errors");
	a[k++] = ks_strdup("no");
	a[k++] = ks_strdup("--log-file");
	a[k++] = ks_strdup(log_path);
	a[k] = NULL;
	*argv = a;
	*n = k;
}

/* ---- parsing */

int ks_sanitize_quiet(const char *log, size_t len)
{
	static const char prefix[] = "=========";
	size_t i = 0;
	while (i < len) {
		const char *l = log + i, *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i, m = sizeof(prefix) - 1;
		i += n + 1;
		/* one '\r' and then spaces, as ks_sanitize_parse reads a line: "========= " and a run of
		 * carriage returns is a finding's text to it, so it must not be quiet here */
		if (n && l[n - 1] == '\r')
			n--;
		while (n && l[n - 1] == ' ')
			n--;
		if (!n || (n == m && !memcmp(l, prefix, m)) ||
		    (n == m + 18 && !memcmp(l, "========= COMPUTE-SANITIZER", m + 18)))
			continue;
		return 0;
	}
	return 1;
}

#define MAX_LINE 4096

/* Printable ASCII, capped, trimmed. */
static char *clean(const char *s, size_t len)
{
	char *o = ks_malloc(KS_SANITIZE_MAX_TEXT + 1);
	size_t i, k = 0;
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	for (i = 0; i < len && k < KS_SANITIZE_MAX_TEXT; i++)
		o[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	while (k && (o[k - 1] == ' ' || o[k - 1] == ':'))
		k--;
	o[k] = 0;
	return o;
}

/* Appends more to *field, after sep, within the cap. */
static void append(char **field, const char *sep, const char *more, size_t len)
{
	char *m = clean(more, len), *j;
	if (!*field) {
		*field = m;
		return;
	}
	j = ks_asprintf("%s%s%s", *field, sep, m);
	if (strlen(j) > KS_SANITIZE_MAX_TEXT)
		j[KS_SANITIZE_MAX_TEXT] = 0;
	ks_free(*field);
	ks_free(m);
	*field = j;
}

static int starts(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);
	return len >= n && !strncmp(s, p, n);
}

static int contains(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p), i;
	for (i = 0; i + n <= len; i++)
		if (!strncmp(s + i, p, n))
			return 1;
	return 0;
}

/* A count as the tools print it ("43", "1,024"); -1 when s does not start with one. */
static long count_at(const char *s, size_t len)
{
	long v = 0;
	size_t i = 0;
	while (i < len && s[i] == ' ')
		i++;
	if (i == len || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == ','); i++)
		if (s[i] != ',' && v < 100000000)
			v = v * 10 + (s[i] - '0');
	return v;
}

/* "ERROR SUMMARY: 43 errors", then past --print-limit "ERROR SUMMARY: 11 errors were not printed.
 * Use --print-limit ..."; racecheck's "RACECHECK SUMMARY: 5 hazards displayed (0 errors, 5
 * warnings)". */
static void summary_line(ks_sanitize_report *out, const char *s, size_t ll)
{
	if (starts(s, ll, "ERROR SUMMARY:")) {
		long v = count_at(s + 14, ll - 14);
		if (contains(s, ll, "not printed"))
			out->not_printed = v < 0 ? 0 : v;
		else if (out->summary_errors < 0)
			out->summary_errors = v;
	} else if (starts(s, ll, "RACECHECK SUMMARY:") && out->summary_hazards < 0)
		out->summary_hazards = count_at(s + 18, ll - 18);
}

void ks_sanitize_parse(ks_sanitize_report *out, const char *log, size_t len)
{
	size_t pos = 0;
	ks_sanitize_finding *cur = NULL;
	int dropping = 0; /* inside a finding past the cap */

	memset(out, 0, sizeof(*out));
	out->summary_errors = -1;
	out->summary_hazards = -1;
	while (pos < len) {
		const char *s = log + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos, indent = 0;
		pos += ll + (nl ? 1 : 0);
		if (ll > MAX_LINE)
			ll = MAX_LINE;
		if (ll && s[ll - 1] == '\r')
			ll--;
		if (!starts(s, ll, "========="))
			continue; /* not the tool's line */
		s += 9;
		ll -= 9;
		if (ll && *s == ' ') {
			s++;
			ll--;
		}
		while (indent < ll && s[indent] == ' ')
			indent++;
		if (indent == ll) { /* a blank line ends a finding */
			cur = NULL;
			dropping = 0;
			continue;
		}
		if (indent > 0) {
			const char *t = s + indent;
			size_t tl = ll - indent;
			if (!cur || dropping || starts(t, tl, "Saved host backtrace") || starts(t, tl, "Host Frame") ||
			    starts(t, tl, "Device Frame"))
				continue;
			if (starts(t, tl, "at ") && !cur->where)
				cur->where = clean(t + 3, tl - 3);
			else if (starts(t, tl, "by thread") && !cur->who)
				cur->who = clean(t, tl);
			else if (starts(t, tl, "and ") && !cur->address && !cur->where)
				append(&cur->what, " ", t, tl); /* racecheck: "and Write access at ..." */
			else if (starts(t, tl, "and "))
				append(&cur->address, " ", t, tl); /* memcheck: "and is 61,189 bytes after ..." */
			else
				append(&cur->address, "; ", t, tl);
			continue;
		}
		cur = NULL;
		dropping = 0;
		if (starts(s, ll, "COMPUTE-SANITIZER") || starts(s, ll, "Target application returned an error") ||
		    starts(s, ll, "Error: process didn't terminate successfully") ||
		    starts(s, ll, "Saved host backtrace") || contains(s, ll, "SUMMARY:")) {
			summary_line(out, s, ll);
			continue;
		}
		if (starts(s, ll, "Program hit ")) {
			out->api_errors++;
			continue;
		}
		{
			int race = contains(s, ll, "Race reported") || contains(s, ll, "hazard");
			int warning = starts(s, ll, "Warning") || starts(s, ll, "WARNING");
			int error_word = starts(s, ll, "Error") || starts(s, ll, "ERROR") ||
					 starts(s, ll, "Internal Sanitizer Error");
			size_t skip = 0;
			if (!race && (warning || error_word)) {
				/* the tool's own trouble, not a finding about the kernel */
				if (error_word && !out->tool_error)
					out->tool_error = clean(s, ll);
				continue;
			}
			if (race) /* "ERROR: Race reported between ..." -> "Race reported between ..." */
				while (skip < ll && s[skip] != ':' && skip < 8)
					skip++;
			if (race && skip < ll && s[skip] == ':')
				skip++;
			else
				skip = 0;
			out->total++;
			if (!warning)
				out->errors++;
			if (out->n >= KS_SANITIZE_MAX_FINDINGS) {
				dropping = 1;
				continue;
			}
			cur = &out->items[out->n++];
			memset(cur, 0, sizeof(*cur));
			cur->what = clean(s + skip, ll - skip);
			cur->error = !warning;
		}
	}
}

void ks_sanitize_report_clear(ks_sanitize_report *r)
{
	size_t i;
	for (i = 0; i < r->n; i++) {
		ks_free(r->items[i].what);
		ks_free(r->items[i].where);
		ks_free(r->items[i].who);
		ks_free(r->items[i].address);
	}
	ks_free(r->tool_error);
	memset(r, 0, sizeof(*r));
}

/* "Invalid ..." -> "invalid ...", but "WAW hazard" stays. */
static void lower_first(ks_buf *b, const char *s)
{
	if (s[0] && isupper((unsigned char)s[0]) && !isupper((unsigned char)s[1]))
		ks_buf_printf(b, "%c%s", tolower((unsigned char)s[0]), s + 1);
	else
		ks_buf_puts(b, s);
}

int ks_sanitize_unread_errors(const ks_sanitize_report *r, int exit_status)
{
	if (exit_status < 0 || !WIFEXITED(exit_status) || WEXITSTATUS(exit_status) != KS_SANITIZE_EXIT_CODE)
		return 0;
	return r->total == 0 && (r->summary_errors < 0 || r->summary_errors > (long)r->api_errors);
}

int ks_sanitize_fails(const ks_sanitize_report *r, unsigned tool)
{
	return r->errors > 0 || (tool == KS_SAN_RACECHECK && r->total > 0);
}

char *ks_sanitize_detail(const ks_sanitize_report *r, const char *tool)
{
	const ks_sanitize_finding *f = NULL;
	ks_buf b = KS_BUF_INIT(4096);
	int race = tool && !strcmp(tool, "racecheck");
	size_t i, all = r->errors;
	for (i = 0; i < r->n && !f; i++)
		if (r->items[i].error)
			f = &r->items[i];
	if (!f && race && r->n)
		f = &r->items[0]; /* a warning (ks_sanitize_fails says why it counts) */
	if (!f && r->errors) {
		/* the findings kept were all warnings, the errors came after them: a failure all the same */
		ks_buf_printf(&b, "%s: %zu error%s among %zu findings, none of them among the first %d kept (all "
			      "warnings)", tool ? tool : "sanitizer", r->errors, r->errors == 1 ? "" : "s", r->total,
			      KS_SANITIZE_MAX_FINDINGS);
		return ks_buf_take(&b, NULL);
	}
	if (!f)
		return NULL;
	/* past --print-limit the summary counts what the log does not show */
	if (r->summary_errors > (long)(r->errors + r->api_errors))
		all = (size_t)r->summary_errors - r->api_errors;
	ks_buf_printf(&b, "%s: ", tool ? tool : "sanitizer");
	lower_first(&b, f->what);
	if (f->where)
		ks_buf_printf(&b, " at %s", f->where);
	if (f->who)
		ks_buf_printf(&b, " %s", f->who);
	if (f->address) {
		ks_buf_puts(&b, ": ");
		lower_first(&b, f->address);
	}
	if (!f->error)
		ks_buf_printf(&b, " (%zu hazard report%s; racecheck rates %s warning%s: a race the programming model "
			      "forbids but warp-synchronous code may have meant, such as shared memory used by the "
			      "threads of a warp without __syncwarp, which GPUs since Volta do not keep in step)",
			      r->total, r->total == 1 ? "" : "s", r->total == 1 ? "it a" : "them",
			      r->total == 1 ? "" : "s");
	else if (all > 1)
		ks_buf_printf(&b, " (%zu errors in all)", all);
	return ks_buf_take(&b, NULL);
}

cJSON *ks_sanitize_findings_json(const ks_sanitize_report *r, const char *tool)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < r->n; i++) {
		cJSON *o = cJSON_CreateObject();
		ks_json_add_str(o, "tool", tool);
		cJSON_AddStringToObject(o, "severity", r->items[i].error ? "error" : "warning");
		ks_json_add_str(o, "what", r->items[i].what);
		ks_json_add_str(o, "where", r->items[i].where);
		ks_json_add_str(o, "who", r->items[i].who);
		ks_json_add_str(o, "address", r->items[i].address);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
