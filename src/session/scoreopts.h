/* scoreopts: the scoring and upload options that every scoring command accepts (`score`, `score
 * batch`), parsed once, with the same names, meanings, defaults and messages, and turned into
 * ks_pipeline_options. A command lists KS_SCOREOPTS_LONGOPTS among its own getopt_long options
 * and KS_SCOREOPTS_SHORTOPTS in its short-option string, and hands every option it does not
 * know itself to ks_scoreopts_parse. */
#ifndef KS_SCOREOPTS_H
#define KS_SCOREOPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "session/pipeline.h"
#include "upload/upload.h"

/* getopt codes of the long-only options; far from ASCII so commands keep their own small codes */
enum {
	KS_SO_SUITE = 0x1000,
	KS_SO_COMPILE_ONLY,
	KS_SO_REQUIRE_GPU,
	KS_SO_ARCH,
	KS_SO_DEVICE,
	KS_SO_SEED,
	KS_SO_CACHE_DIR,
	KS_SO_NO_CACHE,
	KS_SO_KERNEL_TIMEOUT,
	KS_SO_TRACE_TIMEOUT,
	KS_SO_COMPILE_TIMEOUT,
	KS_SO_COMPILE_MEMORY,
	KS_SO_UPLOAD,
	KS_SO_ENDPOINT,
	KS_SO_UPLOAD_MODE,
	KS_SO_UPLOAD_CONFIG,
	KS_SO_TOKEN_FILE,
	KS_SO_CA_BUNDLE,
	KS_SO_SPOOL,
	KS_SO_NO_TIMING,
	KS_SO_CONFIG,
	KS_SO_RECALIBRATE,
	KS_SO_BASELINE,
	KS_SO_MAX_SCRATCH,
	KS_SO_DEVICES,
	KS_SO_MIXED_GPUS,
	KS_SO_SANITIZE,
	KS_SO_NO_SANITIZE,
	KS_SO_PROFILE
};

/* The most parallel compiles --jobs takes. */
#define KS_SCOREOPTS_MAX_JOBS 256

/* The largest --max-scratch: 1 TiB. */
#define KS_SCOREOPTS_MAX_SCRATCH_CAP (1ull << 40)

#define KS_SCOREOPTS_SHORTOPTS "r:k:j:"

#define KS_SCOREOPTS_LONGOPTS                                                                \
	{ "refs", required_argument, 0, 'r' },                                               \
	{ "suite", required_argument, 0, KS_SO_SUITE },                                      \
	{ "pass-at-k", required_argument, 0, 'k' },                                          \
	{ "compile-only", no_argument, 0, KS_SO_COMPILE_ONLY },                              \
	{ "require-gpu", no_argument, 0, KS_SO_REQUIRE_GPU },                                \
	{ "arch", required_argument, 0, KS_SO_ARCH },                                        \
	{ "device", required_argument, 0, KS_SO_DEVICE },                                    \
	{ "devices", required_argument, 0, KS_SO_DEVICES },                                  \
	{ "mixed-gpus", no_argument, 0, KS_SO_MIXED_GPUS },                                  \
	{ "seed", required_argument, 0, KS_SO_SEED },                                        \
	{ "jobs", required_argument, 0, 'j' },                                               \
	{ "cache-dir", required_argument, 0, KS_SO_CACHE_DIR },                              \
	{ "no-cache", no_argument, 0, KS_SO_NO_CACHE },                                      \
	{ "kernel-timeout", required_argument, 0, KS_SO_KERNEL_TIMEOUT },                    \
	{ "trace-timeout", required_argument, 0, KS_SO_TRACE_TIMEOUT },                      \
	{ "no-timing", no_argument, 0, KS_SO_NO_TIMING },                                    \
	{ "config", required_argument, 0, KS_SO_CONFIG },                                    \
	{ "recalibrate", no_argument, 0, KS_SO_RECALIBRATE },                                \
	{ "baseline", optional_argument, 0, KS_SO_BASELINE },                                \
	{ "compile-timeout", required_argument, 0, KS_SO_COMPILE_TIMEOUT },                  \
	{ "compile-memory", required_argument, 0, KS_SO_COMPILE_MEMORY },                    \
	{ "max-scratch", required_argument, 0, KS_SO_MAX_SCRATCH },                          \
	{ "upload", no_argument, 0, KS_SO_UPLOAD },                                          \
	{ "endpoint", required_argument, 0, KS_SO_ENDPOINT },                                \
	{ "upload-mode", required_argument, 0, KS_SO_UPLOAD_MODE },                          \
	{ "upload-config", required_argument, 0, KS_SO_UPLOAD_CONFIG },                      \
	{ "token-file", required_argument, 0, KS_SO_TOKEN_FILE },                            \
	{ "ca-bundle", required_argument, 0, KS_SO_CA_BUNDLE },                              \
	{ "spool", required_argument, 0, KS_SO_SPOOL },                                      \
	{ "sanitize", optional_argument, 0, KS_SO_SANITIZE },                                \
	{ "no-sanitize", no_argument, 0, KS_SO_NO_SANITIZE },                                \
	{ "profile", optional_argument, 0, KS_SO_PROFILE }

