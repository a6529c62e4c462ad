#include "session/scoreopts.h"
#include "util/numparse.h"
#include "run/device.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "load/plan.h"
#include "nvtool/nvtool.h"
#include "nvtool/sanitize.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ks_scoreopts_init(ks_scoreopts *o)
{
	ks_pipeline_options pi = KS_PIPELINE_OPTIONS_INIT;
	ks_upload_options ui = KS_UPLOAD_OPTIONS_INIT;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	memset(o, 0, sizeof(*o));
	o->pipeline = pi;
	o->up = ui;
	o->sanitize = -1;
	/* the one default known only at run time */
	o->pipeline.compile.jobs = ncpu < 1 ? 1 : (int)ncpu;
}

int ks_scoreopts_parse_devices(ks_pipeline_options *o, const char *s)
{
	int dev[KS_PIPELINE_MAX_LANES];
	size_t n = 0;
	if (!strcmp(s, "all")) {
		o->devices_all = 1;
		o->ndevices = 0;
		o->device = 0;
		return 0;
	}
	for (;;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char item[8] = "";
		uint64_t v = 0;
		if (len == 0 || len >= sizeof(item) || n == KS_PIPELINE_MAX_LANES)
			return -1;
		memcpy(item, s, len);
		if (ks_numparse_u64(&v, item, KS_DEVICE_MAX_ORDINAL, 0) < 0)
			return -1;
		dev[n++] = (int)v;
		if (!end)
			break;
		s = end + 1;
	}
	memcpy(o->devices, dev, n * sizeof(dev[0]));
	o->ndevices = n;
	o->device = dev[0];
	o->devices_all = 0;
	return 0;
}

/* -k: comma-separated k values; every item a number from 1 to 100000, none empty, none twice. */
static int parse_ks(ks_pipeline_options *o, const char *s)
{
	int ks[KS_PIPELINE_MAX_KS];
	size_t n = 0, i;
	for (;;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char item[16] = "";
		uint64_t v = 0;
		if (len == 0)
			return ks_error_set(KS_EINVALID, "-k has an empty item: give a list of positive "
					    "integers like 1,5,10");
		if (len < sizeof(item))
			memcpy(item, s, len);
		if (len >= sizeof(item) || ks_numparse_u64(&v, item, 100000, 0) < 0 || v < 1)
			return ks_error_set(KS_EINVALID, "-k: \"%.*s\" is not an integer from 1 to 100000",
					    (int)(len > 20 ? 20 : len), s);
		for (i = 0; i < n; i++)
			if (ks[i] == (int)v)
				return ks_error_set(KS_EINVALID, "-k lists %d twice", ks[i]);
		if (n == sizeof(ks) / sizeof(ks[0]))
			return ks_error_set(KS_EINVALID, "-k takes at most %zu values", n);
		ks[n++] = (int)v;
		if (!end)
			break;
		s = end + 1;
	}
	memcpy(o->ks, ks, n * sizeof(ks[0]));
	o->nks = n;
	return 0;
}

/* The real architectures NVRTC has ever targeted (CUBIN); which of them a given NVRTC supports is
 * its own business (CUDA 13 dropped everything below sm_75), reported as a compile error. */
static const int known_sm[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101,
				103, 110, 120, 121 };

/* sm_<major><minor> from known_sm, with an optional `a` (arch-specific, sm_90 and later) or `f`
 * (family, sm_100 and later) suffix. Anything else ("sm_1", "sm_90a;rm", "compute_90") is a usage
 * error here rather than a compile error charged to every kernel later. */
