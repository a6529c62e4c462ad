#include "ktest.h"
#include "util/jscan.h"
#include "util/errors.h"
#include "util/mem.h"

static const ks_jscan_limits lim = { 100, 1000, 100, 8 };

/* Scans text in pieces of `step` bytes; returns the scanner (caller frees) and the status. */
static ks_jscan *scan(const char *text, size_t len, size_t step, int *rc)
{
	ks_jscan *s = ks_jscan_new(&lim, "t");
	size_t off;

	*rc = 0;
	for (off = 0; off < len && *rc == 0; off += step)
		*rc = ks_jscan_feed(s, text + off, off + step > len ? len - off : step);
	if (*rc == 0)
		*rc = ks_jscan_finish(s);
	return s;
}

static void same_in_any_pieces(const char *text, size_t len)
{
	int rc0, rc;
	ks_jscan *whole = scan(text, len, len ? len : 1, &rc0);
	char msg0[512];
	size_t step, n0, n, i;
	const ks_jscan_entry *e0 = ks_jscan_entries(whole, &n0), *e;

	snprintf(msg0, sizeof(msg0), "%s", ks_error_msg());
	for (step = 1; step < 8; step++) {
		ks_jscan *s = scan(text, len, step, &rc);
		KT_EQ_INT(rc, rc0);
		if (rc0)
			KT_EQ_STR(ks_error_msg(), msg0);
		e = ks_jscan_entries(s, &n);
		KT_EQ_INT(n, n0);
		for (i = 0; i < n; i++)
			KT_ASSERT_MSG(!memcmp(&e[i], &e0[i], sizeof(e[i])), "entry %zu differs in pieces of %zu", i,
				      step);
		ks_jscan_free(s);
	}
	ks_jscan_free(whole);
}

static void test_pieces_do_not_matter(void)
{
	static const char array[] = "\xEF\xBB\xBF[ {\"file\": \"a.py\", \"predict\": \"x\\\"]\\u00e9\\ud83d\\ude00\xC3\xA9\"},\n"
				    "  {\"file\": \"b\xE2\x82\xAC.py\", \"launch\": {\"k\": [1, -2.5e3, true, null]}},\n"
				    "  {\"file\": \"c.py\", \"predict\": \"ab\\ncd\xF0\x9F\x98\x80\xFF\"}, 42, \"s\\u0000\"]\n";
	static const char lines[] = "{\"file\": \"a.py\"}\r\n\n{\n \"file\": \"b\\udc00.py\"\n}\n[1, 2]\n7\n";

	same_in_any_pieces(array, sizeof(array) - 1);
	same_in_any_pieces(lines, sizeof(lines) - 1);
	same_in_any_pieces("[{\"a\": 1} {\"b\": 2}]", 19);
	same_in_any_pieces("[[[[[[[[[[1]]]]]]]]]]", 21);
	same_in_any_pieces("", 0);
}

static void test_entries_and_their_places(void)
{
	static const char text[] = "[ {\"file\": \"a.py\"},\n  {\"file\": \"c.py\", \"predict\": \"ab\\ncd\xC3\xA9\xFF\"}, 42]";
	int rc;
	size_t n;
	ks_jscan *s = scan(text, sizeof(text) - 1, 1, &rc);
	const ks_jscan_entry *e = ks_jscan_entries(s, &n);

	KT_EQ_INT(rc, 0);
	KT_EQ_INT(ks_jscan_kind(s), KS_JSCAN_ARRAY);
	KT_EQ_INT(n, 3);
	KT_EQ_INT(e[0].start, 2);
	KT_EQ_INT(e[0].end, 18);
	KT_EQ_INT(e[0].values, 3);
	KT_EQ_INT(e[0].bad, KS_JSCAN_GOOD);
	KT_EQ_INT(e[1].line, 2);
	KT_EQ_INT(e[1].col, 3);
	KT_EQ_INT(e[1].bad, KS_JSCAN_BAD_UTF8);
	KT_EQ_INT(e[1].code, 0xFF);
	KT_EQ_STR(e[1].bad_field, "predict");
	KT_EQ_INT(e[1].bad_offset, 7);
	KT_EQ_INT(e[1].bad_line, 2);
	KT_EQ_INT(e[1].bad_col, 4);
	KT_EQ_INT(e[2].values, 1);
	KT_EQ_INT(text[e[2].start], '4');
	KT_EQ_INT(e[2].end - e[2].start, 2);
	ks_jscan_free(s);
}

static void test_limits_stop_the_scan(void)
{
	ks_jscan_limits l = lim;
	ks_jscan *s;
	int rc;

	l.max_entries = 3;
	s = ks_jscan_new(&l, "t");
	KT_EQ_INT(ks_jscan_feed(s, "[0,0,0,0", 8), KS_ELIMIT);
	KT_EQ_STR(ks_error_msg(), "t: more than 3 entries, the limit");
	/* sticky: later pieces are not read */
	KT_EQ_INT(ks_jscan_feed(s, "]", 1), KS_ELIMIT);
	KT_EQ_INT(ks_jscan_finish(s), KS_ELIMIT);
	ks_jscan_free(s);
	s = scan("[[[[[[[[[1]]]]]]]]]", 19, 3, &rc);
	KT_EQ_INT(rc, KS_ELIMIT);
	KT_EQ_STR(ks_error_msg(), "t:1:9: JSON nested deeper than 8 levels");
	ks_jscan_free(s);
}

static const kt_test tests[] = {
	KT(test_pieces_do_not_matter), KT(test_entries_and_their_places), KT(test_limits_stop_the_scan), { 0 }
};
KT_MAIN("jscan", tests)
