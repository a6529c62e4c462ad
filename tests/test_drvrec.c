/* Tests of the driver-level tracer's recording core (src/trace/cupti/drvrec.c, drvmap.c,
 * drvsha.c), called directly with the data a CUPTI callback would hand it, and of the built
 * injection library's exports. No driver is needed. */
#include "ktest.h"
#include "trace/cupti/drvmap.h"
#include "trace/cupti/drvrec.h"
#include "trace/cupti/drvsha.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <pthread.h>
#include <unistd.h>

static void test_sha256_known_answers(void)
{
	char hex[65];
	ks_drvsha s;
	size_t i;
	ks_drvsha_hex(hex, "", 0);
	KT_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ks_drvsha_hex(hex, "abc", 3);
	KT_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 56 bytes: the padding takes a block of its own */
	ks_drvsha_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	KT_EQ_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a', fed in uneven pieces */
	ks_drvsha_init(&s);
	for (i = 0; i < 1000000; i += 999)
		ks_drvsha_update(&s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				 0); /* zero-length updates change nothing */
	{
		static char a[1000];
		size_t left = 1000000;
		memset(a, 'a', sizeof(a));
		while (left) {
			size_t n = left < 997 ? left : 997;
			ks_drvsha_update(&s, a, n);
			left -= n;
		}
	}
	ks_drvsha_final(&s, hex);
	KT_EQ_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_map_finds_replaces_and_removes(void)
{
	ks_drvmap m = KS_DRVMAP_INIT(3);
	uint64_t id;
	KT_EQ_INT(ks_drvmap_add(&m, 0x1000, 0x100, 1), 0);
	KT_EQ_INT(ks_drvmap_add(&m, 0x3000, 0x100, 2), 0);
	KT_EQ_INT(ks_drvmap_find(&m, 0x1000)->id, 1);
	KT_EQ_INT(ks_drvmap_find(&m, 0x10ff)->id, 1);
	KT_ASSERT(ks_drvmap_find(&m, 0x1100) == NULL);
	KT_ASSERT(ks_drvmap_find(&m, 0xfff) == NULL);
	KT_EQ_INT(ks_drvmap_find(&m, 0x3080)->id, 2);
	/* a new range over both (a missed free, the address reused) replaces them */
	KT_EQ_INT(ks_drvmap_add(&m, 0x1080, 0x2000, 3), 0);
	KT_EQ_INT(m.n, 1);
	KT_EQ_INT(ks_drvmap_find(&m, 0x3000)->id, 3);
	KT_ASSERT(ks_drvmap_find(&m, 0x1000) == NULL);
	KT_EQ_INT(ks_drvmap_add(&m, 0x10, 0x10, 4), 0);
	KT_EQ_INT(ks_drvmap_add(&m, 0x9000, 0x10, 5), 0);
	KT_EQ_INT(ks_drvmap_add(&m, 0xa000, 0x10, 6), -1); /* max ranges */
	KT_EQ_INT(ks_drvmap_add(&m, 0xa000, 0, 6), -1);
	KT_EQ_INT(ks_drvmap_add(&m, UINT64_MAX - 4, 16, 6), -1);
	KT_EQ_INT(ks_drvmap_remove(&id, &m, 0x1080), 0);
	KT_EQ_INT(id, 3);
	KT_EQ_INT(ks_drvmap_remove(&id, &m, 0x1080), -1);
	KT_ASSERT(ks_drvmap_find(&m, 0x2000) == NULL);
	KT_EQ_INT(ks_drvmap_find(&m, 0x9008)->id, 5);
	ks_drvmap_clear(&m);
}

/* the trace file of the test's folder: its lines parsed, into v[] (at most max) */
static size_t read_trace(cJSON **v, size_t max, const char *dir)
{
	char *path = ks_asprintf("%s/trace-%ld.jsonl", dir, (long)getpid()), *text, *p, *nl;
	size_t n = 0;
	KT_ASSERT_MSG(ks_fs_read(&text, NULL, path, 64u << 20) == 0, "%s", ks_error_msg());
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		KT_ASSERT_MSG(nl, "a line without its newline: %s", p);
		KT_ASSERT(n < max);
		KT_ASSERT_MSG(ks_json_parse(&v[n], p, (size_t)(nl - p), 16, "line") == 0, "%s", ks_error_msg());
		KT_EQ_INT(ks_json_numval(v[n], "seq"), n);
		n++;
	}
	ks_free(text);
	ks_free(path);
	return n;
}

