/* jscan: a single pass over a submission file's JSON text that finds its entries before any JSON
 * tree is built, so that a file is refused on its counts and sizes with memory proportional to
 * what is accepted (a small gzip of a huge array of zeros must not become gigabytes of nodes).
 *
 * It is fed the text in pieces (as gunzip produces it) and keeps only a bracket stack of max_depth
 * bytes and one small record per entry. The text is either a JSON array whose elements are the
 * entries, or JSON Lines: values separated by line breaks (a value may span lines). The scanner
 * checks the structure (brackets, separators, strings, escapes) and the limits; the grammar inside
 * an entry is left to the JSON parser that later parses each entry's byte range on its own.
 *
 * It also decodes every string as it goes, recording per entry the first character that code
 * cannot hold: a byte sequence that is not UTF-8, a NUL (raw or \u0000), or an unpaired UTF-16
 * surrogate escape, with its place in the decoded string and in the file. */
#ifndef KS_JSCAN_H
#define KS_JSCAN_H

#include <stddef.h>

typedef struct {
	size_t max_entries;        /* entries in the file */
	size_t max_entry_bytes;    /* one entry's JSON text */
	size_t max_entry_values;   /* values and keys in one entry */
	int max_depth;             /* nesting, the file's array included */
} ks_jscan_limits;

typedef enum { KS_JSCAN_UNKNOWN = 0, KS_JSCAN_ARRAY, KS_JSCAN_LINES } ks_jscan_mode;

typedef enum { KS_JSCAN_FITS = 0, KS_JSCAN_OVER_BYTES, KS_JSCAN_OVER_VALUES } ks_jscan_over;

typedef enum {
	KS_JSCAN_GOOD = 0,
	KS_JSCAN_BAD_UTF8,         /* code is the first byte of the broken sequence */
	KS_JSCAN_BAD_NUL,
	KS_JSCAN_BAD_SURROGATE     /* code is the escape's value */
} ks_jscan_bad;

typedef struct {
	size_t start, end;         /* the entry's bytes [start, end) in the text fed */
	size_t line, col;          /* of its first byte in the file (1-based; bytes) */
	size_t values;
	ks_jscan_over over;        /* the first limit it exceeds */
	ks_jscan_bad bad;          /* the first character a string of it cannot hold */
	unsigned code;
	int bad_in_key;            /* in the name of one of the entry's fields */
	char bad_field[40];        /* the entry's field it is in, printable ASCII ("" when unknown) */
	size_t bad_offset;         /* byte offset in the decoded string, from 0 */
	size_t bad_line, bad_col;  /* in the decoded string: 1-based line, column in characters */
	size_t bad_file_line, bad_file_col; /* in the file: 1-based line, column in bytes */
} ks_jscan_entry;

typedef struct ks_jscan ks_jscan;

/* A scanner for one file; `what` names it in messages. Caller frees with ks_jscan_free. */
ks_jscan *ks_jscan_new(const ks_jscan_limits *lim, const char *what);

/* Feeds the next n bytes. Returns 0, or KS_EINVALID (bad structure; the message says
 * "what:line:col: ..."), KS_ELIMIT (too deep, too many entries): the scan stops there and later
 * calls return the same code. A UTF-8 byte-order mark at the very start is skipped. */
int ks_jscan_feed(ks_jscan *s, const void *data, size_t n);

/* Ends the text: fails like ks_jscan_feed when it is empty, or ends inside a value. */
int ks_jscan_finish(ks_jscan *s);

ks_jscan_mode ks_jscan_kind(const ks_jscan *s);

/* The entries found so far (owned by the scanner). */
const ks_jscan_entry *ks_jscan_entries(const ks_jscan *s, size_t *n);

void ks_jscan_free(ks_jscan *s);

#endif
