/* export: `score export` and the site `score batch` writes, a static leaderboard site built from
 * result folders (docs/export.md). The site opens from file:// and from any static host, loads
 * nothing from the network, reads without JavaScript, and prints every string from a submission
 * as text.
 *
 * The site folder is built beside its target and renamed into place. kscore replaces only a
 * folder it wrote: one holding the marker file KS_EXPORT_MARKER (or an empty one); any other
 * existing folder is refused and left as it is. */
#ifndef KS_EXPORT_H
#define KS_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#define KS_EXPORT_MARKER ".kscore-site"

typedef struct {
	const char *out_dir;     /* the site folder (required) */
	int no_code;             /* leave submitted code out of the pages */
	const char *cache_dir;   /* a batch's repository mirrors, for the code [default cache] */
	FILE *log;               /* warnings about unreadable inputs; NULL: none */
} ks_export_options;

#define KS_EXPORT_OPTIONS_INIT { NULL, 0, NULL, NULL }

typedef struct {
	size_t teams, problems, pages, kernels, code;  /* code: kernels shown with their code */
	size_t unreadable;       /* result files that could not be read (each a warning on log) */
} ks_export_stats;

/* Writes the site of `inputs` (result folders or a batch's results folders; see model.h) into
 * opts->out_dir. Fails with KS_ENOTFOUND / KS_EINVALID when an input holds no result, and KS_EIO
 * when out_dir cannot be written or exists and was not written by kscore (no marker); the
 * previous site, if any, is then left whole. stats may be NULL. */
int ks_export_site(ks_export_stats *stats, const char *const *inputs, size_t ninputs,
		   const ks_export_options *opts);

/* The site of a batch: <results_dir>/site/, from <results_dir>; cache_dir holds the repository
 * mirrors (may be NULL). Called by `score batch` after the leaderboard is written. */
int ks_export_batch_site(const char *results_dir, const char *cache_dir, FILE *log);

/* score export [OPTIONS] RESULTS_DIR... --out SITE_DIR. argv[0] is "export". Exit status: 0 the
 * site was written, 64 usage, 65 an input holds no result (nothing written) or a result file
 * could not be read (the site is written without it), 74 the site cannot be written or SITE_DIR
 * is a folder kscore did not write. */
int ks_export_main(int argc, char **argv);

#endif
