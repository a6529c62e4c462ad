#include "ktest.h"
#include "utf8.h"
#include "mem.h"

static void test_valid_and_first_bad_byte(void)
{
	static const struct {
		const char *s;
		long bad; /* -1: valid */
	} cases[] = {
		{ "", -1 },
		{ "plain ascii", -1 },
		{ "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF", -1 }, /* é € 😀 U+10FFFF */
		{ "\xEF\xBF\xBD", -1 },                                       /* U+FFFD */
		{ "ab\xFF", 2 },
		{ "ab\x80", 2 },                /* a lone continuation byte */
		{ "\xC0\xAF", 0 },              /* overlong '/' */
		{ "\xC1\xBF", 0 },
		{ "\xE0\x80\xAF", 0 },          /* overlong 3-byte */
		{ "\xF0\x80\x80\xAF", 0 },      /* overlong 4-byte */
		{ "x\xED\xA0\x80", 1 },         /* U+D800, a surrogate */
		{ "\xF4\x90\x80\x80", 0 },      /* above U+10FFFF */
		{ "\xF5\x80\x80\x80", 0 },
		{ "ok\xE2\x82", 2 },            /* truncated at the end */
		{ "ok\xE2\x28\xA1", 2 },        /* broken in the middle */
	};
	size_t i, bad;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ok = ks_utf8_valid(cases[i].s, strlen(cases[i].s), &bad);
		KT_ASSERT_MSG(ok == (cases[i].bad < 0), "case %zu: valid is %d", i, ok);
		if (!ok)
			KT_ASSERT_MSG((long)bad == cases[i].bad, "case %zu: bad at %zu, expected %ld", i, bad,
				      cases[i].bad);
	}
	/* NUL is a character */
	KT_ASSERT(ks_utf8_valid("a\0b", 3, NULL));
}

static void test_sanitize_replaces_only_what_is_bad(void)
{
	char *s;
	size_t n;

	s = ks_utf8_sanitize("caf\xC3\xA9", 5, &n);
	KT_EQ_STR(s, "caf\xC3\xA9");
	KT_EQ_INT(n, 5);
	ks_free(s);
	s = ks_utf8_sanitize("a\xFF" "b", 3, &n);
	KT_EQ_STR(s, "a\xEF\xBF\xBD" "b");
	ks_free(s);
	/* a broken sequence is one replacement, and the byte that broke it starts afresh */
	s = ks_utf8_sanitize("\xE2\x82(", 3, NULL);
	KT_EQ_STR(s, "\xEF\xBF\xBD(");
	ks_free(s);
	s = ks_utf8_sanitize("\xE2\x82\xC3\xA9", 4, NULL);
	KT_EQ_STR(s, "\xEF\xBF\xBD\xC3\xA9");
	ks_free(s);
	s = ks_utf8_sanitize("x\xF0\x9F\x98", 4, NULL); /* truncated at the end */
	KT_EQ_STR(s, "x\xEF\xBF\xBD");
	ks_free(s);
	s = ks_utf8_sanitize("\xFF\xFE", 2, &n);
	KT_EQ_STR(s, "\xEF\xBF\xBD\xEF\xBF\xBD");
	KT_EQ_INT(n, 6);
	KT_ASSERT(ks_utf8_valid(s, n, NULL));
	ks_free(s);
}

static void test_every_byte_pair_sanitizes_to_valid_text(void)
{
	unsigned a, b;
	char in[3], *s;
	size_t n;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			in[2] = (char)0xA9;
			s = ks_utf8_sanitize(in, 3, &n);
			KT_ASSERT_MSG(ks_utf8_valid(s, n, NULL), "%02x %02x a9", a, b);
			ks_free(s);
		}
}

static void test_position_counts_characters(void)
{
	size_t line, col;

	ks_utf8_position("ab\ncd\xC3\xA9\xFF", 7, &line, &col);
	KT_EQ_INT(line, 2);
	KT_EQ_INT(col, 4);
	ks_utf8_position("x", 0, &line, &col);
	KT_EQ_INT(line, 1);
	KT_EQ_INT(col, 1);
}

static const kt_test tests[] = {
	KT(test_valid_and_first_bad_byte), KT(test_sanitize_replaces_only_what_is_bad),
	KT(test_every_byte_pair_sanitizes_to_valid_text), KT(test_position_counts_characters), { 0 }
};
KT_MAIN("utf8", tests)
