#include "util/jscan.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <stdio.h>
#include <string.h>

/* Where the scan stands between the entries: what may come next at the entries' level. */
enum { TOP_FIRST, TOP_AFTER_COMMA, TOP_AFTER_VALUE, TOP_DONE };

/* A place in a decoded string and in the file, for naming a bad character. */
typedef struct {
	size_t off, line, col, fline, fcol;
} spot;

struct ks_jscan {
	ks_jscan_limits lim;
	char *what;
	int rc;                      /* the first failure, sticky */
	ks_jscan_mode mode;
	int base;                    /* the depth entries start at: 1 in an array, 0 in JSON Lines */
	size_t off, line, col;       /* of the next byte */
	int bom;                     /* byte-order-mark bytes matched at the start; -1 when past it */
	char *stack;                 /* open brackets */
	int depth;
	int top;
	int bare;                    /* inside a number or a literal */

	/* the string being read */
	int in_str, esc, nhex;
	unsigned hex;
	spot esc_at;                 /* where the escape being read began */
	unsigned high;               /* a high surrogate escape waiting for its low half (0: none) */
	spot high_at;
	ks_utf8_state u8;
	spot seq_at;                 /* where the UTF-8 sequence being read began */
	unsigned char seq_byte;
	size_t soff, sline, scol;    /* decoded bytes so far, line, characters on the line */

	/* the entry being read */
	int in_entry;
	ks_jscan_entry cur;
	int key_next;                /* in the entry object: the next string is a field name */
	int in_key;
	char key[sizeof(((ks_jscan_entry *)0)->bad_field)];
	size_t keylen;
	char field[sizeof(((ks_jscan_entry *)0)->bad_field)];

	ks_jscan_entry *entries;
	size_t n, cap;
};

ks_jscan *ks_jscan_new(const ks_jscan_limits *lim, const char *what)
{
	ks_jscan *s = ks_calloc(1, sizeof(*s));

	s->lim = *lim;
	if (s->lim.max_depth < 1)
		s->lim.max_depth = 1;
	s->what = ks_strdup(what);
	s->stack = ks_malloc((size_t)s->lim.max_depth);
	s->line = s->col = 1;
	return s;
}

void ks_jscan_free(ks_jscan *s)
{
	if (!s)
		return;
	ks_free(s->what);
	ks_free(s->stack);
	ks_free(s->entries);
	ks_free(s);
}

ks_jscan_mode ks_jscan_kind(const ks_jscan *s)
{
	return s->mode;
}

const ks_jscan_entry *ks_jscan_entries(const ks_jscan *s, size_t *n)
{
	*n = s->n;
	return s->entries;
}

/* Fails the scan at the current byte. */
static int fail_here(ks_jscan *s, int code, const char *msg)
{
	s->rc = ks_error_set(code, "%s:%zu:%zu: %s", s->what, s->line, s->col, msg);
	return s->rc;
}

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Characters of numbers and of true/false/null; the parser judges the words themselves. */
static int is_bare(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
	       c == '+' || c == '.';
}

static spot here(const ks_jscan *s)
{
	spot p;
	p.off = s->soff;
	p.line = s->sline;
	p.col = s->scol + 1;
	p.fline = s->line;
	p.fcol = s->col;
	return p;
}

static void mark_bad(ks_jscan *s, ks_jscan_bad kind, unsigned code, spot at)
{
	ks_jscan_entry *e = &s->cur;

	if (!s->in_entry || e->bad)
		return;
	e->bad = kind;
	e->code = code;
	e->bad_in_key = s->in_key;
	if (s->in_key)
		e->bad_field[0] = '\0';
	else
		memcpy(e->bad_field, s->field, sizeof(e->bad_field));
	e->bad_offset = at.off;
	e->bad_line = at.line;
	e->bad_col = at.col;
	e->bad_file_line = at.fline;
	e->bad_file_col = at.fcol;
}

/* Counts one decoded character of `bytes` bytes. */
static void decoded(ks_jscan *s, size_t bytes, int newline)
{
	s->soff += bytes;
	if (newline) {
		s->sline++;
		s->scol = 0;
	} else {
		s->scol++;
	}
}

