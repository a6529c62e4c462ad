#include "load/kbruns.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* A GEAK submission file, which would be a pass of a folder of them. */
static int is_geak_name(const char *name)
{
	return ends_with(name, ".json") || ends_with(name, ".jsonl") || ends_with(name, ".json.gz") ||
	       ends_with(name, ".jsonl.gz");
}

int ks_kbruns_claims(const char *name)
{
	return !strncmp(name, "level_", 6) && ends_with(name, ".py");
}

/* One number of the name at *p, then the literal `after`; advances *p. `min` is the least value
 * allowed (1 for levels and problems, 0 for samples). */
static int number(int *out, const char **p, const char *what, int min, const char *after)
{
	const char *s = *p;
	size_t n = 0;
	int v = 0;

	if (*s == '-' || *s == '+')
		return ks_error_set(KS_EINVALID, "the %s has a sign (it is a count from %d)", what, min);
	while (s[n] >= '0' && s[n] <= '9') {
		if (n == KS_KBRUNS_MAX_DIGITS)
			return ks_error_set(KS_EINVALID, "the %s has more than %d digits", what,
					    KS_KBRUNS_MAX_DIGITS);
		v = v * 10 + (s[n] - '0');
		n++;
	}
	if (!n)
		return ks_error_set(KS_EINVALID, "the %s is not a number", what);
	if (n > 1 && s[0] == '0')
		return ks_error_set(KS_EINVALID, "the %s has a leading zero", what);
	if (v < min)
		return ks_error_set(KS_EINVALID, "the %s is %d (it counts from %d)", what, v, min);
	if (strncmp(s + n, after, strlen(after)))
		return ks_error_set(KS_EINVALID, "\"%s\" does not follow the %s", after, what);
	*out = v;
	*p = s + n + strlen(after);
	return 0;
}

int ks_kbruns_parse_name(int *level, int *problem, int *sample, const char *name)
{
	const char *p = name;
	int l = 0, n = 0, s = 0, rc;

	if (strncmp(p, "level_", 6))
		return ks_error_set(KS_EINVALID, "it does not start with \"level_\"");
	p += 6;
	if ((rc = number(&l, &p, "level", 1, "_problem_")) < 0 ||
	    (rc = number(&n, &p, "problem", 1, "_sample_")) < 0 ||
	    (rc = number(&s, &p, "sample", 0, "_kernel.py")) < 0)
		return rc;
	if (*p)
		return ks_error_set(KS_EINVALID, "text follows \"_kernel.py\"");
	*level = l;
	*problem = n;
	*sample = s;
	return 0;
}

static int file_cmp(const void *a, const void *b)
{
	const ks_kbruns_file *x = a, *y = b;
	if (!x->error != !y->error)
		return x->error ? 1 : -1;
	if (x->error)
		return strcmp(x->name, y->name);
	if (x->sample != y->sample)
		return x->sample < y->sample ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return (x->problem > y->problem) - (x->problem < y->problem);
}

static int is_regular(const char *dir, const char *name)
{
	struct stat st;
	char *path = ks_path_join(dir, name);
	int ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	ks_free(path);
	return ok;
}

/* What dir holds: *claimed .py files claiming the layout, *py .py files, and the first misfit
 * (a .py file that does not claim it, a GEAK file) by name, for the message. */
typedef struct {
	size_t claimed, py, geak;
	const char *first_py_misfit, *first_geak;
} census;

static void count(census *c, const char *dir, char **names, size_t n)
{
	size_t i;
	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		if (!is_regular(dir, names[i]))
			continue;
		if (is_geak_name(names[i])) {
			if (!c->geak++)
				c->first_geak = names[i];
		} else if (ends_with(names[i], ".py")) {
			c->py++;
			if (ks_kbruns_claims(names[i]))
				c->claimed++;
			else if (!c->first_py_misfit)
				c->first_py_misfit = names[i];
		}
	}
}

