#include "load/extract.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* Notes are for people: a hostile text with thousands of distinct fence tags must not make them
 * huge, so labels are cut and only the first few kinds of block are listed by name. */
#define MAX_LANG 24
#define MAX_GROUPS 16
#define NOTE_MAX 4096

static const char *const chat_tokens[] = { "<|im_end|>", "<|EOT|>", "<|endoftext|>", "<|eot_id|>" };
static const char *const code_langs[] = {
	"cuda", "cu", "cuh", "c++", "cpp", "cxx", "c", "h", "hpp"
};
static const char *const python_langs[] = { "python", "py", "python3", "triton" };

typedef struct {
	char ch;          /* '`' or '~' */
	size_t len;       /* fence length (>= 3); a closing fence must be at least as long */
	size_t indent;    /* removed from the block's lines, as CommonMark does */
	const char *lang; /* first word of the info string */
	size_t langlen;
} fence;

typedef struct {
	char label[MAX_LANG + 16]; /* "```cuda", "untagged ~~~" */
	size_t count;
	int taken;
} group;

typedef struct {
	group groups[MAX_GROUPS];
	size_t ngroups;
	size_t nblocks[2];  /* [0] ignored, [1] taken */
	size_t nkinds[2];   /* groups per class: each class gets half of MAX_GROUPS */
	size_t other[2];    /* blocks of the kinds that did not get a group */
} tally;

static size_t chat_token_at(const char *p)
{
	size_t k, n;
	for (k = 0; *p == '<' && k < COUNT(chat_tokens); k++)
		if (!strncmp(p, chat_tokens[k], n = strlen(chat_tokens[k])))
			return n;
	return 0;
}

/* Removes chat-template tokens and turns CRLF into LF so that fence lines compare cleanly and
 * the code handed to NVRTC has one line-ending convention. */
static char *clean(const char *text, size_t *ntokens)
{
	char *out = ks_malloc(strlen(text) + 1), *o = out;
	const char *p = text;
	size_t n;

	*ntokens = 0;
	while (*p) {
		if ((n = chat_token_at(p)) != 0) {
			p += n;
			(*ntokens)++;
		} else if (p[0] == '\r' && p[1] == '\n') {
			p++;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static size_t indent_of(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && i < 3 && line[i] == ' ')
		i++;
	return i;
}

/* An opening fence: up to 3 spaces, then 3+ backticks or tildes, then an info string whose first
 * word is the language. A backtick info string may not contain a backtick, which keeps a line of
 * inline code (```x```) from opening a block. */
static int fence_open(fence *f, const char *line, size_t len)
{
	size_t i = indent_of(line, len), j;

	if (i >= len || (line[i] != '`' && line[i] != '~'))
		return 0;
	f->ch = line[i];
	f->indent = i;
	for (j = i; j < len && line[j] == f->ch; j++)
		;
	f->len = j - i;
	if (f->len < 3 || (f->ch == '`' && memchr(line + j, '`', len - j)))
		return 0;
	while (j < len && isspace((unsigned char)line[j]))
		j++;
	f->lang = line + j;
	for (f->langlen = 0; j < len && !isspace((unsigned char)line[j]); j++)
		f->langlen++;
	return 1;
}

static int fence_close(const fence *f, const char *line, size_t len)
{
	size_t i = indent_of(line, len), j;

	for (j = i; j < len && line[j] == f->ch; j++)
		;
	if (j - i < f->len)
		return 0;
	while (j < len && isspace((unsigned char)line[j]))
		j++;
	return j == len;
}

static int lang_in(const fence *f, const char *const *langs, size_t n)
{
	size_t k;
	if (f->langlen == 0)
		return 1; /* untagged blocks are candidates for either language */
	for (k = 0; k < n; k++)
		if (strlen(langs[k]) == f->langlen && !strncasecmp(f->lang, langs[k], f->langlen))
			return 1;
	return 0;
}

static int is_code_lang(const fence *f)
{
	return lang_in(f, code_langs, COUNT(code_langs));
}

static int is_python_lang(const fence *f)
{
	return lang_in(f, python_langs, COUNT(python_langs));
}

static void count_block(tally *t, const fence *f, int taken)
{
	const char *mark = f->ch == '`' ? "```" : "~~~";
	char label[sizeof(t->groups[0].label)];
	size_t i, n = f->langlen < MAX_LANG ? f->langlen : MAX_LANG;

	if (n == 0)
		snprintf(label, sizeof(label), "untagged %s", mark);
	else
		snprintf(label, sizeof(label), "%s%.*s", mark, (int)n, f->lang);
	for (i = 3; label[i]; i++)
		label[i] = (char)tolower((unsigned char)label[i]);
	t->nblocks[taken]++;
	for (i = 0; i < t->ngroups; i++)
		if (!strcmp(t->groups[i].label, label))
			break;
	if (i == t->ngroups && t->nkinds[taken] == MAX_GROUPS / 2) {
		t->other[taken]++;
		return;
	}
	if (i == t->ngroups) {
		t->nkinds[taken]++;
		memcpy(t->groups[i].label, label, sizeof(label));
		t->groups[i].taken = taken;
		t->ngroups++;
	}
	t->groups[i].count++;
}

/* "2 ```cuda blocks, 1 untagged ``` block" for the taken (or the ignored) blocks. */
static void describe(ks_buf *note, const tally *t, int taken)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < t->ngroups; i++) {
		const group *g = &t->groups[i];
		if (g->taken != taken)
			continue;
		ks_buf_printf(note, "%s%zu %s block%s", sep, g->count, g->label,
			      g->count == 1 ? "" : "s");
		sep = ", ";
	}
	if (t->other[taken])
		ks_buf_printf(note, "%s%zu other block%s", sep, t->other[taken],
			      t->other[taken] == 1 ? "" : "s");
}