static int begin_entry(ks_jscan *s)
{
	if (s->mode == KS_JSCAN_ARRAY && s->top != TOP_FIRST && s->top != TOP_AFTER_COMMA)
		return fail_here(s, KS_EINVALID, "invalid JSON (a comma is missing)");
	if (s->mode == KS_JSCAN_LINES && s->top != TOP_FIRST)
		return fail_here(s, KS_EINVALID, "unexpected text after the JSON value");
	if (s->n >= s->lim.max_entries) {
		s->rc = ks_error_set(KS_ELIMIT, "%s: more than %zu entries, the limit", s->what,
				     s->lim.max_entries);
		return s->rc;
	}
	s->top = TOP_AFTER_VALUE;
	s->in_entry = 1;
	memset(&s->cur, 0, sizeof(s->cur));
	s->cur.start = s->off;
	s->cur.line = s->line;
	s->cur.col = s->col;
	s->key_next = 0;
	s->field[0] = '\0';
	return 0;
}

static void end_entry(ks_jscan *s, size_t end)
{
	s->cur.end = end;
	if (!s->cur.over && end - s->cur.start > s->lim.max_entry_bytes)
		s->cur.over = KS_JSCAN_OVER_BYTES;
	s->entries = ks_grow(s->entries, sizeof(*s->entries), &s->cap, s->n + 1);
	s->entries[s->n++] = s->cur;
	s->in_entry = 0;
}

static void count_value(ks_jscan *s)
{
	if (s->in_entry && ++s->cur.values > s->lim.max_entry_values && !s->cur.over)
		s->cur.over = KS_JSCAN_OVER_VALUES;
}

static void key_byte(ks_jscan *s, unsigned char c)
{
	if (s->in_key && s->keylen + 1 < sizeof(s->key))
		s->key[s->keylen++] = (char)(c >= 0x20 && c < 0x7F ? c : '?');
}

static int end_string(ks_jscan *s)
{
	if (s->u8.need)
		mark_bad(s, KS_JSCAN_BAD_UTF8, s->seq_byte, s->seq_at);
	if (s->high)
		mark_bad(s, KS_JSCAN_BAD_SURROGATE, s->high, s->high_at);
	s->in_str = 0;
	if (s->in_key) {
		s->key[s->keylen] = '\0';
		memcpy(s->field, s->key, sizeof(s->field));
		s->in_key = 0;
	}
	if (s->in_entry && s->depth == s->base)
		end_entry(s, s->off + 1);
	return 0;
}