typedef struct {
	/* Every pipeline setting, parsed straight into place (pipeline.h): --suite, --compile-only,
	 * --require-gpu, -k, --seed, the timing and device options, --arch/--jobs/--compile-* in
	 * .compile, --kernel-timeout/--max-scratch in .runner, --profile in .nvtool. What the command
	 * resolves or derives (refs, the cache folder, the sanitizer tools) ks_scoreopts_pipeline
	 * fills in. */
	ks_pipeline_options pipeline;
	const char *refs;          /* -r as given; the command resolves it (paths.h) */
	const char *cache_dir;     /* --cache-dir as given; NULL: the default cache */
	int no_cache;
	int seed_given;            /* else ks_scoreopts_finish draws pipeline.seed */
	int sanitize;              /* --sanitize 1, --no-sanitize 0, neither -1 (the command's default) */
	unsigned sanitize_tools;   /* --sanitize=LIST (sanitize.h mask); 0: the default tools */
	int upload;
	const char *upload_config;
	ks_upload_options up;      /* --endpoint, --upload-mode, --token-file, --ca-bundle, --spool */
} ks_scoreopts;

/* The defaults: KS_PIPELINE_OPTIONS_INIT (pass@1, sm_90a, 10 s kernels, 60 s and 8 GiB compiles,
 * 4 GiB of scratch per plan), one compile job per CPU, KS_UPLOAD_OPTIONS_INIT. */
void ks_scoreopts_init(ks_scoreopts *o);

/* Handles one getopt_long result `code` with its argument. Returns 1 when it was a scoring or
 * upload option (stored in *o), 0 when it is not one (the caller handles it), KS_EINVALID with a
 * message ("--jobs takes a number from 1 to 256") for a bad value: a usage error. Numbers are
 * digits only and range-checked (no sign, no wrap-around); --arch must name a real architecture
 * (sm_<major><minor> with an optional a/f suffix); -k items must be distinct. Arguments are
 * borrowed: they must outlive *o (argv does). */
int ks_scoreopts_parse(ks_scoreopts *o, int code, const char *arg);

/* The value of --devices (or --device) into o: "all" (devices_all), or 1 to KS_PIPELINE_MAX_LANES
 * ordinals from 0 to 1023, comma-separated, none empty, repeats allowed (devices, ndevices, and
 * device the first). Returns 0 or -1; *o is changed only on success. Also for `score calibrate`. */
int ks_scoreopts_parse_devices(ks_pipeline_options *o, const char *s);

/* Checks the options together (--compile-only with --require-gpu is a usage error, KS_EINVALID)
 * and draws a random seed when none was given. */
int ks_scoreopts_finish(ks_scoreopts *o);

/* Prints the help lines of these options (two-space indented, as `score --help`). */
void ks_scoreopts_usage(FILE *f);

/* What a Slurm shard of `score batch --slurm` asks for with these options: 0 GPUs (compile-only),
 * -1 (a whole node, --devices all), else enough GPUs for the highest ordinal listed. */
int ks_scoreopts_slurm_gpus(const ks_scoreopts *o);

/* Completes o->pipeline with what the command resolved, refs and cache_dir (borrowed; NULL
 * cache_dir: no compile cache), and with what is derived: the sanitizer tools from --sanitize,
 * --no-sanitize and KS_SANITIZE_DEFAULT_SCORE (a command with another default sets o->sanitize
 * first). Then &o->pipeline is the session's options; progress is left as it is (the caller
 * decides). */
void ks_scoreopts_pipeline(ks_scoreopts *o, const char *refs, const char *cache_dir);

#endif