static int check_arch(const char *arch)
{
	const char *p;
	uint64_t v = 0;
	char digits[8];
	size_t n = 0, i;
	if (strncmp(arch, "sm_", 3) != 0)
		goto bad;
	p = arch + 3;
	while (p[n] >= '0' && p[n] <= '9' && n < sizeof(digits) - 1) {
		digits[n] = p[n];
		n++;
	}
	digits[n] = '\0';
	if (n < 2 || n > 3 || digits[0] == '0' || ks_numparse_u64(&v, digits, 999, 0) < 0)
		goto bad;
	p += n;
	if (*p && (p[1] || (*p != 'a' && *p != 'f') || (*p == 'a' && v < 90) || (*p == 'f' && v < 100)))
		goto bad;
	for (i = 0; i < sizeof(known_sm) / sizeof(known_sm[0]); i++)
		if ((uint64_t)known_sm[i] == v)
			return 0;
bad:
	return ks_error_set(KS_EINVALID, "--arch \"%.40s\" is not a GPU architecture: give a real one, "
			    "sm_<major><minor> with an optional a or f suffix (sm_80, sm_89, sm_90a, sm_100a, "
			    "sm_120f; CUBIN, never PTX)", arch);
}

/* BYTES with an optional K, M, G or T suffix (powers of 1024, "KiB" etc. accepted too). */
static int parse_bytes(uint64_t *out, const char *s, uint64_t max)
{
	char num[24];
	size_t n = strspn(s, "0123456789"), shift = 0;
	const char *suf = s + n;
	uint64_t v;
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (*suf) {
		const char *units = "KMGT", *u = strchr(units, toupper((unsigned char)*suf));
		if (!u)
			return -1;
		shift = 10 * (size_t)(u - units + 1);
		suf++;
		if (*suf && strcmp(suf, "iB") && strcmp(suf, "B"))
			return -1;
	}
	if (ks_numparse_u64(&v, num, UINT64_MAX, 0) < 0 || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	v <<= shift;
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int ks_scoreopts_parse(ks_scoreopts *o, int code, const char *arg)
{
	ks_pipeline_options *po = &o->pipeline;
	char *end = NULL;
	uint64_t u;
	double v;
	switch (code) {
	case 'r':
		o->refs = arg;
		return 1;
	case KS_SO_SUITE:
		po->suite = arg;
		return 1;
	case 'k':
		if (parse_ks(po, arg) < 0)
			return KS_EINVALID;
		return 1;
	case KS_SO_COMPILE_ONLY:
		po->compile_only = 1;
		return 1;
	case KS_SO_REQUIRE_GPU:
		po->require_gpu = 1;
		return 1;
	case KS_SO_ARCH:
		if (check_arch(arg) < 0)
			return KS_EINVALID;
		po->compile.arch = arg;
		return 1;
	case KS_SO_DEVICE:
	case KS_SO_DEVICES:
		if (ks_scoreopts_parse_devices(po, arg) < 0)
			return ks_error_set(KS_EINVALID, "%s takes a device ordinal from 0 to 1023, a comma-separated "
					    "list of them (one lane each, at most %d; a GPU listed twice runs two "
					    "lanes), or all", code == KS_SO_DEVICE ? "--device" : "--devices",
					    KS_PIPELINE_MAX_LANES);
		return 1;
	case KS_SO_MIXED_GPUS:
		po->mixed_gpus = 1;
		return 1;
	case KS_SO_SEED:
		if (ks_numparse_u64(&po->seed, arg, UINT64_MAX, 1) < 0)
			return ks_error_set(KS_EINVALID, "--seed takes an integer from 0 to 2^64-1 (decimal or "
					    "0x-hexadecimal)");
		o->seed_given = 1;
		return 1;
	case 'j':
		if (ks_numparse_u64(&u, arg, KS_SCOREOPTS_MAX_JOBS, 0) < 0 || u < 1)
			return ks_error_set(KS_EINVALID, "--jobs takes a number from 1 to %d", KS_SCOREOPTS_MAX_JOBS);
		po->compile.jobs = (int)u;
		return 1;
	case KS_SO_MAX_SCRATCH:
		if (parse_bytes(&u, arg, KS_SCOREOPTS_MAX_SCRATCH_CAP) < 0 || u < 1)
			return ks_error_set(KS_EINVALID, "--max-scratch takes bytes from 1 to 1T, with an "
					    "optional K, M, G or T suffix (powers of 1024)");
		po->runner.limits.max_scratch_bytes = u;
		return 1;
	case KS_SO_CACHE_DIR:
		o->cache_dir = arg;
		return 1;
	case KS_SO_NO_CACHE:
		o->no_cache = 1;
		return 1;
	case KS_SO_KERNEL_TIMEOUT:
	case KS_SO_COMPILE_TIMEOUT:
	case KS_SO_TRACE_TIMEOUT:
		v = strtod(arg, &end);
		if (*end || !(v > 0) || v > 86400)
			return ks_error_set(KS_EINVALID, "%s takes seconds", code == KS_SO_KERNEL_TIMEOUT ?
					    "--kernel-timeout" : code == KS_SO_TRACE_TIMEOUT ? "--trace-timeout"
											      : "--compile-timeout");
		if (code == KS_SO_KERNEL_TIMEOUT)
			po->runner.kernel_timeout_s = v;
		else if (code == KS_SO_TRACE_TIMEOUT)
			po->runner.trace_timeout_s = v;
		else
			po->compile.timeout_s = v;
		return 1;
	case KS_SO_COMPILE_MEMORY:
		if (ks_numparse_u64(&u, arg, 1u << 20, 0) < 0 || u < 256)
			return ks_error_set(KS_EINVALID, "--compile-memory takes MiB from 256 to 1048576");
		po->compile.memory_mb = (size_t)u;
		return 1;
	case KS_SO_NO_TIMING:
		po->no_timing = 1;
		return 1;
	case KS_SO_CONFIG:
		po->config = arg;
		return 1;
	case KS_SO_BASELINE:
		/* "reference[=DIR]": the references' times (refbase.h); any other value names a file of
		 * stored golden times (./reference for a file of that name) */
		if (arg && !strncmp(arg, "reference", 9) && (!arg[9] || arg[9] == '=')) {
			if (!arg[9] || !arg[10])
				return ks_error_set(KS_EINVALID, "--baseline reference needs the folder of the "
						    "reference implementations: --baseline reference=DIR (a "
						    "TritonBench-G folder as GEAK-eval ships it: reference/<problem>.py)");
			po->reference_dir = arg + 10;
			po->use_baseline = 0;
			po->baseline = NULL;
			return 1;
		}
		po->use_baseline = 1;
		po->baseline = arg;
		po->reference_dir = NULL;
		return 1;
	case KS_SO_RECALIBRATE:
		po->recalibrate = 1;
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
		po->nvtool.profile = w;
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
	if (o->pipeline.compile_only && o->pipeline.require_gpu)
		return ks_error_set(KS_EINVALID, "--compile-only and --require-gpu contradict each other");
	if (!o->seed_given)
		o->pipeline.seed = random_seed();
	return 0;
}

/* Bytes as --max-scratch takes them, with the largest suffix that keeps them whole ("4G"). */
static void format_bytes(char *out, size_t n, uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;
	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, n, "%llu", (unsigned long long)v);
	else
		snprintf(out, n, "%llu%c", (unsigned long long)v, units[u]);
}

/* Every default below is printed from the constant its INIT macro uses (pipeline.h and the
 * headers it nests), so the help cannot drift from the behaviour (tests/test_scoreopts.c). */
void ks_scoreopts_usage(FILE *f)
{
	char scratch[32];
	format_bytes(scratch, sizeof(scratch), KS_PLAN_DEFAULT_MAX_SCRATCH);
	fprintf(f, "  -r, --refs DIR            reference problems (default: $KSCORE_REFS, ./reference_tests,\n"
		"                            or the installed copy)\n"
		"      --suite NAME          only match problems of this suite\n"
		"  -k, --pass-at-k LIST      comma-separated k values for pass@k (default: %d)\n"
		"      --compile-only        compile only, run nothing (for machines without a GPU)\n"
		"      --require-gpu         fail (exit 69) instead of falling back to compile-only\n"
		"      --arch ARCH           NVRTC target when no GPU decides it (default: %s)\n"
		"      --devices LIST|all    GPUs to score on, one lane per item: ordinals (0,1), a GPU\n"
		"                            twice (0,0: two lanes on one GPU, timings marked shared),\n"
		"                            or all (default: %d; --device N is the same option)\n"
		"      --mixed-gpus          allow GPUs of different models in one run\n"
		"      --seed N              base seed for inputs (default: random; recorded in score.json)\n"
		"  -j, --jobs N              parallel compiles (default: number of CPUs)\n"
		"      --cache-dir DIR       cache folder (default: $XDG_CACHE_HOME/kscore)\n"
		"      --no-cache            do not read or write the compiled-kernel cache\n"
		"      --kernel-timeout SEC  a kernel run longer than this is killed (default: %g)\n"
		"      --compile-timeout SEC a compile longer than this is killed (default: %g)\n"
		"      --trace-timeout SEC   one case of a Triton answer's trace (its compiles and autotuning\n"
		"                            included) longer than this is killed (default: %g; the\n"
		"                            limit starts again at each case)\n"
		"      --compile-memory MIB  address-space limit of a compile (default: %zu)\n"
		"      --max-scratch BYTES   scratch memory one launch plan may ask for, all its buffers\n"
		"                            together; K, M, G, T suffixes (default: %s)\n",
		KS_PIPELINE_DEFAULT_K, KS_COMPILE_DEFAULT_ARCH, KS_PIPELINE_DEFAULT_DEVICE,
		KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S, KS_COMPILE_DEFAULT_TIMEOUT_S, KS_TRACER_DEFAULT_TIMEOUT,
		(size_t)KS_COMPILE_DEFAULT_MEMORY_MB, scratch);
	fputs("      --no-timing           check correctness only: no timing, no speedups\n"
	      "      --config FILE         timing and roofline settings (default: scoring/scoring.json)\n"
	      "      --recalibrate         measure the GPU's ceilings again instead of using the cache\n"
	      "      --baseline[=FILE]     use golden times stored by `score baseline` instead of timing\n"
	      "                            the golden kernel live (default file: the device's, in the cache)\n"
	      "      --baseline reference=DIR  speedups and score over the problems' reference\n"
	      "                            implementations in DIR (a TritonBench-G folder), scored first\n"
	      "                            in the same run by the same protocol\n"
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
		"                            speed; WHEN: %s (slower than golden; the default), all, %s\n",
		KS_SANITIZE_DEFAULT_TOOLS, KS_SANITIZE_DEFAULT_SCORE ? "on" : "off",
		KS_SANITIZE_DEFAULT_BATCH ? "on" : "off", ks_profile_when_name(KS_PROFILE_SLOW),
		ks_profile_when_name(KS_PROFILE_NEVER));
}

void ks_scoreopts_pipeline(ks_scoreopts *o, const char *refs, const char *cache_dir)
{
	ks_pipeline_options *po = &o->pipeline;
	po->refs = refs;
	po->compile.cache_dir = cache_dir;
	po->nvtool.sanitize = 0;
	if (o->sanitize > 0 || (o->sanitize < 0 && KS_SANITIZE_DEFAULT_SCORE)) {
		unsigned mask = o->sanitize_tools;
		if (!mask && ks_sanitize_tools_parse(&mask, KS_SANITIZE_DEFAULT_TOOLS) < 0)
			mask = KS_SAN_MEMCHECK;
		po->nvtool.sanitize = mask;
	}
}

int ks_scoreopts_slurm_gpus(const ks_scoreopts *so)
{
	const ks_pipeline_options *o = &so->pipeline;
	int most = o->device;
	size_t i;
	if (o->compile_only)
		return 0;
	if (o->devices_all)
		return -1;
	for (i = 0; i < o->ndevices; i++)
		if (o->devices[i] > most)
			most = o->devices[i];
	return most + 1;
}
