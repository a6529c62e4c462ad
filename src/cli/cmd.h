/* cmd: the commands of `score`, one file each (src/cmd_<command>.c), as git's builtin/. Each takes
 * its own argv (argv[0] is the command's name, not used), parses its options with getopt_long,
 * prints what it did and returns an exit code (cli.h: KS_EXIT_*). Commands call the stage modules;
 * no stage module sees argv. */
#ifndef KS_CMD_H
#define KS_CMD_H

#include <stdio.h>

/* score [OPTIONS] SUBMISSION... (src/cli/cmd_score.c), the default command: scores each SUBMISSION
 * into its result folder and prints a table (a JSON summary instead with --json). argv[0] is the
 * program's name here, as the options start at argv[1]. Exit codes: 0 every kernel correct, 1 some,
 * 2 none, 3 no GPU (compile-only results), 64 usage, 65 an input unreadable, 69 --require-gpu
 * without a usable GPU, 73 an output folder refused, 74 results not writable, 78 upload
 * configuration unusable. */
int ks_score_main(int argc, char **argv);

/* Prints the help of `score` to f: the synopsis of every command, then the options and exit
 * codes of the default command. Shared by `score --help` and ks_score_main's own --help. */
void ks_score_usage(FILE *f);

/* score upload [OPTIONS] RESULT_DIR...  /  score upload --pending [OPTIONS] (src/cli/cmd_upload.c).
 * Results go to stdout (a JSON summary instead with --json), retries and warnings to stderr. Exit
 * codes: 0 all uploaded (or already uploaded, or nothing pending), 1 some failed and were kept in
 * the spool (or the spool could not be read), 64 usage error, 65 a result folder unreadable or
 * invalid, 78 configuration error. Calls curl_global_init/cleanup itself. */
int ks_upload_main(int argc, char **argv);

/* score calibrate [--device N] [--cache-dir DIR] [--force] [--json] (src/cli/cmd_calibrate.c). Exit
 * codes: 0 measured or cached, 64 usage, 69 no usable GPU, 70 calibration failed. */
int ks_calibrate_main(int argc, char **argv);

/* score problems [--refs DIR] [--suite S] [--json] [--export-prompts FILE] (src/cli/cmd_problems.c).
 * Exit codes: 0 ok, 64 usage, 65 no valid problem, 74 FILE not writable. */
int ks_catalog_main(int argc, char **argv);

/* score check-refs [--refs DIR] [--suite S] [--compile-only] [--json FILE] [--device N]
 * (src/cli/cmd_check_refs.c). Exit codes: 0 every problem passes, 1 some fail, 65 no problem loads,
 * 69 no GPU (without --compile-only). */
int ks_refcheck_main(int argc, char **argv);

/* score baseline [--refs DIR] [--suite S] [--out FILE] [--device N] (src/cli/cmd_baseline.c). Exit
 * codes: 0 stored, 1 some problems failed, 65 no problem, 69 no GPU, 74 FILE not writable. */
int ks_baseline_main(int argc, char **argv);

/* score batch [OPTIONS] [MANIFEST] (src/cli/cmd_batch.c; the run is batch.h's). Exit codes: 0 every
 * team scored (or already scored), 1 some teams could not be scored (each is recorded with its
 * reason), 3 no GPU (compile-only results), 64 usage, 65 manifest invalid, 69 --require-gpu
 * without a usable GPU, 73 a results folder that is not kscore's, 74 results or the cache not
 * writable, 78 upload configuration unusable. */
int ks_batch_main(int argc, char **argv);

#endif
