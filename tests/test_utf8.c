#include "ktest.h"
#include "util/utf8.h"
#include "util/mem.h"

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

static void test_decode(void)
{
	uint32_t cp;
	KT_EQ_INT(ks_utf8_decode(&cp, "A", 1), 1);
	KT_EQ_INT(cp, 'A');
	KT_EQ_INT(ks_utf8_decode(&cp, "\xC3\xA9", 2), 2);
	KT_EQ_INT(cp, 0xE9);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xE7\x81\xAB", 3), 3); /* 火 */
	KT_EQ_INT(cp, 0x706B);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xF0\x9F\x9A\x80", 4), 4); /* rocket */
	KT_EQ_INT(cp, 0x1F680);
	/* truncated, overlong, a surrogate, a lone continuation byte, beyond U+10FFFF */
	KT_EQ_INT(ks_utf8_decode(&cp, "\xE7\x81", 2), 1);
	KT_EQ_INT(cp, 0xFFFD);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xC0\xAF", 2), 1);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xE0\x80\xAF", 3), 1);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xED\xA0\x80", 3), 1);
	KT_EQ_INT(ks_utf8_decode(&cp, "\x81", 1), 1);
	KT_EQ_INT(ks_utf8_decode(&cp, "\xF4\x90\x80\x80", 4), 1);
	KT_EQ_INT(cp, 0xFFFD);
}

static void test_valid_and_clean(void)
{
	char *c;
	KT_ASSERT(ks_utf8_valid("Team \xE7\x81\xAB\xE7\xAE\xAD", 11, NULL));
	KT_ASSERT(ks_utf8_valid("\xEF\xBF\xBD", 3, NULL)); /* a real U+FFFD */
	KT_ASSERT(!ks_utf8_valid("caf\xE9", 4, NULL));     /* Latin-1 */
	KT_ASSERT(!ks_utf8_valid("\xE7\x81", 2, NULL));    /* cut in the middle */
	/* a truncated sequence is one U+FFFD (its longest valid prefix), as ks_utf8_sanitize does */
	c = ks_utf8_clean("caf\xE9 ok \xE7\x81");
	KT_EQ_STR(c, "caf\xEF\xBF\xBD ok \xEF\xBF\xBD");
	KT_ASSERT(ks_utf8_valid(c, strlen(c), NULL));
	ks_free(c);
	c = ks_utf8_clean("\xE7\x81\xAB");
	KT_EQ_STR(c, "\xE7\x81\xAB");
	ks_free(c);
}

/* ks_utf8_printable: what a terminal would obey becomes visible text, the rest is kept. */
static void test_printable_shows_controls(void)
{
	static const char in[] = "a\tb\nc\x1b[31m\r\x7f\xc2\x9b\xc2\xa0\xe2\x82\xac\xff\x00z";
	char *t = ks_utf8_printable(in, sizeof(in) - 1), pair[2];
	unsigned a, b;
	KT_EQ_STR(t, "a\tb\nc\\x1b[31m\\x0d\\x7f\\u009b\xc2\xa0\xe2\x82\xac\xef\xbf\xbd\\x00z");
	ks_free(t);
	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			size_t i;
			pair[0] = (char)a;
			pair[1] = (char)b;
			t = ks_utf8_printable(pair, 2);
			KT_ASSERT(ks_utf8_valid(t, strlen(t), NULL));
			for (i = 0; t[i]; i++)
				KT_ASSERT(((unsigned char)t[i] >= 0x20 || t[i] == '\n' || t[i] == '\t') && t[i] != 0x7f);
			KT_ASSERT(!strstr(t, "\xc2\x80") && !strstr(t, "\xc2\x9f"));
			ks_free(t);
		}
}

static void test_widths(void)
{
	size_t w, n;
	KT_EQ_INT(ks_utf8_cp_width('a'), 1);
	KT_EQ_INT(ks_utf8_cp_width(0x706B), 2);  /* CJK ideograph */
	KT_EQ_INT(ks_utf8_cp_width(0x30AB), 2);  /* katakana */
	KT_EQ_INT(ks_utf8_cp_width(0xAC00), 2);  /* Hangul syllable */
	KT_EQ_INT(ks_utf8_cp_width(0xFF21), 2);  /* fullwidth A */
	KT_EQ_INT(ks_utf8_cp_width(0xFF61), 1);  /* halfwidth katakana punctuation */
	KT_EQ_INT(ks_utf8_cp_width(0x0301), 0);  /* combining acute */
	KT_EQ_INT(ks_utf8_cp_width(0x200B), 0);  /* zero-width space */
	KT_EQ_INT(ks_utf8_cp_width(0xE9), 1);
	KT_EQ_INT(ks_utf8_width("Team \xE7\x81\xAB\xE7\xAE\xAD"), 9);
	KT_EQ_INT(ks_utf8_length("Team \xE7\x81\xAB\xE7\xAE\xAD"), 7);
	KT_EQ_INT(ks_utf8_width("e\xCC\x81"), 1); /* e + combining acute */
	/* a prefix never splits a character, nor a wide one across the limit */
	n = ks_utf8_prefix("\xE7\x81\xAB\xE7\xAE\xAD", 3, 0, &w);
	KT_EQ_INT(n, 3);
	KT_EQ_INT(w, 2);
	n = ks_utf8_prefix("\xE7\x81\xAB\xE7\xAE\xAD", 4, 0, &w);
	KT_EQ_INT(n, 6);
	KT_EQ_INT(w, 4);
	n = ks_utf8_prefix("abcdef", 100, 4, &w);
	KT_EQ_INT(n, 4);
	n = ks_utf8_prefix("", 10, 0, &w);
	KT_EQ_INT(n, 0);
	KT_EQ_INT(w, 0);
}

static const kt_test tests[] = {
	KT(test_valid_and_first_bad_byte), KT(test_sanitize_replaces_only_what_is_bad),
	KT(test_every_byte_pair_sanitizes_to_valid_text), KT(test_position_counts_characters),
	KT(test_decode), KT(test_valid_and_clean), KT(test_widths), KT(test_printable_shows_controls), { 0 }
};
KT_MAIN("utf8", tests)