static void free_trace(cJSON **v, size_t n)
{
	while (n)
		cJSON_Delete(v[--n]);
}

static const char *kind(cJSON *v)
{
	return cJSON_GetObjectItemCaseSensitive(v, "k")->valuestring;
}

static void test_records_are_json_lines_with_a_header_and_an_end(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	ks_drvrec *r = ks_drvrec_open(kt_tmpdir(), &lim);
	unsigned char block[32] = { 0 };
	uint32_t off[2] = { 0, 8 }, size[2] = { 8, 4 };
	ks_drvrec_attr at = { 4, { 2, 1, 1 } };
	ks_drvrec_launch l = { .api = "cuLaunchKernelEx", .name = "k\"\x01\xe9", .func = 0xabc, .module = -1,
			       .grid = { 4, 1, 1 }, .block = { 128, 1, 1 }, .smem = 1024, .stream = 0x7,
			       .attrs = &at, .nattrs = 1, .layout = "func", .offsets = off, .sizes = size,
			       .nparams = 2, .args = block, .nargs = 12 };
	uint64_t base = 0x7f0000000000ull, id;
	cJSON *v[16];
	size_t n;
	KT_ASSERT(r);
	/* a second recorder in the same process and folder is refused: the file exists */
	KT_ASSERT(ks_drvrec_open(kt_tmpdir(), &lim) == NULL);
	id = ks_drvrec_alloc(r, base, 4096, "cuMemAlloc_v2", 0);
	KT_EQ_INT(id, 1);
	memcpy(block, &base, 8);
	ks_drvrec_launch_add(r, &l);
	ks_drvrec_free(r, base, "cuMemFree_v2");
	ks_drvrec_free(r, base, "cuMemFree_v2");
	ks_drvrec_set(r, "cuMemsetD32_v2", base, 4, 0xdeadbeef, 16, 0);
	ks_drvrec_close(r);
	n = read_trace(v, 16, kt_tmpdir());
	KT_EQ_INT(n, 7);
	KT_EQ_STR(kind(v[0]), "header");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[0], "format")->valuestring, KS_DRVREC_FORMAT);
	KT_EQ_STR(kind(v[1]), "alloc");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[1], "base")->valuestring, "0x7f0000000000");
	KT_EQ_STR(kind(v[2]), "launch");
	/* the name's odd bytes are escaped: the line stays JSON and ASCII */
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[2], "name")->valuestring, "k\"\x01\xc3\xa9");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[2], "args")->valuestring, "00000000007f000000000000");
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v[2], "attrs")), 1);
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v[2], "module")));
	KT_EQ_INT(ks_json_numval(v[3], "id"), 1);
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v[4], "id"))); /* a free of nothing */
	KT_EQ_STR(kind(v[5]), "set");
	KT_EQ_INT(ks_json_numval(v[5], "value"), 0xdeadbeef);
	KT_EQ_STR(kind(v[6]), "end");
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v[6], "stopped")));
	KT_EQ_INT(ks_json_numval(v[6], "launches"), 1);
	free_trace(v, n);
}

static void test_a_cap_stops_the_recording_with_one_overflow_record(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	ks_drvrec_launch l = { .api = "cuLaunchKernel", .module = -1 };
	ks_drvrec_stats st;
	ks_drvrec *r;
	cJSON *v[16];
	size_t n, i;
	lim.max_launches = 2;
	r = ks_drvrec_open(kt_tmpdir(), &lim);
	for (i = 0; i < 5; i++)
		ks_drvrec_launch_add(r, &l);
	ks_drvrec_alloc(r, 0x100000, 16, "cuMemAlloc_v2", 0); /* after the stop: not recorded */
	ks_drvrec_stats_get(&st, r);
	KT_EQ_INT(st.launches, 2);
	KT_ASSERT(st.stopped);
	KT_EQ_INT(ks_drvrec_recording(r), 0);
	ks_drvrec_finish(r);
	ks_drvrec_finish(r); /* twice: atexit and a destructor */
	ks_drvrec_close(r);
	n = read_trace(v, 16, kt_tmpdir());
	KT_EQ_INT(n, 5);
	KT_EQ_STR(kind(v[3]), "overflow");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[3], "what")->valuestring, "launches");
	KT_EQ_INT(ks_json_numval(v[3], "limit"), 2);
	KT_EQ_STR(kind(v[4]), "end");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v[4], "stopped")));
	free_trace(v, n);
}

