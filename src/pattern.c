/* pattern: see include/pattern.h. */
#include "pattern.h"
#include "errors.h"

#include <ctype.h>
#include <string.h>

/* Steps one component match may take. */
#define MAX_MATCH_STEPS 100000u

int ks_pattern_has_wildcard(const char *s)
{
	return strchr(s, '*') || strstr(s, "<N>");
}

int ks_pattern_check(const char *spec)
{
	const char *p, *last;
	size_t stars = 0;
	if (!spec || !*spec)
		return ks_error_set(KS_EINVALID, "empty submission path");
	if (spec[0] == '/')
		return ks_error_set(KS_EINVALID, "submission path %s must be relative to the repository",
				    spec);
	last = strrchr(spec, '/');
	last = last ? last + 1 : spec;
	for (p = spec; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return ks_error_set(KS_EINVALID, "submission path %s has an empty, \".\" or \"..\" "
					    "component", spec);
		p += n;
		if (*p == '/')
			p++;
	}
	p = strstr(spec, "<N>");
	if (p && (p < last || strstr(p + 3, "<N>")))
		return ks_error_set(KS_EINVALID, "submission pattern %s: \"<N>\" may appear once, in the "
				    "file name only", spec);
	for (p = spec; *p; p++)
		stars += *p == '*';
	if (stars > 8)
		return ks_error_set(KS_EINVALID, "submission pattern %s has more than 8 '*'", spec);
	return 0;
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

