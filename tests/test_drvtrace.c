/* Tests of the driver-level trace's reader (src/trace/drvtrace.c): the committed fixtures of
 * tests/fixtures/drvtrace/, hand-written traces in memory, and what the recording core writes
 * read back. */
#include "ktest.h"
#include "trace/cupti/drvrec.h"
#include "trace/drvtrace.h"
#include "util/errors.h"
#include "util/hash.h"
#include "util/mem.h"

static char *fixture(const char *name)
{
	return ks_asprintf("%s/tests/fixtures/drvtrace/%s", getenv("KSCORE_ROOT"), name);
}

static void test_a_recorded_forward_is_read_and_classified(void)
{
	char *dir = fixture("forward"), *why;
	ks_drvtrace t;
	const ks_drvtrace_launch *l;
	size_t i;
	KT_ASSERT_MSG(ks_drvtrace_read(&t, dir, NULL, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT(t.complete && !t.stopped);
	KT_EQ_INT(t.pid, 4242);
	KT_EQ_INT(t.nmodules, 1);
	KT_ASSERT(t.modules[0].elf);
	KT_EQ_INT(t.nallocs, 2);
	KT_ASSERT(t.allocs[1].freed && !t.allocs[0].freed);
	KT_EQ_INT(t.nlaunches, 2);
	KT_EQ_INT(t.marks, 2);
	KT_EQ_INT(t.syncs, 1);
	KT_EQ_INT(t.ncopies, 2);
	KT_EQ_STR(t.copies[0].kind, "htod");
	KT_EQ_INT(strlen(t.copies[0].data), 64);
	KT_EQ_STR(t.copies[1].kind, "set");
	KT_EQ_INT(t.copies[1].bytes, 1024);
	/* where copies and tensor maps land is resolved against the allocations live at the time */
	KT_EQ_INT(t.copies[0].dst_alloc, 0);
	KT_EQ_INT(t.copies[0].src_alloc, -1);
	KT_ASSERT(!t.copies[0].recording && t.copies[1].recording);
	KT_EQ_INT(t.copies[1].dst_alloc, 1);
	KT_EQ_INT(t.ntmaps, 1);
	KT_EQ_INT(t.tmaps[0].alloc, 1);
	l = &t.launches[0];
	KT_EQ_STR(l->name, "add_kernel");
	KT_EQ_STR(l->runtime, "cudaLaunchKernel");
	KT_EQ_INT(l->module, 0);
	KT_ASSERT(!l->module_by_name && l->layout && !l->refused);
	KT_EQ_INT(l->nparams, 3);
	KT_EQ_INT(l->nwords, 3);
	KT_EQ_INT(l->words[0].kind, KS_DRVWORD_POINTER);
	KT_EQ_INT(l->words[0].alloc, 0);
	KT_EQ_INT(l->words[0].alloc_off, 16);
	KT_EQ_INT(l->words[1].kind, KS_DRVWORD_VALUE);
	KT_EQ_INT(l->words[2].kind, KS_DRVWORD_POINTER);
	KT_EQ_INT(l->words[2].alloc, 1);
	KT_EQ_INT(l->words[2].alloc_off, 0x100);
	/* the second launch's module is found by its function's name; its block holds a tensor map
	 * (one bit of word 1 differs, as Triton leaves it) */
	l = &t.launches[1];
	KT_EQ_INT(l->module, 0);
	KT_ASSERT(l->module_by_name);
	KT_EQ_INT(l->nattrs, 1);
	KT_EQ_INT(l->attrs[0].id, 4);
	KT_EQ_INT(l->attrs[0].v[0], 2);
	KT_EQ_INT(l->smem, 49152);
	KT_EQ_INT(l->nwords, 24);
	KT_EQ_INT(l->words[0].kind, KS_DRVWORD_VALUE);
	for (i = 1; i < 8; i++)
		KT_EQ_INT(l->words[i].kind, KS_DRVWORD_VALUE);
	for (i = 8; i < 24; i++) {
		KT_EQ_INT(l->words[i].kind, KS_DRVWORD_TMAP);
		KT_EQ_INT(l->words[i].offset, 8 * i);
	}
	KT_EQ_STR(ks_drvword_kind_name(l->words[8].kind), "tmap");
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 1);
	KT_ASSERT(why == NULL);
	ks_drvtrace_clear(&t);
	ks_free(dir);
}

static void test_a_file_that_does_not_match_its_hash_is_refused(void)
{
	char *dir = fixture("bad-hash");
	ks_drvtrace t;
	KT_EQ_INT(ks_drvtrace_read(&t, dir, NULL, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "trace-4242.jsonl: line 2: ");
	KT_CONTAINS(ks_error_msg(), ".cubin: its content hashes to ");
	ks_drvtrace_clear(&t);
	ks_free(dir);
}

/* ---- hand-written traces: the files beside them come from a table */

static const char fake_cubin[] = "\x7f" "ELF\0k1\0shared\0";
static const char other_cubin[] = "\x7f" "ELF\0k2\0shared\0";

static int from_table(void *ctx, char **data, size_t *len, const char *sha, const char *ext, size_t max)
{
	const char *const imgs[2] = { fake_cubin, other_cubin };
	char h[65];
	size_t i;
	(void)ctx;
	(void)ext;
	(void)max;
	for (i = 0; i < 2; i++) {
		ks_sha256_hex(h, imgs[i], sizeof(fake_cubin) - 1);
		if (strcmp(h, sha) == 0) {
			*len = sizeof(fake_cubin) - 1;
			*data = ks_malloc(*len);
			memcpy(*data, imgs[i], *len);
			return 0;
		}
	}
	return ks_error_set(KS_ENOTFOUND, "%s.%s: no such file", sha, ext);
}

/* parses lines (each without "seq": numbered here) */
static int parse(ks_drvtrace *t, const char *const *lines, size_t max_launches, int cut_last)
{
	ks_drvtrace_options o = KS_DRVTRACE_OPTIONS_INIT;
	char h1[65], h2[65];
	char *text = ks_strdup(""), *p;
	size_t i;
	int rc;
	ks_sha256_hex(h1, fake_cubin, sizeof(fake_cubin) - 1);
	ks_sha256_hex(h2, other_cubin, sizeof(other_cubin) - 1);
	o.read_file = from_table;
	o.max_launches = max_launches;
	for (i = 0; lines[i]; i++) {
		const char *l = lines[i];
		char *line;
		if (strcmp(l, "MOD0") == 0)
			line = ks_asprintf("{\"k\":\"module\",\"module\":0,\"sha256\":\"%s\"}", h1);
		else if (strcmp(l, "MOD1") == 0)
			line = ks_asprintf("{\"k\":\"module\",\"module\":1,\"sha256\":\"%s\"}", h2);
		else
			line = ks_strdup(l);
		p = ks_asprintf("%s{\"seq\":%zu,%s%s", text, i, line + 1, cut_last && !lines[i + 1] ? "" : "\n");
		ks_free(line);
		ks_free(text);
		text = p;
	}
	rc = ks_drvtrace_parse(t, text, strlen(text), &o);
	ks_free(text);
	return rc;
}

#define HDR "{\"k\":\"header\",\"format\":\"kscore.drvtrace/1\",\"recording\":true}"
#define END "{\"k\":\"end\"}"
#define LAUNCH(name, module, args)                                                                    \
	"{\"k\":\"launch\",\"api\":\"cuLaunchKernel\",\"name\":\"" name "\",\"module\":" module           \
	",\"grid\":[1,1,1],\"block\":[32,1,1],\"smem\":0,\"stream\":\"0x0\",\"layout\":\"func\","       \
	"\"offsets\":[0],\"sizes\":[8],\"args\":\"" args "\"}"

static void test_what_a_replay_cannot_express_is_refused_with_its_reason(void)
{
	static const char *const managed[] = {
		HDR, "MOD0", "{\"k\":\"alloc\",\"id\":1,\"base\":\"0x10000\",\"size\":256,\"via\":\"cuMemAllocManaged\",\"managed\":true}",
		LAUNCH("k1", "0", "0800010000000000"), END, NULL
	};
	static const char *const graph[] = {
		HDR, "MOD0", "{\"k\":\"untraceable\",\"what\":\"cuGraphLaunch\",\"why\":\"a CUDA graph launch\"}",
		LAUNCH("k1", "0", "0000000000000000"), END, NULL
	};
	static const char *const before[] = {
		"{\"k\":\"header\",\"format\":\"kscore.drvtrace/1\",\"recording\":false}", "MOD0",
		"{\"k\":\"untraceable\",\"what\":\"cuGraphLaunch\",\"why\":\"a CUDA graph launch\"}",
		"{\"k\":\"mark\",\"label\":\"x\",\"on\":true}", LAUNCH("k1", "0", "0000000000000000"), END, NULL
	};
	static const char *const ambiguous[] = { HDR, "MOD0", "MOD1", LAUNCH("shared", "null", "0000000000000000"), END, NULL };
	static const char *const unknown[] = { HDR, "MOD0", LAUNCH("k9", "null", "0000000000000000"), END, NULL };
	static const char *const nolayout[] = {
		HDR, "MOD0",
		"{\"k\":\"launch\",\"api\":\"cuLaunchKernel\",\"name\":\"k1\",\"module\":0,\"grid\":[1,1,1],\"block\":[1,1,1],"
		"\"smem\":0,\"stream\":\"0x0\",\"layout\":null,\"args\":\"00\"}", END, NULL
	};
	static const char *const cut[] = { HDR, "MOD0", LAUNCH("k1", "0", "0000000000000000"), END, NULL };
	static const char *const over[] = { HDR, "MOD0", LAUNCH("k1", "0", "0000000000000000"),
					    "{\"k\":\"overflow\",\"what\":\"launches\",\"limit\":1}", END, NULL };
	ks_drvtrace t;
	char *why;

	KT_ASSERT_MSG(parse(&t, managed, 10, 0) == 0, "%s", ks_error_msg());
	KT_EQ_INT(t.launches[0].words[0].kind, KS_DRVWORD_POINTER);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 0);
	KT_CONTAINS(why, "managed memory");
	ks_free(why);
	KT_EQ_INT(t.nrefusals, 0); /* the pointer alone refuses it, without the recorder's own mark */
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, graph, 10, 0) == 0);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 0);
	KT_EQ_STR(why, "cuGraphLaunch: a CUDA graph launch");
	ks_free(why);
	ks_drvtrace_clear(&t);

	/* before the window that is recorded, it does not matter */
	KT_ASSERT(parse(&t, before, 10, 0) == 0);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 1);
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, ambiguous, 10, 0) == 0);
	KT_CONTAINS(t.launches[0].refused, "several recorded modules");
	KT_EQ_INT(t.launches[0].module, -1);
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, unknown, 10, 0) == 0);
	KT_EQ_STR(t.launches[0].refused, "its module was not recorded");
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, nolayout, 10, 0) == 0);
	KT_EQ_STR(t.launches[0].refused, "the driver gave no parameter layout");
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, cut, 10, 1) == 0);
	KT_ASSERT(!t.complete);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 0);
	KT_CONTAINS(why, "incomplete");
	ks_free(why);
	ks_drvtrace_clear(&t);

	KT_ASSERT(parse(&t, over, 10, 0) == 0);
	KT_ASSERT(t.stopped && t.complete);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 0);
	KT_EQ_STR(why, "the recording stopped at the launches cap");
	ks_free(why);
	ks_drvtrace_clear(&t);
}