/* Fills out from dir, whose census says it is in the layout. */
static void collect(ks_kbruns *out, const char *dir, char **names, size_t n)
{
	size_t i, k = 0, s;
	memset(out, 0, sizeof(*out));
	out->dir = ks_strdup(dir);
	out->files = ks_calloc(n + 1, sizeof(*out->files));
	for (i = 0; i < n; i++) {
		ks_kbruns_file *f = &out->files[k];
		if (!ks_kbruns_claims(names[i]) || !is_regular(dir, names[i]))
			continue;
		f->name = ks_strdup(names[i]);
		f->path = ks_path_join(dir, names[i]);
		if (ks_kbruns_parse_name(&f->level, &f->problem, &f->sample, names[i]) < 0)
			f->error = ks_asprintf("%s: not a name of KernelBench's answer layout "
					       "(level_<L>_problem_<P>_sample_<S>_kernel.py): %s; skipped",
					       f->path, ks_error_msg());
		k++;
	}
	out->nfiles = k;
	qsort(out->files, k, sizeof(*out->files), file_cmp);
	for (i = 0, s = 0; i < k && !out->files[i].error; i++)
		s += i == 0 || out->files[i].sample != out->files[i - 1].sample;
	out->nsamples = s;
}

/* The one subfolder of dir that claims the layout, as a path (caller frees); NULL with *rc 0 when
 * none does, NULL with *rc < 0 when several do. */
static char *run_subfolder(int *rc, const char *dir)
{
	char **subs = NULL, **names = NULL, *found = NULL, *path;
	size_t nsubs = 0, nnames = 0, i;
	census c;

	*rc = 0;
	if ((*rc = ks_fs_list(&subs, &nsubs, dir, 1)) < 0)
		return NULL;
	for (i = 0; i < nsubs && *rc == 0; i++) {
		path = ks_path_join(dir, subs[i]);
		if (!ks_fs_is_dir(path) || ks_fs_list(&names, &nnames, path, 0) < 0) {
			ks_free(path);
			continue;
		}
		count(&c, path, names, nnames);
		ks_free_strv(names, nnames);
		names = NULL;
		if (!c.claimed) {
			ks_free(path);
		} else if (found) {
			*rc = ks_error_set(KS_EINVALID, "%s: holds several runs of KernelBench answers (%s, "
					   "%s): pass@k counts the samples of one run; name one run's folder",
					   dir, strrchr(found, '/') + 1, subs[i]);
			ks_free(path);
		} else {
			found = path;
		}
	}
	ks_free_strv(subs, nsubs);
	if (*rc < 0) {
		ks_free(found);
		return NULL;
	}
	return found;
}

int ks_kbruns_scan(ks_kbruns *out, const char *dir)
{
	char **names = NULL, *sub = NULL;
	size_t n = 0;
	census c;
	int rc;

	if ((rc = ks_fs_list(&names, &n, dir, 0)) < 0)
		return rc;
	count(&c, dir, names, n);
	if (!c.py && !c.geak) {
		/* runs/ holding runs/<run>/: look one level down, no further */
		if (!(sub = run_subfolder(&rc, dir)))
			goto done;
		ks_free_strv(names, n);
		names = NULL;
		if ((rc = ks_fs_list(&names, &n, sub, 0)) < 0)
			goto done;
		count(&c, sub, names, n);
		dir = sub;
	}
	if (!c.claimed)
		goto done; /* not the layout: a folder of GEAK files loads as ever */
	if (c.first_py_misfit) {
		rc = ks_error_set(KS_EINVALID, "%s/%s: does not fit KernelBench's answer layout "
				  "(level_<L>_problem_<P>_sample_<S>_kernel.py) that the folder's other "
				  ".py files follow; a folder is one submission in one layout", dir,
				  c.first_py_misfit);
		goto done;
	}
	if (c.first_geak) {
		rc = ks_error_set(KS_EINVALID, "%s/%s: a GEAK submission file beside KernelBench "
				  "answers (level_<L>_problem_<P>_sample_<S>_kernel.py); a folder is one "
				  "submission in one layout", dir, c.first_geak);
		goto done;
	}
	collect(out, dir, names, n);
	rc = 1;
done:
	ks_free_strv(names, n);
	ks_free(sub);
	return rc;
}

void ks_kbruns_clear(ks_kbruns *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->nfiles; i++) {
		ks_free(r->files[i].path);
		ks_free(r->files[i].name);
		ks_free(r->files[i].error);
	}
	ks_free(r->files);
	ks_free(r->dir);
	memset(r, 0, sizeof(*r));
}
