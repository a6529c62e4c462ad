/* kbruns: KernelBench's answer layout (DESIGN §2), a folder of files named
 * level_<L>_problem_<P>_sample_<S>_kernel.py, as its generation scripts write them under
 * runs/<run>/. This module finds the files and reads their names; load/submission.c turns them into
 * passes (one per sample S, for pass@k as KernelBench counts it). Names are untrusted input: they
 * are parsed digit by digit with a cap, never with strtol, so no name can overflow or go negative. */
#ifndef KS_KBRUNS_H
#define KS_KBRUNS_H

#include <stddef.h>

/* The most digits of L, P or S: 999999999 fits an int. */
#define KS_KBRUNS_MAX_DIGITS 9

/* Parses a file name (no folder) of the layout into its level, problem and sample. Levels and
 * problems count from 1, samples from 0; numbers are decimal without sign or leading zero. Returns
 * 0, or KS_EINVALID with a message that says what does not fit (the caller names the file). */
int ks_kbruns_parse_name(int *level, int *problem, int *sample, const char *name);

/* Whether a name claims the layout ("level_" ... ".py"): the files that decide detection. */
int ks_kbruns_claims(const char *name);

typedef struct {
	char *path;     /* the file's path */
	char *name;     /* its basename */
	int level, problem, sample;
	char *error;    /* non-NULL: the name does not parse (says why, names the file); skipped */
} ks_kbruns_file;

typedef struct {
	char *dir;              /* the folder that holds the files (the run folder) */
	ks_kbruns_file *files;  /* parsed names by sample, level, problem; then bad names by name */
	size_t nfiles;
	size_t nsamples;        /* distinct samples among the parsed names */
} ks_kbruns;

/* Looks for the layout in dir: its regular .py files, or when dir holds neither .py nor
 * submission files, those of its one subfolder holding any (runs/ holding runs/<run>/). The layout
 * is detected only when a .py file claims it (ks_kbruns_claims); then every .py file of the folder
 * must claim it and no GEAK submission file (.json, .jsonl, .json.gz, .jsonl.gz) may sit beside
 * them. Returns 1 with *out filled (caller frees with ks_kbruns_clear), 0 when dir is not in the
 * layout (*out untouched), or KS_EINVALID (a mix, naming the first file that does not fit; several
 * run subfolders) / KS_EIO with a message naming the folder. */
int ks_kbruns_scan(ks_kbruns *out, const char *dir);

void ks_kbruns_clear(ks_kbruns *r);

#endif