static void test_byte_and_file_caps(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	static unsigned char big[4096];
	ks_drvrec_stats st;
	ks_drvrec *r;
	cJSON *v[16];
	size_t n;
	lim.max_files = 1;
	r = ks_drvrec_open(kt_tmpdir(), &lim);
	KT_EQ_INT(ks_drvrec_module(r, "\x7f" "ELF-one", 8, "resource"), 0);
	KT_EQ_INT(ks_drvrec_module(r, "\x7f" "ELF-one", 8, "resource"), 0); /* the same bytes: one file */
	KT_EQ_INT(ks_drvrec_module(r, "\x7f" "ELF-two", 8, "resource"), -1);
	ks_drvrec_stats_get(&st, r);
	KT_EQ_INT(st.files, 1);
	KT_ASSERT(st.stopped);
	ks_drvrec_close(r);
	n = read_trace(v, 16, kt_tmpdir());
	KT_EQ_STR(kind(v[n - 2]), "overflow");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[n - 2], "what")->valuestring, "files");
	free_trace(v, n);

	/* bytes: a copy's data counts with the trace's own lines */
	{
		char *sub = ks_path_join(kt_tmpdir(), "b");
		KT_EQ_INT(ks_fs_mkdir_p(sub, 0755), 0);
		lim = (ks_drvrec_limits)KS_DRVREC_LIMITS_INIT;
		lim.max_bytes = 2048;
		r = ks_drvrec_open(sub, &lim);
		ks_drvrec_copy(r, "cuMemcpyHtoD_v2", "htod", 0x100000, 0x5000, sizeof(big), big, 0);
		ks_drvrec_stats_get(&st, r);
		KT_ASSERT(st.stopped);
		KT_EQ_INT(st.files, 0);
		ks_drvrec_close(r);
		n = read_trace(v, 16, sub);
		KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[1], "what")->valuestring, "bytes");
		free_trace(v, n);
		ks_free(sub);
	}
}

static void test_modules_and_copies_are_files_named_by_their_hash(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	static const char img[] = "\x7f" "ELF fake cubin";
	unsigned char data[100];
	char hex[65], *path, *text;
	size_t len, n;
	ks_drvrec *r;
	cJSON *v[16];
	lim.max_copy_bytes = 64;
	memset(data, 0x5a, sizeof(data));
	r = ks_drvrec_open(kt_tmpdir(), &lim);
	KT_EQ_INT(ks_drvrec_module(r, img, sizeof(img) - 1, "resource"), 0);
	ks_drvrec_module_bind(r, 0x1234, 0);
	KT_EQ_INT(ks_drvrec_module_of(r, 0x1234), 0);
	KT_EQ_INT(ks_drvrec_module_of(r, 0x9999), -1);
	ks_drvrec_copy(r, "cuMemcpyHtoD_v2", "htod", 0x100000, 0x5000, 64, data, 0);
	ks_drvrec_copy(r, "cuMemcpyHtoD_v2", "htod", 0x100000, 0x5000, 100, data, 0); /* over the cap */
	ks_drvrec_close(r);
	ks_drvsha_hex(hex, img, sizeof(img) - 1);
	path = ks_asprintf("%s/%s.cubin", kt_tmpdir(), hex);
	KT_EQ_INT(ks_fs_read(&text, &len, path, 1024), 0);
	KT_EQ_INT(len, sizeof(img) - 1);
	KT_ASSERT(memcmp(text, img, len) == 0);
	ks_free(text);
	ks_free(path);
	n = read_trace(v, 16, kt_tmpdir());
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[1], "sha256")->valuestring, hex);
	ks_drvsha_hex(hex, data, 64);
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[2], "data")->valuestring, hex);
	path = ks_asprintf("%s/%s.bin", kt_tmpdir(), hex);
	KT_ASSERT(ks_fs_exists(path));
	ks_free(path);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v[3], "cut")));
	KT_ASSERT(!cJSON_GetObjectItemCaseSensitive(v[3], "data"));
	free_trace(v, n);
}