static void test_malformed_records_name_their_line(void)
{
	static const char *const off[] = { "{\"k\":\"header\",\"format\":\"kscore.drvtrace/1\",\"recording\":false}",
					   "MOD0", LAUNCH("k1", "0", "00"), END, NULL };
	static const char *const fmt[] = { "{\"k\":\"header\",\"format\":\"kscore.drvtrace/9\"}", END, NULL };
	static const char *const hex[] = { HDR, "{\"k\":\"alloc\",\"id\":1,\"base\":\"0xZZ\",\"size\":1}", END, NULL };
	static const char *const big[] = { HDR, "{\"k\":\"alloc\",\"id\":1,\"base\":\"0xffffffffffffffff\",\"size\":2}", END, NULL };
	static const char *const mod[] = { HDR, "MOD0", LAUNCH("k1", "3", "00"), END, NULL };
	static const char *const two[] = { HDR, "MOD0", LAUNCH("k1", "0", "00"), LAUNCH("k1", "0", "00"), END, NULL };
	static const char *const after[] = { HDR, END, "{\"k\":\"sync\"}", NULL };
	static const char *const kind[] = { HDR, "{\"k\":\"teleport\"}", NULL };
	ks_drvtrace t;
	const char *text = "{\"seq\":0,\"k\":\"header\",\"format\":\"kscore.drvtrace/1\"}\n{\"seq\":2,\"k\":\"end\"}\n";

	KT_EQ_INT(parse(&t, off, 10, 0), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "line 3: a launch while recording was off");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, fmt, 10, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not \"kscore.drvtrace/1\"");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, hex, 10, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "line 2: \"base\" is not a hex string");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, big, 10, 0), KS_EINVALID);
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, mod, 10, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"module\" names no recorded module");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, two, 1, 0), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "more than 1 launches");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, after, 10, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "after the end record");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(parse(&t, kind, 10, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "unknown record kind \"teleport\"");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(ks_drvtrace_parse(&t, text, strlen(text), NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "line 2: record 2 where 1 was due");
	ks_drvtrace_clear(&t);
	KT_EQ_INT(ks_drvtrace_parse(&t, "", 0, NULL), KS_EINVALID);
	ks_drvtrace_clear(&t);
}

/* What the recording core writes, the reader reads: the two sides agree on the format. */
static void test_the_recorder_and_the_reader_agree(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	ks_drvrec *r = ks_drvrec_open(kt_tmpdir(), &lim);
	uint64_t base = 0x7f2000000000ull, ptr = base + 0x40;
	unsigned char tmap[128], blk[8 + 56 + 128] = { 0 }, src[32] = { 1, 2, 3 };
	uint32_t off[2] = { 0, 64 }, size[2] = { 8, 128 };
	ks_drvrec_tmap tm = { .api = "cuTensorMapEncodeTiled", .rank = 2, .addr = base, .bytes = tmap };
	ks_drvrec_launch l = { .api = "cuLaunchKernelEx", .name = "k1", .func = 1, .grid = { 1, 1, 1 },
			       .block = { 1, 1, 1 }, .layout = "func", .offsets = off, .sizes = size, .nparams = 2,
			       .args = blk, .nargs = sizeof(blk) };
	ks_drvtrace t;
	char *why;
	size_t i;
	for (i = 0; i < 128; i++)
		tmap[i] = (unsigned char)(i * 7);
	memcpy(blk, &ptr, 8);
	memcpy(blk + 64, tmap, 128);
	l.module = ks_drvrec_module(r, fake_cubin, sizeof(fake_cubin) - 1, "resource");
	ks_drvrec_alloc(r, base, 4096, "cuMemAlloc_v2", 0);
	ks_drvrec_copy(r, "cuMemcpyHtoD_v2", "htod", base, 0x1000, sizeof(src), src, 0);
	ks_drvrec_tmap_add(r, &tm);
	ks_drvrec_launch_add(r, &l);
	ks_drvrec_event(r, "sync", "cuCtxSynchronize", 0, 0);
	ks_drvrec_close(r);
	KT_ASSERT_MSG(ks_drvtrace_read(&t, kt_tmpdir(), NULL, NULL) == 0, "%s", ks_error_msg());
	KT_EQ_INT(t.nlaunches, 1);
	KT_EQ_INT(t.launches[0].module, 0);
	KT_EQ_INT(t.launches[0].words[0].kind, KS_DRVWORD_POINTER);
	KT_EQ_INT(t.launches[0].words[0].alloc_off, 0x40);
	KT_EQ_INT(t.launches[0].words[8].kind, KS_DRVWORD_TMAP);
	KT_EQ_INT(t.ncopies, 1);
	KT_EQ_INT(t.syncs, 1);
	KT_EQ_INT(ks_drvtrace_replayable(&t, &why), 1);
	ks_drvtrace_clear(&t);
}

static const kt_test tests[] = {
	KT(test_a_recorded_forward_is_read_and_classified),
	KT(test_a_file_that_does_not_match_its_hash_is_refused),
	KT(test_what_a_replay_cannot_express_is_refused_with_its_reason),
	KT(test_malformed_records_name_their_line),
	KT(test_the_recorder_and_the_reader_agree),
	{ 0 }
};
KT_MAIN("drvtrace", tests)
