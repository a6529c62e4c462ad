#include "scoreopts.h"
#include "errors.h"
#include "fsutil.h"
#include "mem.h"
#include "nvtool.h"
#include "sanitize.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ks_scoreopts_init(ks_scoreopts *o)
{
	ks_upload_options ui = KS_UPLOAD_OPTIONS_INIT;
	memset(o, 0, sizeof(*o));
	o->up = ui;
	o->arch = "sm_90a";
	o->ks[0] = 1;
	o->nks = 1;
	o->kernel_timeout = 10;
	o->compile_timeout = 60;
	o->compile_memory = 8192;
	o->sanitize = -1;
	o->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs < 1)
		o->jobs = 1;
}

static int parse_ks(ks_scoreopts *o, const char *s)
{
	char *dup = ks_strdup(s), *tok, *save = NULL;
	int rc = 0;
	o->nks = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v < 1 || v > 100000 || o->nks == 32) {
			rc = -1;
			break;
		}
		o->ks[o->nks++] = (int)v;
	}
	ks_free(dup);
	return rc == 0 && o->nks ? 0 : -1;
}

int ks_scoreopts_parse(ks_scoreopts *o, int code, const char *arg)
{
	char *end = NULL;
	double v;
	switch (code) {
	case 'r':
		o->refs = arg;
		return 1;
	case KS_SO_SUITE:
		o->suite = arg;
		return 1;
	case 'k':
		if (parse_ks(o, arg) < 0)
			return ks_error_set(KS_EINVALID, "-k needs a list of positive integers like 1,5,10");
		return 1;
	case KS_SO_COMPILE_ONLY:
		o->compile_only = 1;
		return 1;
	case KS_SO_REQUIRE_GPU:
		o->require_gpu = 1;
		return 1;
	case KS_SO_ARCH:
		if (strncmp(arg, "sm_", 3))
			return ks_error_set(KS_EINVALID, "--arch takes a real architecture like sm_90a "
					    "(CUBIN, not PTX)");
		o->arch = arg;
		return 1;
	case KS_SO_DEVICE:
		errno = 0;
		o->device = (int)strtol(arg, &end, 10);
		if (*end || !*arg || errno || o->device < 0)
			return ks_error_set(KS_EINVALID, "--device takes a device ordinal");
		return 1;
	case KS_SO_SEED:
		errno = 0;
		o->seed = strtoull(arg, &end, 0);
		if (*end || !*arg || errno)
			return ks_error_set(KS_EINVALID, "--seed takes an integer");
		o->seed_given = 1;
		return 1;
	case 'j':
		o->jobs = (int)strtol(arg, &end, 10);
		if (*end || o->jobs < 1 || o->jobs > 256)
			return ks_error_set(KS_EINVALID, "--jobs takes a number from 1 to 256");
		return 1;
	case KS_SO_CACHE_DIR:
		o->cache_dir = arg;
		return 1;
	case KS_SO_NO_CACHE:
		o->no_cache = 1;
		return 1;
	case KS_SO_KERNEL_TIMEOUT:
	case KS_SO_COMPILE_TIMEOUT:
		v = strtod(arg, &end);
		if (*end || !(v > 0) || v > 86400)
			return ks_error_set(KS_EINVALID, "%s takes seconds", code == KS_SO_KERNEL_TIMEOUT ?
					    "--kernel-timeout" : "--compile-timeout");
		if (code == KS_SO_KERNEL_TIMEOUT)
			o->kernel_timeout = v;
		else
			o->compile_timeout = v;
		return 1;
	case KS_SO_COMPILE_MEMORY:
		o->compile_memory = (size_t)strtoul(arg, &end, 10);
		if (*end || o->compile_memory < 256)
			return ks_error_set(KS_EINVALID, "--compile-memory takes MiB (at least 256)");
		return 1;
	case KS_SO_NO_TIMING:
		o->no_timing = 1;
		return 1;
	case KS_SO_CONFIG:
		o->config = arg;
		return 1;
	case KS_SO_BASELINE:
		o->use_baseline = 1;
		o->baseline = arg;
		return 1;
	case KS_SO_RECALIBRATE:
		o->recalibrate = 1;
		return 1;
	case KS_SO_UPLOAD:
		o->upload = 1;
		return 1;
	case KS_SO_ENDPOINT:
		o->up.endpoint = arg;
		return 1;
	case KS_SO_UPLOAD_MODE:
		if (!strcmp(arg, "native"))
			o->up.mode = KS_UPLOAD_NATIVE;
		else if (!strcmp(arg, "gradio"))
			o->up.mode = KS_UPLOAD_GRADIO;
		else
			return ks_error_set(KS_EINVALID, "--upload-mode takes native or gradio");
		return 1;
	case KS_SO_UPLOAD_CONFIG:
		o->upload_config = arg;
		return 1;
	case KS_SO_TOKEN_FILE:
		o->up.token_file = arg;
		return 1;
	case KS_SO_CA_BUNDLE:
		o->up.ca_bundle = arg;
		return 1;
	case KS_SO_SPOOL:
		o->up.spool_dir = arg;
		return 1;
	case KS_SO_SANITIZE:
		if (arg && ks_sanitize_tools_parse(&o->sanitize_tools, arg) < 0)
			return KS_EINVALID;
		o->sanitize = 1;
		return 1;
	case KS_SO_NO_SANITIZE:
		o->sanitize = 0;
		return 1;
	case KS_SO_PROFILE: {
		ks_profile_when w;
		if (ks_profile_when_parse(&w, arg) < 0)
			return KS_EINVALID;
		o->profile = (int)w;
		return 1;
	}
	default:
		return 0;
	}
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &s, sizeof(s)) != (ssize_t)sizeof(s))
			s = 0;
		close(fd);
	}
	if (!s)
		s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return s;
}