static void test_marks_turn_launch_recording_on_and_off(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	ks_drvrec_launch l = { .api = "cuLaunchKernel", .module = -1 };
	ks_drvrec *r;
	cJSON *v[16];
	size_t n;
	lim.record = 0;
	r = ks_drvrec_open(kt_tmpdir(), &lim);
	ks_drvrec_launch_add(r, &l); /* warm-up: not recorded */
	ks_drvrec_alloc(r, 0x200000, 64, "cuMemAlloc_v2", 0); /* recorded: a later launch may use it */
	ks_drvrec_mark(r, "case 0", 1);
	KT_EQ_INT(ks_drvrec_recording(r), 1);
	ks_drvrec_launch_add(r, &l);
	ks_drvrec_mark(r, "case 0 done", 0);
	ks_drvrec_launch_add(r, &l);
	ks_drvrec_close(r);
	n = read_trace(v, 16, kt_tmpdir());
	KT_EQ_INT(n, 6);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(v[0], "recording")));
	KT_EQ_STR(kind(v[1]), "alloc");
	KT_EQ_STR(kind(v[2]), "mark");
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(v[2], "label")->valuestring, "case 0");
	KT_EQ_STR(kind(v[3]), "launch");
	KT_EQ_STR(kind(v[4]), "mark");
	KT_EQ_STR(kind(v[5]), "end");
	free_trace(v, n);
}

static void test_parameter_blocks_packed_and_extra_read(void)
{
	unsigned char blk[64];
	uint64_t p0 = 0x7f0000001000ull;
	uint32_t p1 = 42;
	unsigned char p2[24];
	void *params[3] = { &p0, &p1, p2 };
	uint32_t off[3] = { 0, 8, 16 }, size[3] = { 8, 4, 24 };
	size_t len, sz = 40;
	const void *buf;
	void *extra[5] = { (void *)(uintptr_t)1, blk, (void *)(uintptr_t)2, &sz, NULL };
	memset(p2, 7, sizeof(p2));
	KT_EQ_INT(ks_drvrec_pack(blk, sizeof(blk), &len, params, off, size, 3), 0);
	KT_EQ_INT(len, 40);
	KT_ASSERT(memcmp(blk, &p0, 8) == 0 && memcmp(blk + 8, &p1, 4) == 0 && blk[12] == 0 && blk[39] == 7);
	size[2] = 64; /* past the block */
	KT_EQ_INT(ks_drvrec_pack(blk, sizeof(blk), &len, params, off, size, 3), -1);
	params[1] = NULL;
	size[2] = 24;
	KT_EQ_INT(ks_drvrec_pack(blk, sizeof(blk), &len, params, off, size, 3), -1);
	KT_EQ_INT(ks_drvrec_extra(&buf, &sz, extra), 0);
	KT_ASSERT(buf == blk && sz == 40);
	sz = KS_DRVREC_MAX_PARAM_BYTES + 1;
	KT_EQ_INT(ks_drvrec_extra(&buf, &len, extra), -1);
	extra[0] = NULL;
	KT_EQ_INT(ks_drvrec_extra(&buf, &len, extra), -1);
	KT_EQ_INT(ks_drvrec_extra(&buf, &len, NULL), -1);
}

static void test_unknown_words_are_device_like_words_outside_allocations(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	uint64_t words[6] = { 0x7f0000000010ull, 42, 0x7f1000000000ull, 0x7f1000000000ull, 1ull << 60, 0x20000 };
	uint64_t out[8];
	ks_drvrec *r = ks_drvrec_open(kt_tmpdir(), &lim);
	size_t n;
	ks_drvrec_alloc(r, 0x7f0000000000ull, 4096, "cuMemAlloc_v2", 0);
	KT_ASSERT(ks_drvrec_known(r, 0x7f0000000fffull));
	KT_ASSERT(!ks_drvrec_known(r, 0x7f0000001000ull));
	n = ks_drvrec_unknown_words(r, out, 8, (const unsigned char *)words, sizeof(words) - 4);
	/* the last word is cut by the length; the duplicate is asked about once */
	KT_EQ_INT(n, 1);
	KT_EQ_INT(out[0], 0x7f1000000000ull);
	n = ks_drvrec_unknown_words(r, out, 8, (const unsigned char *)words, sizeof(words));
	KT_EQ_INT(n, 2);
	ks_drvrec_close(r);
}

static const char *fake_env(const char *name)
{
	if (strcmp(name, "KSCORE_DRVTRACE_MAX_LAUNCHES") == 0)
		return "7";
	if (strcmp(name, "KSCORE_DRVTRACE_MAX_BYTES") == 0)
		return "12x";
	if (strcmp(name, "KSCORE_DRVTRACE_RECORD") == 0)
		return "0";
	return NULL;
}

