/* code: finds the code each kernel of a result was scored from. Result folders do not hold the
 * submission, so the exporter reads it again: a single run's file (score.json's submission.path,
 * as given, then beside the result folder), or a batch team's file from the repository mirror
 * in the cache at the scored commit. A kernel is shown with code only when its entry's sha256 is
 * the one that was scored. */
#include "web_export/model.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/mem.h"
#include "batch/repos.h"
#include "load/paths.h"
#include "load/submission.h"

#include <string.h>

static void note_all(ks_export_team *t, const char *note)
{
	size_t i;
	for (i = 0; i < t->nk; i++)
		if (!t->kernels[i].code && !t->kernels[i].code_note)
			t->kernels[i].code_note = ks_strdup(note);
}

/* Gives each kernel the code of its entry (same pass, index and sha256). */
static void attach_pass(ks_export_team *t, const ks_pass *p, size_t pass_no, const char *source)
{
	size_t i;
	for (i = 0; i < t->nk; i++) {
		ks_export_kernel *k = &t->kernels[i];
		const ks_entry *e;
		if (k->pass != (long)pass_no || k->index < 0 || (size_t)k->index >= p->nentries)
			continue;
		e = &p->entries[k->index];
		if (!k->entry_sha256 || strcmp(k->entry_sha256, e->sha256)) {
			ks_free(k->code_note);
			k->code_note = ks_asprintf("%s has changed since it was scored (entry %ld differs)", source,
						   k->index);
			continue;
		}
		if (e->code) {
			k->code = ks_strdup(e->code);
			t->code_found++;
		} else {
			ks_free(k->code_note);
			k->code_note = ks_strdup(e->extract_note ? e->extract_note : "no code could be extracted");
		}
	}
}

static int try_file(ks_export_team *t, const char *path)
{
	ks_submission *sub = NULL;
	size_t i;
	if (!ks_fs_exists(path) || ks_submission_load(&sub, path, NULL) < 0) {
		ks_error_clear();
		return 0;
	}
	for (i = 0; i < sub->npasses; i++)
		attach_pass(t, &sub->passes[i], i, path);
	ks_submission_free(sub);
	return 1;
}

static void from_file(ks_export_team *t)
{
	char *parent, *beside, *name;
	if (try_file(t, t->submission_path))
		return;
	/* `score X.json` writes X/ beside X.json: look there when run from elsewhere */
	parent = ks_path_dirname(t->dir);
	name = strrchr(t->submission_path, '/') ? strrchr(t->submission_path, '/') + 1 : t->submission_path;
	beside = ks_path_join(parent, name);
	if (!try_file(t, beside))
		note_all(t, "the submission file was not found (run score export where score was run, or "
			 "beside the submission)");
	ks_free(beside);
	ks_free(parent);
}

/* The mirror is opened only when it exists: ks_repo_open would create an empty one. Its folder
 * is named by the sha256 of the location as displayed (without credentials), which is what
 * batch.json records (docs/batch.md, "The cache"). */
static void from_mirror(ks_export_team *t, const char *cache)
{
	ks_repo_options ro = KS_REPO_OPTIONS_INIT;
	ks_repo *r = NULL;
	ks_pass pass;
	char hex[65], *dir, *data = NULL, *path = NULL, *src;
	size_t len = 0;

	memset(&pass, 0, sizeof(pass));
	ks_sha256_hex(hex, t->repository, strlen(t->repository));
	dir = ks_asprintf("%s/repos/%s", cache, hex);
	src = ks_asprintf("%s@%.12s:%s", t->repository, t->commit, t->file);
	if (!ks_fs_is_dir(dir)) {
		note_all(t, "the repository is not in the cache (give --cache-dir)");
		goto done;
	}
	ro.cache_dir = cache;
	if (ks_repo_open(&r, t->repository, &ro) < 0 ||
	    ks_repo_read_file(&data, &len, &path, r, t->commit, t->file, (size_t)64 << 20) < 0) {
		char *msg = ks_asprintf("cannot read the submission from the cache: %s", ks_error_msg());
		note_all(t, msg);
		ks_free(msg);
		goto done;
	}
	ks_pass_parse(&pass, t->file, data, len, NULL);
	attach_pass(t, &pass, 0, src);
done:
	ks_error_clear();
	ks_pass_clear(&pass);
	ks_repo_free(r);
	ks_free(data);
	ks_free(path);
	ks_free(dir);
	ks_free(src);
}

void ks_export_code_attach(ks_export_team *t, const ks_export_load_options *opts)
{
	char *cache;
	if (opts->no_code) {
		note_all(t, "left out of this site (--no-code)");
		return;
	}
	if (t->repository && t->commit && t->file) {
		cache = opts->cache_dir ? ks_strdup(opts->cache_dir) : ks_paths_default_cache();
		if (cache)
			from_mirror(t, cache);
		else
			note_all(t, "no cache folder to read the repository from (give --cache-dir)");
		ks_free(cache);
	} else if (t->submission_path && t->dir) {
		from_file(t);
	}
	note_all(t, "the submission is not available");
}