int ks_scoreopts_finish(ks_scoreopts *o)
{
	if (o->compile_only && o->require_gpu)
		return ks_error_set(KS_EINVALID, "--compile-only and --require-gpu contradict each other");
	if (!o->seed_given)
		o->seed = random_seed();
	return 0;
}

void ks_scoreopts_usage(FILE *f)
{
	fputs("  -r, --refs DIR            reference problems (default: $KSCORE_REFS, ./reference_tests,\n"
	      "                            or the installed copy)\n"
	      "      --suite NAME          only match problems of this suite\n"
	      "  -k, --pass-at-k LIST      comma-separated k values for pass@k (default: 1)\n"
	      "      --compile-only        compile only, run nothing (for machines without a GPU)\n"
	      "      --require-gpu         fail (exit 69) instead of falling back to compile-only\n"
	      "      --arch ARCH           NVRTC target when no GPU decides it (default: sm_90a)\n"
	      "      --device N            CUDA device ordinal (default: 0)\n"
	      "      --seed N              base seed for inputs (default: random; recorded in score.json)\n"
	      "  -j, --jobs N              parallel compiles (default: number of CPUs)\n"
	      "      --cache-dir DIR       cache folder (default: $XDG_CACHE_HOME/kscore)\n"
	      "      --no-cache            do not read or write the compiled-kernel cache\n"
	      "      --kernel-timeout SEC  a kernel run longer than this is killed (default: 10)\n"
	      "      --compile-timeout SEC a compile longer than this is killed (default: 60)\n"
	      "      --compile-memory MIB  address-space limit of a compile (default: 8192)\n"
	      "      --no-timing           check correctness only: no timing, no speedups\n"
	      "      --config FILE         timing and roofline settings (default: scoring/scoring.json)\n"
	      "      --recalibrate         measure the GPU's ceilings again instead of using the cache\n"
	      "      --baseline[=FILE]     use golden times stored by `score baseline` instead of timing\n"
	      "                            the golden kernel live (default file: the device's, in the cache)\n"
	      "      --upload              upload each result to the leaderboard (see score upload --help)\n"
	      "      --endpoint URL        leaderboard endpoint (default: from the upload config)\n"
	      "      --upload-mode MODE    native or gradio\n"
	      "      --upload-config FILE  upload configuration (default: scoring/upload.json)\n"
	      "      --token-file FILE     file holding the upload token (else $KSCORE_UPLOAD_TOKEN)\n"
	      "      --ca-bundle FILE      CA certificates for the endpoint\n"
	      "      --spool DIR           where failed uploads wait for `score upload --pending`\n", f);
	fprintf(f, "      --sanitize[=TOOLS]    run each correct kernel once more under compute-sanitizer (TOOLS:\n"
		"                            memcheck,racecheck,initcheck,synccheck or all; default %s);\n"
		"                            a finding fails the kernel (reason sanitizer)\n"
		"      --no-sanitize         no sanitizer stage (default: `score` %s, `score batch` %s)\n"
		"      --profile[=WHEN]      after timing, profile kernels with Nsight Compute and explain their\n"
		"                            speed; WHEN: slow (slower than golden; the default), all, never\n",
		KS_SANITIZE_DEFAULT_TOOLS, KS_SANITIZE_DEFAULT_SCORE ? "on" : "off",
		KS_SANITIZE_DEFAULT_BATCH ? "on" : "off");
}

