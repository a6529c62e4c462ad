/* cli: what the commands (src/cmd_*.c) share: exit codes, usage errors, number and device option
 * values, the options of every command that works on the reference problems, and the colour
 * decision. Only commands parse argv; a stage module includes this only for the exit-code enum
 * (ks_upload_status_exit). */
#ifndef KS_CLI_H
#define KS_CLI_H

#include <stdint.h>
#include "errors.h"
#include "problem.h"
#include "version.h"

/* Exit codes of every `score` command. 64 and up are sysexits.h's, so scripts can tell a usage
 * mistake from a bad input from a broken machine. */
enum {
	KS_EXIT_OK = 0,           /* everything succeeded */
	KS_EXIT_SOME = 1,         /* some kernels / uploads / problems failed */
	KS_EXIT_NONE = 2,         /* no kernel passed */
	KS_EXIT_NO_GPU = 3,       /* compiled only: no usable GPU */
	KS_EXIT_USAGE = 64,       /* a bad option or argument */
	KS_EXIT_DATAERR = 65,     /* an input is unreadable or invalid */
	KS_EXIT_UNAVAILABLE = 69, /* a needed resource (GPU, helper) is missing */
	KS_EXIT_SOFTWARE = 70,    /* an internal failure */
	KS_EXIT_CANTCREAT = 73,   /* an output path is refused: not kscore's, or an input (outdir.h) */
	KS_EXIT_IOERR = 74,       /* an output cannot be written */
	KS_EXIT_CONFIG = 78       /* a configuration file or option is unusable */
};

/* Prints "<prog>: <message>" and "Try '<prog> --help'." to stderr; returns KS_EXIT_USAGE. */
int ks_cli_usage_error(const char *prog, const char *fmt, ...) KS_PRINTF(2, 3);

/* --refs DIR and --suite NAME, taken by every command that works on reference_tests/. A command
 * lists KS_CLI_REFS_LONGOPTS among its getopt_long options and hands each option to
 * ks_cli_refs_option. */
#define KS_CLI_OPT_REFS 'r'
#define KS_CLI_OPT_SUITE 0x2000
#define KS_CLI_REFS_LONGOPTS                                                                 \
	{ "refs", required_argument, 0, KS_CLI_OPT_REFS },                                   \
	{ "suite", required_argument, 0, KS_CLI_OPT_SUITE }

typedef struct {
	const char *refs;  /* --refs; NULL: found by ks_paths_find_refs */
	const char *suite; /* --suite; NULL: every suite */
} ks_cli_refs;

/* 1 when opt is --refs or --suite (stored in *o; arg is borrowed), 0 otherwise. */
int ks_cli_refs_option(ks_cli_refs *o, int opt, const char *arg);

/* Finds the reference folder (*refs, caller frees) and loads its problems (*set, caller frees with
 * ks_problem_set_free). Returns 0, or prints why to stderr as "<prog>: ..." and returns
 * KS_EXIT_DATAERR: no folder, an unreadable one, or (need_some) one without a valid problem.
 * Problems that fail to load are in (*set)->errors for the command to report. */
int ks_cli_refs_load(ks_problem_set **set, char **refs, const ks_cli_refs *o,
		     const char *prog, int need_some);

/* Parses an option's unsigned number: digits only (no sign, no spaces: strtoull would take "-1" as
 * 2^64-1), decimal or, where hex is set, 0x-hexadecimal; no wrap-around; at most max. Returns 0,
 * or -1 with *out unchanged. */
int ks_cli_parse_u64(uint64_t *out, const char *s, uint64_t max, int hex);

/* The largest device ordinal an option accepts (--device, --devices). */
#define KS_CLI_MAX_DEVICE 1023

/* Parses --device N of the commands that use one GPU (baseline, calibrate, check-refs): digits
 * only, 0 to KS_CLI_MAX_DEVICE. Returns -1 (nothing stored) for anything else. */
int ks_cli_device_parse(int *out, const char *arg);

/* Parses the value of --color[=WHEN]: "always" or none (a bare --color) 1, "never" 0, "auto" -1
 * (decide by the terminal). Returns -1 (nothing stored) for anything else. */
int ks_cli_color_parse(int *out, const char *when);

/* Whether to colour what goes to fd: an explicit choice (0, 1) wins; auto (-1) colours a terminal
 * unless NO_COLOR is set and not empty (no-color.org). */
int ks_cli_color_use(int choice, int fd);

#endif
