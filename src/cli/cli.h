/* cli: what the commands (src/cmd_*.c) share: exit codes, usage errors, number and device option
 * values, the options of every command that works on the reference problems, and the colour
 * decision. Only commands parse argv; a stage module includes this only for the exit-code enum
 * (ks_upload_status_exit). */
#ifndef KS_CLI_H
#define KS_CLI_H

#include <stdint.h>
#include "util/errors.h"
#include "util/exitcode.h"
#include "run/device.h"
#include "load/problem.h"
#include "util/version.h"


/* An option whose argument is optional takes it only as "--opt=value" in getopt_long; for the
 * values that start with `word` ("--baseline reference=DIR"), "--opt value" is joined into
 * "--opt=value" in argv, before getopt_long sees it (argc shrinks by one for each). The joined
 * elements live in static storage (KS_CLI_MAX_JOINED of them; a longer one is left alone, and
 * getopt then reports it as it is). Stops at "--". */
#define KS_CLI_MAX_JOINED 4
void ks_cli_join_optional(int *argc, char **argv, const char *opt, const char *word);

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


/* The largest device ordinal an option accepts (--device, --devices). */

/* Parses --device N of the commands that use one GPU (baseline, calibrate, check-refs): digits
 * only, 0 to KS_DEVICE_MAX_ORDINAL. Returns -1 (nothing stored) for anything else. */
int ks_cli_device_parse(int *out, const char *arg);

/* Parses the value of --color[=WHEN]: "always" or none (a bare --color) 1, "never" 0, "auto" -1
 * (decide by the terminal). Returns -1 (nothing stored) for anything else. */
int ks_cli_color_parse(int *out, const char *when);

/* Whether to colour what goes to fd: an explicit choice (0, 1) wins; auto (-1) colours a terminal
 * unless NO_COLOR is set and not empty (no-color.org). */
int ks_cli_color_use(int choice, int fd);

#endif
