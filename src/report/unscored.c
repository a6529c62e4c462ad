/* unscored: see unscored.h. */
#include "report/unscored.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

/* The reasons that mean "not scored because of its language or the toolchain its language needs",
 * the one place that decides it. `foreign_only`: the reason counts only for an answer whose
 * recorded language is another than CUDA. `not_run` is also what a CUDA kernel of a compile-only
 * run gets; for a Triton answer it means this run could not trace it (no GPU, or a host without
 * Python, torch or Triton: the detail says which), and that answer's record says "triton". */
static const struct {
	const char *reason;
	int foreign_only;
} counted[] = {
	{ "not_cuda", 0 },
	{ "not_run", 1 },
};

/* How a recorded language code reads ("triton" is what people call "Triton (Python)"). */
static const struct {
	const char *code, *name;
} language_names[] = {
	{ "triton", "Triton (Python)" },
	{ "python", "Python" },
	{ "cuda", "CUDA C++" },
};

static int is_cuda(const char *language)
{
	return !strncasecmp(language, "cuda", 4) || !strcasecmp(language, "c++") || !strcasecmp(language, "cpp");
}

/* Text as it is shown (a language's name, a cause), cut to whole characters and made printable: it reaches
 * terminals and pages. */
static void copy_text(char *out, size_t cap, const char *s)
{
	size_t o = 0, i = 0, n = strlen(s);
	while (i < n) {
		uint32_t cp;
		size_t len = ks_utf8_decode(&cp, s + i, n - i);
		if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
		    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFFFD) {
			i += len;
			continue;
		}
		if (o + len >= cap)
			break;
		memcpy(out + o, s + i, len);
		o += len;
		i += len;
	}
	out[o] = '\0';
}

static void copy_name(char out[KS_UNSCORED_MAX_NAME], const char *s)
{
	copy_text(out, KS_UNSCORED_MAX_NAME, s);
}

/* The language an answer is written in, for people. */
static void language_of(char out[KS_UNSCORED_MAX_NAME], const char *language, const char *detail)
{
	static const char said[] = "the answer is ";
	size_t i;
	if (language && *language && strcmp(language, "none")) {
		for (i = 0; i < sizeof(language_names) / sizeof(language_names[0]); i++)
			if (!strcasecmp(language, language_names[i].code)) {
				copy_name(out, language_names[i].name);
				return;
			}
		copy_name(out, language);
		return;
	}
	/* an answer in which no code was found ("none"), and records written before the language was
	 * recorded: the not_cuda detail names it ("the answer is Python without a Triton kernel: ...",
	 * earlier "the answer is Triton (Python), not CUDA: ...") */
	if (detail && !strncmp(detail, said, sizeof(said) - 1)) {
		const char *l = detail + sizeof(said) - 1, *e = NULL, *ends[] = { ", not CUDA", " without ", ":" };
		for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			const char *x = strstr(l, ends[i]);
			if (x && (!e || x < e))
				e = x;
		}
		if (e && e > l && (size_t)(e - l) < KS_UNSCORED_MAX_NAME) {
			char tmp[KS_UNSCORED_MAX_NAME];
			memcpy(tmp, l, (size_t)(e - l));
			tmp[e - l] = '\0';
			copy_name(out, tmp);
			if (*out)
				return;
		}
	}
	copy_name(out, "not CUDA");
}

static void count_language(ks_unscored *u, const char *name, size_t n)
{
	size_t i;
	for (i = 0; i < u->nlang; i++)
		if (!strcmp(u->lang[i].name, name))
			break;
	if (i == u->nlang) {
		if (u->nlang == KS_UNSCORED_MAX_LANGUAGES) {
			i = u->nlang - 1;
			copy_name(u->lang[i].name, "other languages");
		} else {
			copy_name(u->lang[u->nlang++].name, name);
		}
	}
	u->lang[i].n += n;
}

/* Why the host could not run an answer, from its not_run detail (the tracer's and prepare's own
 * words); NULL when the detail does not say. */