static void raw_byte(ks_jscan *s, unsigned char c)
{
	int r;

	if (s->high) {
		mark_bad(s, KS_JSCAN_BAD_SURROGATE, s->high, s->high_at);
		s->high = 0;
	}
	if (!s->u8.need) {
		s->seq_at = here(s);
		s->seq_byte = c;
	}
	if (c == 0)
		mark_bad(s, KS_JSCAN_BAD_NUL, 0, here(s));
	r = ks_utf8_step(&s->u8, c);
	if (r < 0) {
		mark_bad(s, KS_JSCAN_BAD_UTF8, s->seq_byte, s->seq_at);
		s->u8.need = 0;
	}
	s->soff++;
	if (c == '\n') {
		s->sline++;
		s->scol = 0;
	} else if ((c & 0xC0) != 0x80) {
		s->scol++;
	}
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A complete \uXXXX escape. */
static void unicode_escape(ks_jscan *s, unsigned v)
{
	if (s->high) {
		unsigned h = s->high;
		s->high = 0;
		if (v >= 0xDC00 && v <= 0xDFFF) {
			decoded(s, 4, 0); /* a pair: one character beyond U+FFFF */
			return;
		}
		mark_bad(s, KS_JSCAN_BAD_SURROGATE, h, s->high_at);
	}
	if (v >= 0xD800 && v <= 0xDBFF) {
		s->high = v;
		s->high_at = s->esc_at;
		return;
	}
	if (v >= 0xDC00 && v <= 0xDFFF)
		mark_bad(s, KS_JSCAN_BAD_SURROGATE, v, s->esc_at);
	else if (v == 0)
		mark_bad(s, KS_JSCAN_BAD_NUL, 0, s->esc_at);
	decoded(s, v < 0x80 ? 1 : v < 0x800 ? 2 : 3, v == '\n');
}

static int string_byte(ks_jscan *s, unsigned char c)
{
	int h;

	if (s->esc == 0) {
		if (c == '"')
			return end_string(s);
		key_byte(s, c);
		if (c == '\\') {
			if (s->u8.need) {
				mark_bad(s, KS_JSCAN_BAD_UTF8, s->seq_byte, s->seq_at);
				s->u8.need = 0;
			}
			s->esc = 1;
			s->esc_at = here(s);
			return 0;
		}
		raw_byte(s, c);
		return 0;
	}
	key_byte(s, c);
	if (s->esc == 1) {
		if (c == 'u') {
			s->esc = 2;
			s->hex = 0;
			s->nhex = 0;
			return 0;
		}
		if (!c || !strchr("\"\\/bfnrt", c))
			return fail_here(s, KS_EINVALID, "invalid JSON (a bad escape in a string)");
		if (s->high) {
			mark_bad(s, KS_JSCAN_BAD_SURROGATE, s->high, s->high_at);
			s->high = 0;
		}
		decoded(s, 1, c == 'n');
		s->esc = 0;
		return 0;
	}
	if ((h = hex_value(c)) < 0)
		return fail_here(s, KS_EINVALID, "invalid JSON (a bad \\u escape in a string)");
	s->hex = s->hex * 16 + (unsigned)h;
	if (++s->nhex == 4) {
		s->esc = 0;
		unicode_escape(s, s->hex);
	}
	return 0;
}

static int start_string(ks_jscan *s)
{
	ks_utf8_state fresh = KS_UTF8_STATE_INIT;

	s->in_str = 1;
	s->esc = 0;
	s->high = 0;
	s->u8 = fresh;
	s->soff = 0;
	s->sline = 1;
	s->scol = 0;
	s->in_key = s->depth == s->base + 1 && s->stack[s->depth - 1] == '{' && s->key_next;
	s->keylen = 0;
	return 0;
}

/* A byte that starts a value where an entry may begin, or inside one. */
static int value_start(ks_jscan *s, unsigned char c)
{
	int rc;

	if (s->depth < s->base)
		return fail_here(s, KS_EINVALID, "unexpected text after the JSON value");
	if (s->depth == s->base && (rc = begin_entry(s)) < 0)
		return rc;
	count_value(s);
	if (c == '"')
		return start_string(s);
	if (c == '{' || c == '[') {
		if (s->depth >= s->lim.max_depth) {
			char msg[64];
			snprintf(msg, sizeof(msg), "JSON nested deeper than %d levels", s->lim.max_depth);
			return fail_here(s, KS_ELIMIT, msg);
		}
		s->stack[s->depth++] = (char)c;
		if (c == '{' && s->depth == s->base + 1)
			s->key_next = 1;
		return 0;
	}
	s->bare = 1;
	return 0;
}

static int close_bracket(ks_jscan *s, unsigned char c)
{
	if (s->depth == 0)
		return fail_here(s, KS_EINVALID, s->mode == KS_JSCAN_ARRAY ? "unexpected text after the JSON value"
									    : "invalid JSON (an unmatched bracket)");
	if (s->stack[s->depth - 1] != (c == '}' ? '{' : '['))
		return fail_here(s, KS_EINVALID, "invalid JSON (a bracket does not match)");
	if (s->mode == KS_JSCAN_ARRAY && s->depth == 1) {
		if (s->top == TOP_AFTER_COMMA)
			return fail_here(s, KS_EINVALID, "invalid JSON (a comma before the closing bracket)");
		s->depth = 0;
		s->top = TOP_DONE;
		return 0;
	}
	s->depth--;
	if (s->in_entry && s->depth == s->base)
		end_entry(s, s->off + 1);
	return 0;
}

static int struct_byte(ks_jscan *s, unsigned char c)
{
	if (s->bare) {
		if (is_bare(c))
			return 0;
		s->bare = 0;
		if (s->in_entry && s->depth == s->base)
			end_entry(s, s->off);
	}
	if (is_ws(c)) {
		if (c == '\n' && s->mode == KS_JSCAN_LINES && s->depth == 0)
			s->top = TOP_FIRST;
		return 0;
	}
	if (s->mode == KS_JSCAN_UNKNOWN) {
		if (c == '[') {
			s->mode = KS_JSCAN_ARRAY;
			s->base = 1;
			s->stack[s->depth++] = '[';
			s->top = TOP_FIRST;
			return 0;
		}
		if (c != '{') {
			s->rc = ks_error_set(KS_EINVALID, "%s: expected a JSON array of entries or JSON Lines of "
					     "objects", s->what);
			return s->rc;
		}
		s->mode = KS_JSCAN_LINES;
		s->base = 0;
		s->top = TOP_FIRST;
	}
	if (s->mode == KS_JSCAN_ARRAY && s->top == TOP_DONE)
		return fail_here(s, KS_EINVALID, "unexpected text after the JSON value");
	switch (c) {
	case '"':
	case '{':
	case '[':
		return value_start(s, c);
	case '}':
	case ']':
		return close_bracket(s, c);
	case ',':
		if (s->depth == s->base) {
			if (s->mode == KS_JSCAN_ARRAY && s->top == TOP_AFTER_VALUE) {
				s->top = TOP_AFTER_COMMA;
				return 0;
			}
			return fail_here(s, KS_EINVALID, "invalid JSON (an unexpected comma)");
		}
		if (s->depth == s->base + 1 && s->stack[s->depth - 1] == '{')
			s->key_next = 1;
		return 0;
	case ':':
		if (s->depth <= s->base)
			return fail_here(s, KS_EINVALID, "invalid JSON (an unexpected colon)");
		if (s->depth == s->base + 1 && s->stack[s->depth - 1] == '{')
			s->key_next = 0;
		return 0;
	default:
		if (is_bare(c))
			return value_start(s, c);
		return fail_here(s, KS_EINVALID, "invalid JSON (an unexpected character)");
	}
}

int ks_jscan_feed(ks_jscan *s, const void *data, size_t n)
{
	static const unsigned char bom[3] = { 0xEF, 0xBB, 0xBF };
	const unsigned char *p = data;
	size_t i;
	int rc;

	if (s->rc)
		return s->rc;
	for (i = 0; i < n; i++, s->off++) {
		unsigned char c = p[i];
		if (s->in_str && !s->esc && !s->in_key && !s->high && !s->u8.need) {
			/* the common case, a run of plain ASCII inside a string, in one step */
			size_t k = i;
			while (k < n && p[k] >= 0x20 && p[k] < 0x7F && p[k] != '"' && p[k] != '\\')
				k++;
			if (k > i) {
				size_t run = k - i;
				s->soff += run;
				s->scol += run;
				s->col += run;
				s->off += run;
				if (s->in_entry && !s->cur.over && s->off - s->cur.start > s->lim.max_entry_bytes)
					s->cur.over = KS_JSCAN_OVER_BYTES;
				if (k == n)
					break;
				i = k;
				c = p[i];
			}
		}
		if (s->bom >= 0) {
			if (s->bom < 3 && c == bom[s->bom]) {
				/* positions in messages are those of the text after the mark */
				s->bom++;
				continue;
			}
			if (s->bom > 0 && s->bom < 3) {
				s->rc = ks_error_set(KS_EINVALID, "%s: expected a JSON array of entries or JSON "
						     "Lines of objects", s->what);
				return s->rc;
			}
			s->bom = -1;
		}
		if (s->in_entry && !s->cur.over && s->off - s->cur.start >= s->lim.max_entry_bytes)
			s->cur.over = KS_JSCAN_OVER_BYTES;
		rc = s->in_str ? string_byte(s, c) : struct_byte(s, c);
		if (rc < 0)
			return rc;
		if (c == '\n') {
			s->line++;
			s->col = 1;
		} else {
			s->col++;
		}
	}
	return 0;
}

int ks_jscan_finish(ks_jscan *s)
{
	if (s->rc)
		return s->rc;
	if (s->bare) {
		s->bare = 0;
		if (s->in_entry && s->depth == s->base)
			end_entry(s, s->off);
	}
	if (s->mode == KS_JSCAN_UNKNOWN) {
		if (s->bom > 0 && s->bom < 3)
			s->rc = ks_error_set(KS_EINVALID, "%s: expected a JSON array of entries or JSON Lines of "
					     "objects", s->what);
		else
			s->rc = ks_error_set(KS_EINVALID, "%s: empty file (expected a JSON array or JSON Lines)",
					     s->what);
		return s->rc;
	}
	if (s->in_str)
		return fail_here(s, KS_EINVALID, "invalid JSON (the text ends inside a string)");
	if (s->depth > 0)
		return fail_here(s, KS_EINVALID, "invalid JSON (the text ends before a closing bracket)");
	return 0;
}