static void test_limits_from_the_environment(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	KT_EQ_INT(ks_drvrec_limits_read(&lim, fake_env), 1);
	KT_EQ_INT(lim.max_launches, 7);
	KT_EQ_INT(lim.max_bytes, 4ull << 30);
	KT_EQ_INT(lim.record, 0);
}

static ks_drvrec *shared;

static void *launcher(void *arg)
{
	ks_drvrec_launch l = { .api = "cuLaunchKernel", .name = arg, .module = -1 };
	int i;
	for (i = 0; i < 500; i++) {
		ks_drvrec_launch_add(shared, &l);
		ks_drvrec_alloc(shared, 0x100000000ull + ((uint64_t)(uintptr_t)arg & 0xff) * 0x100000 + (uint64_t)i * 64,
				64, "cuMemAlloc_v2", 0);
	}
	return NULL;
}

static void test_threads_record_whole_lines(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	static char names[4][8] = { "a", "b", "c", "d" };
	pthread_t t[4];
	ks_drvrec_stats st;
	static cJSON *v[4100];
	size_t n, i, launches = 0;
	shared = ks_drvrec_open(kt_tmpdir(), &lim);
	for (i = 0; i < 4; i++)
		KT_EQ_INT(pthread_create(&t[i], NULL, launcher, names[i]), 0);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ks_drvrec_stats_get(&st, shared);
	KT_EQ_INT(st.launches, 2000);
	KT_EQ_INT(st.allocs, 2000);
	ks_drvrec_close(shared);
	n = read_trace(v, 4100, kt_tmpdir());
	for (i = 0; i < n; i++)
		launches += strcmp(kind(v[i]), "launch") == 0;
	KT_EQ_INT(launches, 2000);
	KT_EQ_INT(n, 4002);
	free_trace(v, n);
}

/* The built library exports the driver's entry point and the marker, nothing else, and needs
 * nothing but libc (CUPTI and the driver are loaded at run time). */
static void test_the_library_exports_only_its_entry_points(void)
{
	const char *dir = getenv("KSCORE_LIBEXEC");
	char cmd[4200], line[512];
	FILE *p;
	int entry = 0, mark = 0, other = 0;
	if (!dir)
		KT_SKIP("KSCORE_LIBEXEC is not set");
	snprintf(cmd, sizeof(cmd), "%s/libkscore-cupti.so", dir);
	if (access(cmd, F_OK) != 0 && access(KS_CUDA_HOME "/include/cupti.h", F_OK) != 0)
		KT_SKIP("CUPTI's headers are not installed (" KS_CUDA_HOME "/include/cupti.h): the library is not built");
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s/libkscore-cupti.so' 2>&1", dir);
	KT_ASSERT((p = popen(cmd, "r")) != NULL);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, " T InitializeInjection"))
			entry++;
		else if (strstr(line, " T kscore_drvtrace_mark"))
			mark++;
		else if (!strstr(line, " A KSCORE_CUPTI_1"))
			fprintf(stderr, "  exported: %s", line), other++;
	}
	KT_EQ_INT(pclose(p), 0);
	KT_EQ_INT(entry, 1);
	KT_EQ_INT(mark, 1);
	KT_EQ_INT(other, 0);
	snprintf(cmd, sizeof(cmd), "readelf -d '%s/libkscore-cupti.so' | grep NEEDED", dir);
	KT_ASSERT((p = popen(cmd, "r")) != NULL);
	while (fgets(line, sizeof(line), p))
		KT_ASSERT_MSG(strstr(line, "[libc.so") || strstr(line, "[ld-linux"), "needs %s", line);
	pclose(p);
}

static const kt_test tests[] = {
	KT(test_sha256_known_answers),
	KT(test_map_finds_replaces_and_removes),
	KT(test_records_are_json_lines_with_a_header_and_an_end),
	KT(test_a_cap_stops_the_recording_with_one_overflow_record),
	KT(test_byte_and_file_caps),
	KT(test_modules_and_copies_are_files_named_by_their_hash),
	KT(test_marks_turn_launch_recording_on_and_off),
	KT(test_parameter_blocks_packed_and_extra_read),
	KT(test_unknown_words_are_device_like_words_outside_allocations),
	KT(test_limits_from_the_environment),
	KT(test_threads_record_whole_lines),
	KT(test_the_library_exports_only_its_entry_points),
	{ 0 }
};
KT_MAIN("drvrec", tests)