char *ks_scoreopts_find_refs(const char *given)
{
	const char *env = getenv("KSCORE_REFS");
	char *exe, *c[3];
	char *found = NULL;
	int i;
	if (given)
		return ks_strdup(given);
	if (env && *env)
		return ks_strdup(env);
	if (ks_fs_is_dir("reference_tests"))
		return ks_strdup("reference_tests");
	exe = ks_exe_dir();
	c[0] = ks_asprintf("%s/../share/kscore/reference_tests", exe);
	c[1] = ks_asprintf("%s/../reference_tests", exe);
	c[2] = ks_asprintf("%s/../../reference_tests", exe);
	for (i = 0; i < 3; i++) {
		if (!found && ks_fs_is_dir(c[i]))
			found = ks_strdup(c[i]);
		ks_free(c[i]);
	}
	ks_free(exe);
	return found;
}

char *ks_scoreopts_default_cache(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (x && *x)
		return ks_asprintf("%s/kscore", x);
	if (h && *h)
		return ks_asprintf("%s/.cache/kscore", h);
	return NULL;
}

void ks_scoreopts_pipeline(ks_pipeline_options *po, const ks_scoreopts *o, const char *refs,
			   const char *cache_dir)
{
	ks_pipeline_options init = KS_PIPELINE_OPTIONS_INIT;
	*po = init;
	po->refs = refs;
	po->suite = o->suite;
	po->compile_only = o->compile_only;
	po->require_gpu = o->require_gpu;
	po->arch = o->arch;
	po->device = o->device;
	po->jobs = o->jobs;
	po->cache_dir = cache_dir;
	po->kernel_timeout_s = o->kernel_timeout;
	po->compile_timeout_s = o->compile_timeout;
	po->compile_memory_mb = o->compile_memory;
	po->seed = o->seed;
	po->ks = o->ks;
	po->nks = o->nks;
	po->no_timing = o->no_timing;
	po->config = o->config;
	po->recalibrate = o->recalibrate;
	po->use_baseline = o->use_baseline;
	po->baseline = o->baseline;
	po->progress = 0;
	if (o->sanitize > 0 || (o->sanitize < 0 && KS_SANITIZE_DEFAULT_SCORE)) {
		unsigned mask = o->sanitize_tools;
		if (!mask && ks_sanitize_tools_parse(&mask, KS_SANITIZE_DEFAULT_TOOLS) < 0)
			mask = KS_SAN_MEMCHECK;
		po->sanitize = mask;
	}
	po->profile = o->profile;
}
