/* export: `score export` and the site `score batch` writes, a static leaderboard site built from
 * result folders (docs/export.md). The site opens from file:// and from any static host, loads
 * nothing from the network, reads without JavaScript, and prints every string from a submission
 * as text.
 *
 * The site folder follows kscore's one rule for what it writes (outdir.h): it is built in a marked
 * sibling and renamed into place, and an existing folder is replaced only when it carries kscore's
 * mark of kind "site" (or is empty); any other is refused and left as it is, and so is a site
 * folder that is or holds one of the inputs. */
#ifndef KS_EXPORT_H
#define KS_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "report/outdir.h"

#define KS_EXPORT_MARKER KS_OUTDIR_MARK

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

/* Whether out_dir may receive the site of `inputs` (the rule above): 0, KS_EINVALID with a message
 * when it is refused (callers exit 73), KS_EIO when it cannot be examined. */
int ks_export_check_out(const char *out_dir, const char *const *inputs, size_t ninputs);

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