int ks_extract_check_text(const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	size_t bad = len, line, col;

	ks_utf8_valid(text, len, &bad);
	if (nul && (size_t)(nul - text) < bad) {
		bad = (size_t)(nul - text);
		ks_utf8_position(text, bad, &line, &col);
		return ks_error_set(KS_EINVALID, "a NUL character at byte offset %zu (line %zu, column %zu)",
				    bad, line, col);
	}
	if (bad == len)
		return 0;
	ks_utf8_position(text, bad, &line, &col);
	return ks_error_set(KS_EINVALID, "a byte that is not UTF-8 (0x%02X) at byte offset %zu (line %zu, "
			    "column %zu)", (unsigned char)text[bad], bad, line, col);
}

/* Lines that only Python has: an import at the start of a line, a def or class ending in ':', a
 * decorator. Counted, not parsed: the question is only "is this Python rather than CUDA?". */
static size_t python_lines(const char *text)
{
	const char *p = text;
	size_t n = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *q = p;
		while (q < p + len && (*q == ' ' || *q == '\t'))
			q++;
		len -= (size_t)(q - p);
		while (len && (q[len - 1] == ' ' || q[len - 1] == '\r'))
			len--;
		if ((len > 7 && !strncmp(q, "import ", 7)) ||
		    (len > 5 && !strncmp(q, "from ", 5) && memmem(q, len, " import ", 8)) ||
		    (len > 4 && (!strncmp(q, "def ", 4) || !strncmp(q, "class ", 6)) && q[len - 1] == ':') ||
		    (len > 1 && q[0] == '@' && (q[1] == '_' || (q[1] >= 'a' && q[1] <= 'z'))))
			n++;
		if (!eol)
			break;
		p = eol + 1;
	}
	return n;
}

const char *ks_extract_foreign_language(const char *text)
{
	static const char *const triton[] = { "import triton", "@triton.jit", "triton.language",
					      "tl.program_id", "tl.load(", "tl.store(" };
	size_t i, hits = 0;
	if (!text)
		return NULL;
	for (i = 0; i < sizeof(triton) / sizeof(triton[0]); i++)
		hits += strstr(text, triton[i]) != NULL;
	if (hits >= 2 || (hits && python_lines(text)))
		return "Triton (Python)";
	if (python_lines(text) >= 2 || strstr(text, "```python") || strstr(text, "```py\n"))
		return "Python";
	return NULL;
}

/* The blocks of the cleaned text whose fence `take` accepts, joined into out (the whole text when
 * it has no fences), with the tally of taken and ignored blocks for the note. */
static void walk(ks_buf *out, tally *t, int *fenced, int *in_block, const char *clear, int (*take_fn)(const fence *))
{
	fence f = { 0 };
	int take = 0;
	const char *p, *next;
	for (p = clear; *p; p = next) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p), cut;
		next = p + len + (eol ? 1 : 0);
		if (!*in_block) {
			/* prose between blocks is dropped */
			if (fence_open(&f, p, len)) {
				*in_block = *fenced = 1;
				take = take_fn(&f);
				count_block(t, &f, take);
			}
			continue;
		}
		if (fence_close(&f, p, len)) {
			*in_block = 0;
			continue;
		}
		if (!take)
			continue;
		for (cut = 0; cut < f.indent && cut < len && p[cut] == ' '; cut++)
			;
		ks_buf_put(out, p + cut, len - cut);
		ks_buf_put(out, "\n", eol ? 1 : 0);
	}
	if (!*fenced)
		ks_buf_puts(out, clear);
}

