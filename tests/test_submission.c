#include "ktest.h"
#include "load/submission.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/mem.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <zlib.h>

#define K "__global__ void k(float *y) { y[0] = 1; }"

/* Results live in globals so that the leak checker sees them as reachable between calls. */
static ks_pass g_pass;
static ks_submission *g_sub;
static unsigned char *g_gz;

static ks_submission_limits limits(void)
{
	ks_submission_limits l = KS_SUBMISSION_LIMITS_INIT;
	return l;
}

static ks_pass *parse(const char *name, const void *data, size_t len, const ks_submission_limits *l)
{
	ks_pass_clear(&g_pass);
	ks_pass_parse(&g_pass, name, data, len, l);
	return &g_pass;
}

static ks_pass *parse_s(const char *name, const char *text, const ks_submission_limits *l)
{
	return parse(name, text, strlen(text), l);
}

static ks_submission *load(const char *path, const ks_submission_limits *l)
{
	ks_submission_free(g_sub);
	g_sub = NULL;
	if (ks_submission_load(&g_sub, path, l) < 0)
		KT_FAIL("loading %s failed: %s", path, ks_error_msg());
	return g_sub;
}

/* One gzip member of data; the result stays valid until the next call. */
static size_t gz(const void *data, size_t len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	KT_EQ_INT(deflateInit2(&zs, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	ks_free(g_gz);
	g_gz = ks_malloc(deflateBound(&zs, len));
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len;
	zs.next_out = g_gz;
	zs.avail_out = (uInt)deflateBound(&zs, len);
	KT_EQ_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	return zs.total_out;
}

static char *fixture(const char *name, size_t *len)
{
	const char *root = getenv("KSCORE_ROOT");
	char path[4096], *data = NULL;
	snprintf(path, sizeof(path), "%s/tests/fixtures/submission/%s", root ? root : ".", name);
	if (ks_fs_read(&data, len, path, 1 << 20) < 0)
		KT_FAIL("%s", ks_error_msg());
	return data;
}

static void check_geak_entries(const ks_pass *p)
{
	const ks_entry *e = &p->entries[0];
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 2);
	KT_EQ_INT(e->index, 0);
	KT_EQ_STR(e->file, "sin_kernel.py");
	KT_EQ_STR(e->problem, "sin_kernel");
	KT_CONTAINS(e->instruction, "sin_kernel: y[i] = sin(x[i])");
	KT_ASSERT(e->label == NULL);
	KT_CONTAINS(e->test_code, "result_gold = test_sin()");
	KT_EQ_INT(e->difficulty, -1);
	KT_ASSERT(e->launch_json == NULL);
	KT_ASSERT(e->error == NULL);
	KT_CONTAINS(e->predict, "Here is the kernel");
	KT_CONTAINS(e->code, "__global__ void sin_kernel(const float *x, float *y, int n)");
	KT_NOT_CONTAINS(e->code, "Here is");
	KT_NOT_CONTAINS(e->code, "<|im_end|>");
	KT_EQ_STR(e->extract_note, "1 ```cuda block; 1 chat token removed");
	e = &p->entries[1];
	KT_EQ_INT(e->index, 1);
	KT_EQ_STR(e->problem, "add_kernel");
	KT_EQ_INT(e->difficulty, 2);
	KT_EQ_STR(e->launch_json,
		  "{\"kernel\":\"add\",\"grid\":[\"cdiv(n, 512)\"],\"block\":[512]}");
	KT_EQ_STR(e->code, e->predict);
	KT_EQ_STR(e->extract_note, "whole text");
	KT_EQ_INT(strlen(e->sha256), 64);
}

static void test_array_file(void)
{
	size_t len;
	char *data = fixture("geak_array.json", &len), hex[65];
	const char *root = getenv("KSCORE_ROOT");
	char path[4096];
	ks_submission *s;
	ks_sha256 *h;

	snprintf(path, sizeof(path), "%s/tests/fixtures/submission/geak_array.json",
		 root ? root : ".");
	s = load(path, NULL);
	KT_EQ_INT(s->is_folder, 0);
	KT_EQ_INT(s->npasses, 1);
	KT_EQ_STR(s->passes[0].name, "geak_array.json");
	KT_EQ_STR(s->passes[0].path, path);
	KT_EQ_INT(s->passes[0].jsonl, 0);
	KT_EQ_INT(s->passes[0].gzip, 0);
	check_geak_entries(&s->passes[0]);
	ks_sha256_hex(hex, data, len);
	KT_EQ_STR(s->passes[0].sha256, hex);
	h = ks_sha256_new();
	ks_sha256_update_str(h, hex);
	ks_sha256_final(h, hex);
	KT_EQ_STR(s->sha256, hex);
	ks_free(data);
}

static void test_jsonl_file(void)
{
	size_t alen, llen;
	char *a = fixture("geak_array.json", &alen), *l = fixture("geak.jsonl", &llen);
	char sha0[65], sha1[65];
	ks_pass *p = parse("geak_array.json", a, alen, NULL);

	memcpy(sha0, p->entries[0].sha256, 65);
	memcpy(sha1, p->entries[1].sha256, 65);
	p = parse("geak.jsonl", l, llen, NULL);
	KT_EQ_INT(p->jsonl, 1);
	check_geak_entries(p);
	/* the same candidates in another container have the same fingerprints */
	KT_EQ_STR(p->entries[0].sha256, sha0);
	KT_EQ_STR(p->entries[1].sha256, sha1);
	ks_free(a);
	ks_free(l);
}

static void test_jsonl_blank_lines_crlf_and_single_object(void)
{
	ks_pass *p = parse_s("x.jsonl", "\n{\"file\": \"a.py\", \"predict\": \"" K "\"}\r\n\r\n  \n"
				      "{\"file\": \"b.cu\"}", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->jsonl, 1);
	KT_EQ_INT(p->nentries, 2);
	KT_EQ_STR(p->entries[0].problem, "a");
	KT_EQ_STR(p->entries[0].code, K);
	KT_EQ_STR(p->entries[1].problem, "b");
	KT_EQ_INT(p->entries[1].index, 1);
	KT_EQ_STR(p->entries[1].predict, "");
	KT_ASSERT(p->entries[1].code == NULL);
	/* one pretty-printed object is JSON Lines with one line */
	p = parse_s("one.json", "{\n  \"file\": \"c.py\",\n  \"predict\": \"" K "\"\n}\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->jsonl, 1);
	KT_EQ_INT(p->nentries, 1);
	KT_EQ_STR(p->entries[0].problem, "c");
}

static void test_an_object_wrapping_the_entries_is_refused(void)
{
	ks_pass *p = parse_s("w.json", "{\"team\": \"x\", \"submissions\": [{\"file\": \"a.py\", \"predict\": \""
				       K "\"}]}", NULL);
	KT_ASSERT(p->error != NULL);
	KT_EQ_INT(p->nentries, 0);
	KT_CONTAINS(p->error, "w.json: the file is one JSON object whose \"submissions\" holds an array");
	KT_CONTAINS(p->error, "an array of entries was expected");
	/* an object holding no array is an entry without a "file", as before */
	p = parse_s("w.json", "{\"team\": \"x\"}", NULL);
	KT_ASSERT(!p->error);
	KT_EQ_STR(p->entries[0].error, "w.json: entry 0: missing field \"file\"");
	/* an object with either field is an entry, however broken; two lines are JSON Lines */
	p = parse_s("w.json", "{\"predict\": \"x\", \"more\": [1]}", NULL);
	KT_ASSERT(!p->error);
	KT_EQ_STR(p->entries[0].error, "w.json: entry 0: missing field \"file\"");
	p = parse_s("w.jsonl", "{\"a\": [1]}\n{\"b\": [2]}\n", NULL);
	KT_ASSERT(!p->error);
	KT_EQ_INT(p->nentries, 2);
}

static void test_gzip_detected_by_magic(void)
{
	size_t alen, llen, n;
	char *a = fixture("geak_array.json", &alen), *l = fixture("geak.jsonl", &llen), hex[65];
	ks_submission *s;

	n = gz(a, alen);
	s = load(kt_write("sub.json", g_gz, n), NULL);
	KT_EQ_INT(s->passes[0].gzip, 1);
	KT_EQ_INT(s->passes[0].jsonl, 0);
	check_geak_entries(&s->passes[0]);
	ks_sha256_hex(hex, g_gz, n); /* the bytes as stored */
	KT_EQ_STR(s->passes[0].sha256, hex);

	n = gz(l, llen);
	s = load(kt_write("lines.json", g_gz, n), NULL);
	KT_EQ_INT(s->passes[0].gzip, 1);
	KT_EQ_INT(s->passes[0].jsonl, 1);
	check_geak_entries(&s->passes[0]);

	/* a .gz name does not make plain text compressed */
	s = load(kt_write("plain.json.gz", a, alen), NULL);
	KT_EQ_INT(s->passes[0].gzip, 0);
	check_geak_entries(&s->passes[0]);
	ks_free(a);
	ks_free(l);
}

static void test_concatenated_and_broken_gzip(void)
{
	size_t llen, n1, n2;
	char *l = fixture("geak.jsonl", &llen), *nl = strchr(l, '\n');
	unsigned char both[4096];
	ks_pass *p;

	n1 = gz(l, (size_t)(nl + 1 - l));
	memcpy(both, g_gz, n1);
	n2 = gz(nl + 1, llen - (size_t)(nl + 1 - l));
	KT_ASSERT(n1 + n2 <= sizeof(both));
	memcpy(both + n1, g_gz, n2);
	p = parse("two-members.jsonl.gz", both, n1 + n2, NULL);
	KT_EQ_INT(p->gzip, 1);
	check_geak_entries(p);

	p = parse("cut.json.gz", both, n1 - 9, NULL);
	KT_EQ_STR(p->error, "cut.json.gz: gzip data is truncated");
	KT_EQ_INT(p->nentries, 0);
	p = parse("junk.json.gz", "\x1f\x8b\x07garbage that is not deflate", 30, NULL);
	KT_CONTAINS(p->error, "junk.json.gz: bad gzip data (");
	ks_free(l);
}

static void test_folder_of_passes(void)
{
	const char *arr = "[{\"file\": \"a.py\", \"predict\": \"" K "\"}]";
	const char *line = "{\"file\": \"a.py\", \"predict\": \"" K "\"}\n";
	char dir[4200], path[4400];
	ks_submission *s;
	ks_sha256 *h;
	char hex[65];
	size_t i, n;

	snprintf(dir, sizeof(dir), "%s/sub", kt_tmpdir());
	KT_EQ_INT(mkdir(dir, 0755), 0);
	kt_write("sub/b.json", arr, strlen(arr));
	kt_write("sub/a.jsonl", line, strlen(line));
	n = gz(arr, strlen(arr));
	kt_write("sub/c.json.gz", g_gz, n);
	n = gz(line, strlen(line));
	kt_write("sub/d.jsonl.gz", g_gz, n);
	kt_write("sub/bad.json", "[{", 2);
	kt_write("sub/notes.txt", "x", 1);
	kt_write("sub/e.json.bak", arr, strlen(arr));
	kt_write("sub/.hidden.json", arr, strlen(arr));
	snprintf(path, sizeof(path), "%s/x.json", dir);
	KT_EQ_INT(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	KT_EQ_INT(mkfifo(path, 0644), 0);

	s = load(dir, NULL);
	KT_EQ_INT(s->is_folder, 1);
	KT_EQ_INT(s->npasses, 5);
	KT_EQ_STR(s->passes[0].name, "a.jsonl");
	KT_EQ_STR(s->passes[1].name, "b.json");
	KT_EQ_STR(s->passes[2].name, "bad.json");
	KT_EQ_STR(s->passes[3].name, "c.json.gz");
	KT_EQ_STR(s->passes[4].name, "d.jsonl.gz");
	KT_EQ_INT(s->passes[3].gzip, 1);
	KT_EQ_INT(s->passes[4].jsonl, 1);
	KT_CONTAINS(s->passes[2].error, "bad.json:1:");
	KT_EQ_INT(s->passes[2].nentries, 0);
	h = ks_sha256_new();
	for (i = 0; i < s->npasses; i++) {
		if (i != 2) {
			KT_ASSERT_MSG(!s->passes[i].error, "%s", s->passes[i].error);
			KT_EQ_INT(s->passes[i].nentries, 1);
			KT_EQ_STR(s->passes[i].entries[0].code, K);
		}
		ks_sha256_update_str(h, s->passes[i].sha256);
	}
	ks_sha256_final(h, hex);
	KT_EQ_STR(s->sha256, hex);
}

static void test_folder_and_path_errors(void)
{
	ks_submission dummy, *s = &dummy;
	ks_submission_limits l = limits();
	char dir[4200];
	int i;

	snprintf(dir, sizeof(dir), "%s/empty", kt_tmpdir());
	KT_EQ_INT(mkdir(dir, 0755), 0);
	KT_EQ_INT(ks_submission_load(&s, dir, NULL), KS_EINVALID);
	KT_ASSERT(s == NULL);
	KT_CONTAINS(ks_error_msg(), dir);
	KT_CONTAINS(ks_error_msg(), "holds no .json, .jsonl, .json.gz or .jsonl.gz file");
	kt_write("empty/notes.txt", "[]", 2);
	KT_EQ_INT(ks_submission_load(&s, dir, NULL), KS_EINVALID);

	snprintf(dir, sizeof(dir), "%s/missing.json", kt_tmpdir());
	KT_EQ_INT(ks_submission_load(&s, dir, NULL), KS_ENOTFOUND);
	KT_CONTAINS(ks_error_msg(), "missing.json: no such file or folder");

	snprintf(dir, sizeof(dir), "%s/many", kt_tmpdir());
	KT_EQ_INT(mkdir(dir, 0755), 0);
	for (i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "many/p%d.json", i);
		kt_write(name, "[]", 2);
	}
	l.max_passes = 2;
	KT_EQ_INT(ks_submission_load(&s, dir, &l), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "3 submission files, over the limit of 2 passes");
	l.max_passes = 3;
	KT_EQ_INT(load(dir, &l)->npasses, 3);
}

static void test_unreadable_file_is_a_failed_pass(void)
{
	char path[4200];
	ks_submission *s;

	snprintf(path, sizeof(path), "%s/gone.json", kt_tmpdir());
	KT_EQ_INT(symlink("nowhere", path), 0);
	s = load(path, NULL);
	KT_EQ_INT(s->npasses, 1);
	KT_CONTAINS(s->passes[0].error, "gone.json");
	KT_EQ_INT(s->passes[0].nentries, 0);
	KT_EQ_STR(s->passes[0].sha256, "");
}

static void test_file_size_limit(void)
{
	ks_submission_limits l = limits();
	ks_submission *s;

	l.max_file_bytes = 10;
	KT_ASSERT(!parse_s("ten.json", "[ ]       ", &l)->error);
	KT_EQ_STR(parse_s("eleven.json", "[ ]        ", &l)->error,
		  "eleven.json: file is 11 bytes, over the limit of 10");
	KT_EQ_INT(g_pass.nentries, 0);
	s = load(kt_write("big.json", "[ ]        ", 11), &l);
	KT_CONTAINS(s->passes[0].error, "big.json: file is 11 bytes, over the limit of 10");
}

static void test_zip_bomb_stops_at_the_limit(void)
{
	size_t big = 10u << 20, n;
	char *spaces = ks_malloc(big), text[1000];
	ks_submission_limits l = limits();
	ks_pass *p;

	/* blanks inside an array: the scan accepts them, so the size cap is what stops it */
	memset(spaces, ' ', big);
	spaces[0] = '[';
	n = gz(spaces, big);
	ks_free(spaces);
	KT_ASSERT(n < 64 * 1024);
	l.max_decompressed_bytes = 1u << 20;
	p = parse("bomb.json", g_gz, n, &l);
	KT_EQ_INT(p->gzip, 1);
	KT_EQ_STR(p->error, "bomb.json: decompresses to more than 1048576 bytes, the limit");
	KT_EQ_INT(p->nentries, 0);
	/* exactly at the limit is fine */
	memset(text, ' ', sizeof(text));
	text[0] = '[';
	text[sizeof(text) - 1] = ']';
	n = gz(text, sizeof(text));
	l.max_decompressed_bytes = sizeof(text);
	KT_ASSERT(!parse("edge.json", g_gz, n, &l)->error);
	l.max_decompressed_bytes = sizeof(text) - 1;
	KT_CONTAINS(parse("edge.json", g_gz, n, &l)->error, "more than 999 bytes");
	/* binary zeros are not JSON: refused at the first byte, not at the size cap */
	spaces = ks_calloc(1, big);
	n = gz(spaces, big);
	ks_free(spaces);
	KT_EQ_STR(parse("zeros.json", g_gz, n, NULL)->error,
		  "zeros.json: expected a JSON array of entries or JSON Lines of objects");
}

static void test_code_size_limit(void)
{
	ks_submission_limits l = limits();
	ks_pass *p;

	l.max_code_bytes = 16;
	p = parse_s("s.json", "[{\"file\": \"a.py\", \"predict\": \"0123456789abcdef\"},"
			      " {\"file\": \"b.py\", \"predict\": \"0123456789abcdefg\"}]", &l);
	KT_ASSERT(!p->error);
	KT_EQ_INT(p->nentries, 2);
	KT_ASSERT(!p->entries[0].error);
	KT_EQ_STR(p->entries[1].error,
		  "s.json: entry 1: field \"predict\" is 17 bytes, over the limit of 16");
	KT_ASSERT(p->entries[1].code == NULL);
	KT_EQ_STR(p->entries[1].problem, "b");
}

static void test_entry_count_limit(void)
{
	ks_submission_limits l = limits();
	const char *e = "{\"file\": \"a.py\"}";
	char arr[256], lines[256];

	l.max_entries = 2;
	snprintf(arr, sizeof(arr), "[%s, %s]", e, e);
	KT_EQ_INT(parse_s("two.json", arr, &l)->nentries, 2);
	snprintf(arr, sizeof(arr), "[%s, %s, %s]", e, e, e);
	KT_EQ_STR(parse_s("three.json", arr, &l)->error,
		  "three.json: more than 2 entries, the limit");
	KT_EQ_INT(g_pass.nentries, 0);
	snprintf(lines, sizeof(lines), "%s\n\n%s\n\n", e, e);
	KT_EQ_INT(parse_s("two.jsonl", lines, &l)->nentries, 2);
	snprintf(lines, sizeof(lines), "%s\n%s\n%s\n", e, e, e);
	KT_EQ_STR(parse_s("three.jsonl", lines, &l)->error,
		  "three.jsonl: more than 2 entries, the limit");
	KT_EQ_INT(g_pass.nentries, 0);
}

static void test_depth_limit(void)
{
	ks_submission_limits l = limits();
	ks_pass *p;

	l.max_depth = 3;
	KT_ASSERT(!parse_s("ok.json", "[{\"file\": \"a\", \"launch\": {\"x\": 1}}]", &l)->error);
	KT_EQ_STR(parse_s("deep.json", "[{\"file\": \"a\", \"launch\": {\"x\": [1]}}]", &l)->error,
		  "deep.json:1:32: JSON nested deeper than 3 levels");
	KT_ASSERT(!parse_s("ok.jsonl", "{\"launch\": {\"x\": {\"y\": 1}}}", &l)->error);
	p = parse_s("deep.jsonl", "{\"file\": \"a\"}\n{\"launch\": {\"x\": {\"y\": [1]}}}\n", &l);
	KT_EQ_STR(p->error, "deep.jsonl:2:24: JSON nested deeper than 3 levels");
	KT_EQ_INT(g_pass.nentries, 0);
}

static void test_malformed_entries_are_kept(void)
{
	ks_pass *p = parse_s("m.json", "[7, {\"predict\": \"x\"}, {\"file\": \"\"}, {\"file\": 5},"
				       " {\"file\": \"a.py\", \"predict\": 7},"
				       " {\"file\": \"b.py\", \"launch\": [1]},"
				       " {\"file\": \"c.py\", \"difficulty\": 1.5},"
				       " {\"file\": \"d.py\", \"difficulty\": \"2\"},"
				       " {\"file\": \"e.py\", \"difficulty\": 1e12},"
				       " {\"file\": \"ok.py\", \"predict\": \"" K "\","
				       "  \"label\": null, \"instruction\": null,"
				       "  \"launch\": null, \"difficulty\": null}]",
			     NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 10);
	KT_EQ_STR(p->entries[0].error, "m.json: entry 0: not a JSON object");
	KT_EQ_STR(p->entries[1].error, "m.json: entry 1: missing field \"file\"");
	KT_EQ_STR(p->entries[2].error, "m.json: entry 2: field \"file\" is empty");
	KT_EQ_STR(p->entries[3].error, "m.json: entry 3: field \"file\" must be a string");
	KT_EQ_STR(p->entries[4].error, "m.json: entry 4: field \"predict\" must be a string");
	KT_EQ_STR(p->entries[5].error, "m.json: entry 5: field \"launch\" must be a JSON object");
	KT_EQ_STR(p->entries[6].error, "m.json: entry 6: field \"difficulty\" must be an integer");
	KT_EQ_STR(p->entries[7].error, "m.json: entry 7: field \"difficulty\" must be a number");
	KT_EQ_STR(p->entries[8].error, "m.json: entry 8: field \"difficulty\" is out of range");
	/* what was read before the problem stays, for reports */
	KT_EQ_STR(p->entries[4].problem, "a");
	KT_EQ_STR(p->entries[0].predict, "");
	KT_ASSERT(p->entries[4].code == NULL && p->entries[4].extract_note == NULL);
	KT_ASSERT(!p->entries[9].error);
	KT_EQ_STR(p->entries[9].code, K);
	KT_ASSERT(!p->entries[9].label && !p->entries[9].instruction && !p->entries[9].launch_json);
	KT_EQ_INT(p->entries[9].difficulty, -1);
	/* JSON Lines: a line that is valid JSON but not an object is a malformed entry too */
	p = parse_s("m.jsonl", "{\"file\": \"a.py\"}\n[1]\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_STR(p->entries[1].error, "m.jsonl: entry 1: not a JSON object");
}

static void test_invalid_files_report_where(void)
{
	const char *bad = "[\n  {\"file\": \"a.py\",\n   \"predict\": x}\n]";

	KT_EQ_STR(parse_s("bad.json", bad, NULL)->error, "bad.json:3:15: invalid JSON");
	KT_EQ_INT(g_pass.nentries, 0);
	KT_EQ_STR(parse_s("bad.jsonl", "{\"file\": \"a.py\"}\n\n{\"file\": oops}\n", NULL)->error,
		  "bad.jsonl:3:10: invalid JSON");
	KT_EQ_INT(g_pass.nentries, 0);
	KT_EQ_STR(parse_s("tail.json", "[] x", NULL)->error,
		  "tail.json:1:4: unexpected text after the JSON value");
	KT_EQ_STR(parse_s("num.json", " 42", NULL)->error,
		  "num.json: expected a JSON array of entries or JSON Lines of objects");
	KT_EQ_STR(parse_s("empty.json", " \r\n", NULL)->error,
		  "empty.json: empty file (expected a JSON array or JSON Lines)");
	KT_CONTAINS(parse("nul.json", "\xEF\xBB\xBF", 3, NULL)->error, "empty file");
}

static void test_empty_array_and_bom(void)
{
	ks_pass *p = parse_s("e.json", "[]", NULL);
	KT_ASSERT(!p->error);
	KT_EQ_INT(p->nentries, 0);
	p = parse_s("e.json", "\xEF\xBB\xBF [ ]\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 0);
	p = parse_s("b.jsonl", "\xEF\xBB\xBF{\"file\": \"a.py\"}\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 1);
}

static void test_problem_is_the_file_stem(void)
{
	static const char *const cases[][2] = {
		{ "sin_kernel.py", "sin_kernel" }, { "dir/x.cu", "x" }, { "a/b/c.cuh", "c" },
		{ "plain", "plain" }, { "k.json.gz", "k" }, { "v1.2_kernel.py", "v1.2_kernel" },
	};
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[{\"file\": \"%s\"}]", cases[i][0]);
		KT_EQ_STR(parse_s("s.json", text, NULL)->entries[0].problem, cases[i][1]);
		KT_EQ_STR(g_pass.entries[0].file, cases[i][0]);
	}
	KT_EQ_STR(parse_s("s.json", "[{\"file\": \"dir/\"}]", NULL)->entries[0].error,
		  "s.json: entry 0: field \"file\" names no problem");
}

static void test_sha256_stability_and_sensitivity(void)
{
	const char *base = "[{\"file\": \"a.py\", \"instruction\": \"i1\", \"predict\": \"p1\","
			   " \"launch\": {\"kernel\": \"k\", \"block\": [256]}}]";
	char entry[65], pass[65];

	parse_s("s.json", base, NULL);
	memcpy(entry, g_pass.entries[0].sha256, 65);
	memcpy(pass, g_pass.sha256, 65);
	KT_EQ_INT(strlen(entry), 64);
	parse_s("other-name.json", base, NULL);
	KT_EQ_STR(g_pass.entries[0].sha256, entry);
	KT_EQ_STR(g_pass.sha256, pass);

	/* only predict and launch identify a candidate */
	parse_s("s.json", "[{\"file\": \"a.py\", \"instruction\": \"i2\", \"predict\": \"p1\","
			  " \"launch\": {\"kernel\":\"k\",\"block\":[256]}}]", NULL);
	KT_EQ_STR(g_pass.entries[0].sha256, entry);
	KT_ASSERT(strcmp(g_pass.sha256, pass) != 0);
	parse_s("s.json", "[{\"file\": \"a.py\", \"instruction\": \"i1\", \"predict\": \"p2\","
			  " \"launch\": {\"kernel\": \"k\", \"block\": [256]}}]", NULL);
	KT_ASSERT(strcmp(g_pass.entries[0].sha256, entry) != 0);
	parse_s("s.json", "[{\"file\": \"a.py\", \"instruction\": \"i1\", \"predict\": \"p1\","
			  " \"launch\": {\"kernel\": \"k\", \"block\": [128]}}]", NULL);
	KT_ASSERT(strcmp(g_pass.entries[0].sha256, entry) != 0);
	/* no launch differs from an empty one */
	parse_s("s.json", "[{\"file\": \"a.py\", \"predict\": \"p1\"},"
			  " {\"file\": \"a.py\", \"predict\": \"p1\", \"launch\": {}}]", NULL);
	KT_ASSERT(strcmp(g_pass.entries[0].sha256, g_pass.entries[1].sha256) != 0);
}

static void test_pass_parse_names(void)
{
	ks_pass *p = parse_s("team/iter/sub.json", "[{}]", NULL);
	KT_EQ_STR(p->path, "team/iter/sub.json");
	KT_EQ_STR(p->name, "sub.json");
	KT_EQ_STR(p->entries[0].error, "team/iter/sub.json: entry 0: missing field \"file\"");
	ks_pass_clear(&g_pass);
	KT_ASSERT(g_pass.entries == NULL && g_pass.path == NULL);
	ks_pass_clear(&g_pass);
	ks_pass_clear(NULL);
	ks_submission_free(NULL);
}


/* ---- memory: counts and sizes are checked before any JSON tree is built */

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

typedef struct {
	const void *data;
	size_t len;
	const char *name;
	const char *want;        /* the pass error, or NULL: no pass error and ... */
	const char *want_entry;  /* ... this error on entry 0 */
} parse_job;

/* Parses in a child and returns how much its resident memory grew over the parent's at the fork,
 * in KiB (its peak, from wait4). The parent watches the child and kills it past kill_kb, so that a
 * parser that builds the whole tree fails this test instead of exhausting the machine. */
static long parse_growth_kb(const parse_job *j, long kill_kb)
{
	long base = rss_kb(getpid());
	struct rusage ru;
	pid_t pid;
	int st = 0;

	KT_ASSERT(base > 0);
	fflush(stderr);
	pid = fork();
	KT_ASSERT(pid >= 0);
	if (pid == 0) {
		ks_pass p;
		int ok;
		ks_pass_parse(&p, j->name, j->data, j->len, NULL);
		ok = j->want ? p.error && !strcmp(p.error, j->want)
			     : !p.error && p.nentries >= 1 && p.entries[0].error &&
				       strstr(p.entries[0].error, j->want_entry);
		if (!ok)
			fprintf(stderr, "child: got \"%s\"\n", p.error ? p.error : p.nentries ? p.entries[0].error : "");
		_exit(ok ? 0 : 2);
	}
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);
		KT_ASSERT(w >= 0);
		if (w == pid)
			break;
		if (rss_kb(pid) - base > kill_kb) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			KT_FAIL("%s: parsing took more than %ld MiB; killed", j->name, kill_kb >> 10);
		}
		usleep(2000);
	}
	KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: wrong result (status %d)", j->name, st);
	return ru.ru_maxrss - base;
}

/* "[0,0,...,0]" of about `bytes` bytes, gzip-compressed as a stream (the text never exists whole). */
static size_t gz_zero_array(size_t bytes)
{
	size_t chunk = 1u << 20, done = 0, cap = 1u << 20;
	char *zeros = ks_malloc(chunk);
	z_stream zs;
	size_t i;

	for (i = 0; i < chunk; i += 2) {
		zeros[i] = '0';
		zeros[i + 1] = ',';
	}
	memset(&zs, 0, sizeof(zs));
	KT_EQ_INT(deflateInit2(&zs, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	ks_free(g_gz);
	g_gz = ks_malloc(cap);
	zs.next_out = g_gz;
	zs.avail_out = (uInt)cap;
	zs.next_in = (unsigned char *)"[";
	zs.avail_in = 1;
	KT_EQ_INT(deflate(&zs, Z_NO_FLUSH), Z_OK);
	for (; done < bytes; done += chunk) {
		zs.next_in = (unsigned char *)zeros;
		zs.avail_in = (uInt)chunk;
		while (zs.avail_in) {
			KT_EQ_INT(deflate(&zs, Z_NO_FLUSH), Z_OK);
			KT_ASSERT(zs.avail_out > 0);
		}
	}
	zs.next_in = (unsigned char *)"0]";
	zs.avail_in = 2;
	KT_EQ_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	ks_free(zeros);
	return zs.total_out;
}

static void test_counts_are_checked_before_any_tree(void)
{
	size_t big = 63u << 20, n, i;
	char *text = ks_malloc(big + 64);
	parse_job j;
	long kb;

	/* the reported bomb: ~250 KB of gzip that inflates to a 254 MiB array of zeros took 10.7 GB */
	n = gz_zero_array(254u << 20);
	KT_ASSERT(n < (1u << 20));
	j.data = g_gz;
	j.len = n;
	j.name = "bomb.json.gz";
	j.want = "bomb.json.gz: more than 10000 entries, the limit";
	j.want_entry = NULL;
	kb = parse_growth_kb(&j, 256 << 10);
	KT_ASSERT_MSG(kb < 64 << 10, "the gzip bomb grew memory by %ld KiB", kb);

	/* a 63 MB plain array of zeros (2.65 GB before) */
	text[0] = '[';
	for (i = 1; i + 2 < big; i += 2) {
		text[i] = '0';
		text[i + 1] = ',';
	}
	text[i] = '0';
	text[i + 1] = ']';
	j.data = text;
	j.len = i + 2;
	j.name = "zeros.json";
	j.want = "zeros.json: more than 10000 entries, the limit";
	kb = parse_growth_kb(&j, 256 << 10);
	KT_ASSERT_MSG(kb < 64 << 10, "the plain array grew memory by %ld KiB", kb);

	/* the same zeros inside one entry: that entry is refused, unparsed */
	memcpy(text, "[{\"file\": \"a.py\", \"x\": [", 24);
	text[j.len - 1] = ']';
	memcpy(text + j.len, "}]", 2);
	j.len += 2;
	j.name = "one.json";
	j.want = NULL;
	j.want_entry = "one.json: entry 0: the entry holds more than 10000 JSON values, the limit";
	kb = parse_growth_kb(&j, 256 << 10);
	KT_ASSERT_MSG(kb < 64 << 10, "the big entry grew memory by %ld KiB", kb);
	/* and as one JSON Lines line */
	j.data = text + 1;
	j.len -= 2;
	j.name = "one.jsonl";
	j.want_entry = "one.jsonl: entry 0: the entry holds more than 10000 JSON values, the limit";
	kb = parse_growth_kb(&j, 256 << 10);
	KT_ASSERT_MSG(kb < 64 << 10, "the big line grew memory by %ld KiB", kb);
	ks_free(text);
}

static void test_entry_caps(void)
{
	ks_submission_limits l = limits();
	ks_pass *p;

	l.max_entry_bytes = 41;
	l.max_entry_values = 7; /* {, "file", "c.py", "x", [, 1, 2 */
	l.max_file_field_bytes = 8;
	p = parse_s("c.json", "[{\"file\": \"a.py\", \"predict\": \"0123456789\"},"
			      " {\"file\": \"b.py\", \"predict\": \"0123456789a\"},"
			      " {\"file\": \"c.py\", \"x\": [1, 2]},"
			      " {\"file\": \"d.py\", \"x\": [1, 2, 3]},"
			      " {\"file\": \"long_name.py\"}, {\"file\": \"12345678\"}]", &l);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 6);
	KT_ASSERT(!p->entries[0].error);
	KT_EQ_STR(p->entries[1].error, "c.json: entry 1: the entry is over 41 bytes of JSON, the limit");
	KT_EQ_INT(p->entries[1].fault, KS_ENTRY_MALFORMED);
	KT_ASSERT(p->entries[1].file == NULL);
	KT_ASSERT(!p->entries[2].error);
	KT_EQ_STR(p->entries[3].error, "c.json: entry 3: the entry holds more than 7 JSON values, the limit");
	KT_EQ_STR(p->entries[4].error, "c.json: entry 4: field \"file\" is 12 bytes, over the limit of 8");
	KT_ASSERT(p->entries[4].file == NULL && p->entries[4].problem == NULL);
	KT_ASSERT(!p->entries[5].error);
	/* the same caps per line of JSON Lines */
	p = parse_s("c.jsonl", "{\"file\": \"a.py\", \"predict\": \"0123456789\"}\n"
			       "{\"file\": \"b.py\", \"predict\": \"0123456789a\"}\n"
			       "{\"file\": \"d.py\", \"x\": [1, 2, 3]}\n", &l);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_ASSERT(!p->entries[0].error);
	KT_EQ_STR(p->entries[1].error, "c.jsonl: entry 1: the entry is over 41 bytes of JSON, the limit");
	KT_EQ_STR(p->entries[2].error, "c.jsonl: entry 2: the entry holds more than 7 JSON values, the limit");
}

static void test_structure_is_checked_while_scanning(void)
{
	ks_pass *p;

	KT_EQ_STR(parse_s("c.json", "[{\"file\": \"a.py\"}\n {\"file\": \"b.py\"}]", NULL)->error,
		  "c.json:2:2: invalid JSON (a comma is missing)");
	KT_EQ_STR(parse_s("t.json", "[{\"file\": \"a.py\"},]", NULL)->error,
		  "t.json:1:19: invalid JSON (a comma before the closing bracket)");
	KT_EQ_STR(parse_s("u.json", "[{\"file\": \"a.py\"}", NULL)->error,
		  "u.json:1:18: invalid JSON (the text ends before a closing bracket)");
	KT_EQ_STR(parse_s("s.json", "[{\"file\": \"a.py}]", NULL)->error,
		  "s.json:1:18: invalid JSON (the text ends inside a string)");
	KT_EQ_STR(parse_s("m.json", "[{\"file\": \"a.py\"]]", NULL)->error,
		  "m.json:1:17: invalid JSON (a bracket does not match)");
	KT_EQ_STR(parse_s("e.json", "[{\"file\": \"a\\q.py\"}]", NULL)->error,
		  "e.json:1:14: invalid JSON (a bad escape in a string)");
	KT_EQ_STR(parse_s("x.json", "[{\"file\": \"a.py\"}] ]", NULL)->error,
		  "x.json:1:20: unexpected text after the JSON value");
	KT_EQ_STR(parse_s("two.jsonl", "{\"file\": \"a.py\"} {\"file\": \"b.py\"}\n", NULL)->error,
		  "two.jsonl:1:18: unexpected text after the JSON value");
	KT_EQ_STR(parse_s("bom.json", "\xEF\xBB[]", NULL)->error,
		  "bom.json: expected a JSON array of entries or JSON Lines of objects");
	/* brackets and quotes inside strings are text */
	p = parse_s("q.json", "[{\"file\": \"a.py\", \"predict\": \"]}\\\"[{,:\"}, \"str\", 5, true]", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 4);
	KT_EQ_STR(p->entries[0].predict, "]}\"[{,:");
	KT_EQ_STR(p->entries[3].error, "q.json: entry 3: not a JSON object");
	/* JSON Lines: objects may span lines, one after the other */
	p = parse_s("p.jsonl", "{\n \"file\": \"a.py\"\n}\n{\n \"file\": \"b.py\"\n}\n7\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 3);
	KT_EQ_STR(p->entries[1].problem, "b");
	KT_EQ_STR(p->entries[2].error, "p.jsonl: entry 2: not a JSON object");
}

/* ---- bytes that code cannot hold */

static void test_bad_encoding_is_refused_with_its_place(void)
{
	static const char text[] =
		"[{\"file\": \"ok.py\", \"predict\": \"\\u00e9\\ud83d\\ude00 \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 "
		K "\"},\n"
		" {\"file\": \"a.py\", \"predict\": \"ab\\ncd\xC3\xA9\xFF" K "\"},\n"
		" {\"file\": \"b.py\", \"predict\": \"x\\u0000y" K "\"},\n"
		" {\"file\": \"c.py\", \"predict\": \"x\\udcffy\"},\n"
		" {\"file\": \"d.py\", \"predict\": \"\xE2\x82\"},\n"
		" {\"file\": \"e.py\", \"predict\": \"\xC0\xAF\"},\n"
		" {\"file\": \"f\xFF.py\"},\n"
		" {\"fi\xFFle\": 1, \"file\": \"g.py\"},\n"
		" {\"file\": \"h.py\", \"launch\": {\"kernel\": \"\xED\xA0\x80\"}},\n"
		" {\"file\": \"i.py\", \"predict\": \"x\\ud800\"},\n"
		" {\"file\": \"j.py\", \"predict\": \"x\0y\"},\n"
		" {\"file\": \"k.py\", \"predict\": \"" K "\"}]";
	ks_pass *p = parse("b.json", text, sizeof(text) - 1, NULL);
	size_t i;

	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 12);
	KT_ASSERT_MSG(!p->entries[0].error, "%s", p->entries[0].error);
	KT_ASSERT(p->entries[0].code != NULL);
	KT_ASSERT(!p->entries[11].error && p->entries[11].code);
	for (i = 1; i < 11; i++) {
		KT_EQ_INT(p->entries[i].fault, KS_ENTRY_BAD_ENCODING);
		KT_ASSERT(p->entries[i].code == NULL);
		KT_CONTAINS(p->entries[i].error, "entries must be UTF-8 text without NUL characters");
	}
	KT_EQ_STR(p->entries[1].error,
		  "b.json: entry 1: field \"predict\" holds a byte that is not UTF-8 (0xFF) at byte offset 7, "
		  "line 2, column 4 of its text (b.json:2:39); entries must be UTF-8 text without NUL "
		  "characters");
	KT_EQ_STR(p->entries[1].file, "a.py"); /* the rest of the entry still names it */
	KT_CONTAINS(p->entries[2].error, "field \"predict\" holds a NUL character at byte offset 1, line 1, "
					 "column 2 of its text (b.json:3:32)");
	KT_CONTAINS(p->entries[3].error, "field \"predict\" holds an unpaired UTF-16 surrogate (\\uDCFF) at "
					 "byte offset 1");
	KT_CONTAINS(p->entries[4].error, "a byte that is not UTF-8 (0xE2) at byte offset 0");
	KT_CONTAINS(p->entries[5].error, "a byte that is not UTF-8 (0xC0) at byte offset 0");
	KT_CONTAINS(p->entries[6].error, "field \"file\" holds a byte that is not UTF-8 (0xFF) at byte offset 1");
	KT_CONTAINS(p->entries[7].error, "a field name holds a byte that is not UTF-8 (0xFF) at byte offset 2");
	KT_CONTAINS(p->entries[8].error, "field \"launch\" holds a byte that is not UTF-8 (0xED)");
	KT_CONTAINS(p->entries[9].error, "an unpaired UTF-16 surrogate (\\uD800) at byte offset 1");
	KT_CONTAINS(p->entries[10].error, "field \"predict\" holds a NUL character at byte offset 1");
	/* the same in JSON Lines, where the file position is the line's */
	p = parse_s("b.jsonl", "{\"file\": \"a.py\"}\n{\"file\": \"b.py\", \"predict\": \"\xFF\"}\n", NULL);
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_CONTAINS(p->entries[1].error, "(b.jsonl:2:30)");
}

/* ---- duplicates */

static void test_duplicates_count_once(void)
{
	ks_pass *p = parse_s("d.json", "[{\"file\": \"a.py\", \"predict\": \"" K "\"},"
				       " {\"file\": \"b.py\", \"predict\": 7},"
				       " {\"file\": \"a.py\", \"predict\": \"" K "\"},"
				       " {\"file\": \"dir/a.cu\", \"predict\": \"" K "\"},"
				       " {\"predict\": \"" K "\"}, {\"predict\": \"" K "\"},"
				       " {\"file\": \"b.py\", \"predict\": \"" K "\"}]", NULL);
	size_t i;

	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 7);
	KT_ASSERT(!p->entries[0].error && p->entries[0].code);
	KT_EQ_INT(p->entries[1].fault, KS_ENTRY_MALFORMED);
	KT_EQ_STR(p->entries[2].error,
		  "d.json: entry 2: duplicate of entry 0, which names the same problem \"a\": only the first "
		  "entry for a problem in a file counts (several attempts belong in several files, for pass@k)");
	KT_EQ_INT(p->entries[2].first, 0);
	KT_EQ_INT(p->entries[3].fault, KS_ENTRY_DUPLICATE);
	KT_EQ_INT(p->entries[3].first, 0);
	/* entries that name no problem are nobody's duplicates */
	KT_EQ_INT(p->entries[4].fault, KS_ENTRY_MALFORMED);
	KT_EQ_INT(p->entries[5].fault, KS_ENTRY_MALFORMED);
	/* the first entry counts whatever becomes of it: a good later one does not replace it */
	KT_EQ_INT(p->entries[6].fault, KS_ENTRY_DUPLICATE);
	KT_EQ_INT(p->entries[6].first, 1);
	for (i = 2; i < 7; i++)
		KT_ASSERT(p->entries[i].code == NULL);
	/* JSON Lines alike; several files are several passes, not duplicates */
	p = parse_s("d.jsonl", "{\"file\": \"a.py\"}\n{\"file\": \"a.py\"}\n", NULL);
	KT_EQ_INT(p->entries[1].fault, KS_ENTRY_DUPLICATE);
	{
		char dir[4200];
		snprintf(dir, sizeof(dir), "%s/sub", kt_tmpdir());
		KT_EQ_INT(mkdir(dir, 0755), 0);
	}
	kt_write("sub/p1.json", "[{\"file\": \"a.py\"}]", 18);
	kt_write("sub/p2.json", "[{\"file\": \"a.py\"}]", 18);
	{
		char path[4200];
		ks_submission *s;
		snprintf(path, sizeof(path), "%s/sub", kt_tmpdir());
		s = load(path, NULL);
		KT_EQ_INT(s->npasses, 2);
		KT_EQ_INT(s->passes[0].entries[0].fault, KS_ENTRY_OK);
		KT_EQ_INT(s->passes[1].entries[0].fault, KS_ENTRY_OK);
	}
}

static const kt_test tests[] = {
	KT(test_array_file), KT(test_jsonl_file), KT(test_jsonl_blank_lines_crlf_and_single_object),
	KT(test_an_object_wrapping_the_entries_is_refused),
	KT(test_gzip_detected_by_magic), KT(test_concatenated_and_broken_gzip),
	KT(test_folder_of_passes), KT(test_folder_and_path_errors),
	KT(test_unreadable_file_is_a_failed_pass), KT(test_file_size_limit),
	KT(test_zip_bomb_stops_at_the_limit), KT(test_code_size_limit), KT(test_entry_count_limit),
	KT(test_depth_limit), KT(test_malformed_entries_are_kept),
	KT(test_invalid_files_report_where),
	KT(test_empty_array_and_bom), KT(test_problem_is_the_file_stem),
	KT(test_sha256_stability_and_sensitivity), KT(test_pass_parse_names),
	KT(test_counts_are_checked_before_any_tree), KT(test_entry_caps),
	KT(test_structure_is_checked_while_scanning), KT(test_bad_encoding_is_refused_with_its_place),
	KT(test_duplicates_count_once), { 0 }
};
KT_MAIN("submission", tests)
