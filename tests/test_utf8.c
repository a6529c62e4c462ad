/* utf8 tests: decoding and its refusals, cleaning, and widths in terminal columns. */
#include "ktest.h"
#include "utf8.h"
#include "mem.h"

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
	KT_ASSERT(ks_utf8_valid("Team \xE7\x81\xAB\xE7\xAE\xAD", 11));
	KT_ASSERT(ks_utf8_valid("\xEF\xBF\xBD", 3)); /* a real U+FFFD */
	KT_ASSERT(!ks_utf8_valid("caf\xE9", 4));     /* Latin-1 */
	KT_ASSERT(!ks_utf8_valid("\xE7\x81", 2));    /* cut in the middle */
	c = ks_utf8_clean("caf\xE9 ok \xE7\x81");
	KT_EQ_STR(c, "caf\xEF\xBF\xBD ok \xEF\xBF\xBD\xEF\xBF\xBD");
	KT_ASSERT(ks_utf8_valid(c, strlen(c)));
	ks_free(c);
	c = ks_utf8_clean("\xE7\x81\xAB");
	KT_EQ_STR(c, "\xE7\x81\xAB");
	ks_free(c);
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
	KT(test_decode), KT(test_valid_and_clean), KT(test_widths), { 0 }
};
KT_MAIN("utf8", tests)