/* Extraction for one language: `marker` must be in the code (`__global__`, `triton.jit`), `what`
 * names the blocks in the note ("C/C++/CUDA", "Python"). */
static int extract(char **code, char **note, const char *text, int (*take_fn)(const fence *), const char *marker,
		   const char *what)
{
	ks_buf out = KS_BUF_INIT(0), msg = KS_BUF_INIT(NOTE_MAX);
	tally t;
	size_t ntokens;
	int in_block = 0, fenced = 0, ok;
	char *clear;

	if (!code || !note || !text)
		return ks_error_set(KS_EINVALID, "ks_extract_code: NULL argument");
	*code = *note = NULL;
	if (ks_extract_check_text(text, strlen(text)) < 0) {
		*note = ks_asprintf("no code: the text holds %s", ks_error_msg());
		return 0;
	}
	memset(&t, 0, sizeof(t));
	clear = clean(text, &ntokens);
	ks_buf_init(&out, strlen(clear));
	walk(&out, &t, &fenced, &in_block, clear, take_fn);

	ok = strstr(out.ptr ? out.ptr : "", marker) != NULL;
	if (!ok)
		ks_buf_printf(&msg, "no %s in ", marker[0] == '_' ? "__global__ function" : "@triton.jit kernel");
	if (!fenced)
		ks_buf_puts(&msg, ok ? "whole text" : out.len ? "the whole text"
						    : "the whole text (it is empty)");
	else if (!t.nblocks[1])
		ks_buf_printf(&msg, "any %s block", what);
	else
		describe(&msg, &t, 1);
	if (ok && t.nblocks[1] > 1)
		ks_buf_puts(&msg, " joined");
	if (t.nblocks[0]) {
		ks_buf_puts(&msg, "; ");
		describe(&msg, &t, 0);
		ks_buf_puts(&msg, " ignored");
	}
	if (in_block)
		ks_buf_puts(&msg, "; the last fence is not closed and runs to the end");
	if (ntokens)
		ks_buf_printf(&msg, "; %zu chat token%s removed", ntokens, ntokens == 1 ? "" : "s");

	if (ok)
		*code = ks_buf_take(&out, NULL);
	*note = ks_buf_take(&msg, NULL);
	ks_buf_free(&out);
	ks_buf_free(&msg);
	ks_free(clear);
	return 0;
}

const char *ks_language_name(ks_language l)
{
	return l == KS_LANG_CUDA ? "cuda" : l == KS_LANG_TRITON ? "triton" : "none";
}

int ks_extract_code(char **code, char **note, const char *text)
{
	return extract(code, note, text, is_code_lang, "__global__", "C/C++/CUDA");
}

int ks_extract_triton(char **code, char **note, const char *text)
{
	return extract(code, note, text, is_python_lang, "triton.jit", "Python");
}

/* The JSON after the marker in a comment body [b, e), trimmed; NULL when the body does not start
 * with "kscore-launch" as a whole word. An optional ':' may follow the marker. */
static char *launch_body(const char *b, const char *e)
{
	static const char marker[] = "kscore-launch";
	const size_t n = sizeof(marker) - 1;

	while (b < e && isspace((unsigned char)*b))
		b++;
	if ((size_t)(e - b) < n || strncmp(b, marker, n))
		return NULL;
	b += n;
	if (b < e && (isalnum((unsigned char)*b) || *b == '_' || *b == '-'))
		return NULL;
	while (b < e && isspace((unsigned char)*b))
		b++;
	if (b < e && *b == ':')
		b++;
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return ks_strndup(b, (size_t)(e - b));
}

char *ks_extract_launch_comment(const char *code)
{
	const char *p = code, *end;
	char *json;

	while (p && *p) {
		if (*p == '"' || *p == '\'') {
			/* a marker inside a string literal is not a comment */
			char q = *p++;
			while (*p && *p != q && *p != '\n')
				p += (p[0] == '\\' && p[1]) ? 2 : 1;
			p += *p == q;
		} else if (p[0] == '/' && p[1] == '/') {
			end = strchr(p, '\n');
			end = end ? end : p + strlen(p);
			if ((json = launch_body(p + 2, end)) != NULL)
				return json;
			p = end;
		} else if (p[0] == '/' && p[1] == '*') {
			end = strstr(p + 2, "*/");
			if (!end)
				return NULL;
			if ((json = launch_body(p + 2, end)) != NULL)
				return json;
			p = end + 2;
		} else {
			p++;
		}
	}
	return NULL;
}