static const char *cause_of(const char *detail)
{
	static const struct {
		const char *said, *cause;
	} causes[] = {
		{ "need a GPU (compile-only)", "compile-only run, tracing Triton answers needs a GPU" },
		{ "need a GPU (no GPU)", "this host has no usable GPU" },
		{ "torch and triton cannot be imported", "this host's Python has no torch or Triton" },
		{ "no python3", "this host has no Python for Triton answers" },
		{ "helper program kscore-triton", "kscore's Triton helper is not installed here" },
		{ "need a GPU", "this host has no usable GPU" },
	};
	size_t i;
	for (i = 0; detail && i < sizeof(causes) / sizeof(causes[0]); i++)
		if (strstr(detail, causes[i].said))
			return causes[i].cause;
	return NULL;
}

void ks_unscored_add(ks_unscored *u, const char *reason, const char *language, const char *detail)
{
	char name[KS_UNSCORED_MAX_NAME];
	size_t i;
	if (reason && !strcmp(reason, "duplicate"))
		return;
	u->answers++;
	for (i = 0; reason && i < sizeof(counted) / sizeof(counted[0]); i++)
		if (!strcmp(reason, counted[i].reason))
			break;
	if (!reason || i == sizeof(counted) / sizeof(counted[0]))
		return;
	if (counted[i].foreign_only && (!language || !*language || !strcmp(language, "none") || is_cuda(language)))
		return;
	language_of(name, language, detail);
	if (!u->cause[0] && !strcmp(reason, "not_run") && cause_of(detail))
		copy_text(u->cause, sizeof(u->cause), cause_of(detail));
	u->unscored++;
	count_language(u, name, 1);
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void ks_unscored_add_score(ks_unscored *u, const cJSON *score)
{
	const cJSON *k, *a = cJSON_GetObjectItemCaseSensitive(score, "kernels");
	if (!cJSON_IsArray(a))
		return;
	cJSON_ArrayForEach(k, a)
		if (cJSON_IsObject(k))
			ks_unscored_add(u, str_of(k, "reason"), str_of(k, "language"), str_of(k, "detail"));
}

void ks_unscored_merge(ks_unscored *a, const ks_unscored *b)
{
	size_t i;
	a->answers += b->answers;
	a->unscored += b->unscored;
	if (!a->cause[0])
		memcpy(a->cause, b->cause, sizeof(a->cause));
	for (i = 0; i < b->nlang; i++)
		count_language(a, b->lang[i].name, b->lang[i].n);
}

/* Indices of u's languages, most answers first (the first seen first among equals). */
static void by_count(size_t order[KS_UNSCORED_MAX_LANGUAGES], const ks_unscored *u)
{
	size_t i, j;
	for (i = 0; i < u->nlang; i++)
		order[i] = i;
	for (i = 1; i < u->nlang; i++)
		for (j = i; j > 0 && u->lang[order[j]].n > u->lang[order[j - 1]].n; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

/* The languages, most answers first: as the note's sentence, or as a list of counts. */
static char *describe(const ks_unscored *u, int sentence)
{
	size_t order[KS_UNSCORED_MAX_LANGUAGES], i;
	ks_buf b = KS_BUF_INIT(4096);
	if (!u->unscored)
		return NULL;
	by_count(order, u);
	for (i = 0; i < u->nlang; i++) {
		const ks_unscored_language *l = &u->lang[order[i]];
		const char *verb = l->n == 1 ? "is" : "are";
		if (!sentence)
			ks_buf_printf(&b, "%s%zu %s", i ? ", " : "", l->n, l->name);
		else if (i == 0)
			ks_buf_printf(&b, "%zu of %zu answer%s %s %s", l->n, u->answers, u->answers == 1 ? "" : "s",
				      verb, l->name);
		else
			ks_buf_printf(&b, "%s%zu %s %s", i + 1 == u->nlang ? " and " : ", ", l->n, verb, l->name);
	}
	if (sentence)
		ks_buf_printf(&b, ", which this run could not score%s%s", u->cause[0] ? ": " : "", u->cause);
	return ks_buf_take(&b, NULL);
}

char *ks_unscored_note(const ks_unscored *u)
{
	return describe(u, 1);
}

char *ks_unscored_languages(const ks_unscored *u)
{
	return describe(u, 0);
}
