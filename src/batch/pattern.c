/* pattern: see src/batch/pattern.h. */
#include "batch/pattern.h"
#include "util/errors.h"
#include "util/mem.h"

#include <ctype.h>
#include <string.h>

/* Steps one component match may take. */
#define MAX_MATCH_STEPS 100000u

int ks_pattern_has_wildcard(const char *s)
{
	return strchr(s, '*') || strstr(s, "<N>") || strchr(s, '{');
}

int ks_pattern_is_globstar(const char *component)
{
	return !strcmp(component, "**");
}

/* The '}' that closes the '{' at *open, or NULL. */
static const char *closing(const char *open)
{
	int depth = 0;
	const char *p;
	for (p = open; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	}
	return NULL;
}

/* Expands the first {...} of s, then (recursively) what is left, appending to *v in order. */
static int expand(char ***v, size_t *n, size_t *cap, const char *s, const char *spec)
{
	const char *open = strchr(s, '{'), *close, *alt;
	int rc = 0;

	if (!open) {
		if (strchr(s, '}'))
			return ks_error_set(KS_EINVALID, "submission pattern %s: a '}' without its '{'", spec);
		if (*n >= KS_PATTERN_MAX_ALTERNATIVES)
			return ks_error_set(KS_EINVALID, "submission pattern %s gives more than %d "
					    "alternatives", spec, KS_PATTERN_MAX_ALTERNATIVES);
		*v = ks_grow(*v, sizeof(**v), cap, *n + 1);
		(*v)[(*n)++] = ks_strdup(s);
		return 0;
	}
	if (!(close = closing(open)))
		return ks_error_set(KS_EINVALID, "submission pattern %s: a '{' without its '}'", spec);
	if (close == open + 1)
		return ks_error_set(KS_EINVALID, "submission pattern %s: empty {}", spec);
	for (alt = open + 1; rc == 0 && alt <= close;) {
		const char *end = alt;
		int depth = 0;
		char *joined;
		/* the alternative ends at a ',' or at the '}' of this level */
		while (end < close && (depth > 0 || *end != ',')) {
			depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
			end++;
		}
		joined = ks_asprintf("%.*s%.*s%s", (int)(open - s), s, (int)(end - alt), alt, close + 1);
		rc = expand(v, n, cap, joined, spec);
		ks_free(joined);
		alt = end + 1;
	}
	return rc;
}

/* Checks one expanded pattern (no braces left); messages name the pattern as written. */
static int check_one(const char *p0, const char *spec)
{
	const char *p, *last;
	size_t stars = 0;
	if (!*p0)
		return ks_error_set(KS_EINVALID, "submission pattern %s has an empty alternative", spec);
	if (p0[0] == '/')
		return ks_error_set(KS_EINVALID, "submission path %s must be relative to the repository",
				    spec);
	last = p0 + strlen(p0);
	while (last > p0 && last[-1] == '/')
		last--;  /* a trailing '/' ends the last component */
	while (last > p0 && last[-1] != '/')
		last--;
	for (p = p0; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return ks_error_set(KS_EINVALID, "submission path %s has an empty, \".\" or \"..\" "
					    "component", spec);
		if (n == 2 && !memcmp(p, "**", 2) && p >= last)
			return ks_error_set(KS_EINVALID, "submission pattern %s must end with a file name, "
					    "not \"**\"", spec);
		p += n;
		if (*p == '/')
			p++;
	}
	p = strstr(p0, "<N>");
	if (p && (p < last || strstr(p + 3, "<N>")))
		return ks_error_set(KS_EINVALID, "submission pattern %s: \"<N>\" may appear once, in the "
				    "file name only", spec);
	for (p = p0; *p; p++)
		stars += *p == '*';
	if (stars > 8)
		return ks_error_set(KS_EINVALID, "submission pattern %s has more than 8 '*'", spec);
	return 0;
}

int ks_pattern_expand(char ***out, size_t *n, const char *spec)
{
	char **v = NULL;
	size_t cnt = 0, cap = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	if (!spec || !*spec)
		return ks_error_set(KS_EINVALID, "empty submission path");
	if (strlen(spec) > KS_PATTERN_MAX_LEN)
		return ks_error_set(KS_EINVALID, "submission pattern %.64s... is longer than %d bytes", spec,
				    KS_PATTERN_MAX_LEN);
	rc = expand(&v, &cnt, &cap, spec, spec);
	for (i = 0; rc == 0 && i < cnt; i++)
		rc = check_one(v[i], spec);
	if (rc < 0) {
		ks_free_strv(v, cnt);
		return rc;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int ks_pattern_check(const char *spec)
{
	char **v = NULL;
	size_t n = 0;
	int rc = ks_pattern_expand(&v, &n, spec);
	ks_free_strv(v, n);
	return rc;
}

static int match_here(const char *p, const char *s, const char **num, size_t *nd, unsigned *steps)
{
	for (;;) {
		if (++*steps > MAX_MATCH_STEPS)
			return 0;
		if (*p == '*') {
			const char *t;
			for (t = s;; t++) {
				if (match_here(p + 1, t, num, nd, steps))
					return 1;
				if (!*t)
					return 0;
			}
		}
		if (!strncmp(p, "<N>", 3)) {
			size_t k = 0, j;
			while (isdigit((unsigned char)s[k]))
				k++;
			for (j = k; j >= 1; j--)
				if (match_here(p + 3, s + j, num, nd, steps)) {
					*num = s;
					*nd = j;
					return 1;
				}
			return 0;
		}
		if (!*p)
			return !*s;
		if (*p != *s)
			return 0;
		p++;
		s++;
	}
}

int ks_pattern_match(const char **number, size_t *ndigits, const char *pattern, const char *name)
{
	unsigned steps = 0;
	*number = NULL;
	*ndigits = 0;
	return match_here(pattern, name, number, ndigits, &steps);
}

int ks_pattern_cmp_number(const char *a, size_t na, const char *b, size_t nb)
{
	int c;
	while (na > 1 && *a == '0')
		a++, na--;
	while (nb > 1 && *b == '0')
		b++, nb--;
	if (na != nb)
		return na < nb ? -1 : 1;
	c = memcmp(a, b, na);
	return c < 0 ? -1 : c > 0;
}

