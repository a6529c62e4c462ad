/* pyscan: a static reading of Python source for the problem-set readers (set_int.h). It knows
 * enough of Python's lexical rules (comments, the four kinds of string, brackets, backslash
 * continuations) to tell the statements of a module's top level from everything inside them; it
 * runs nothing and builds no syntax tree. */
#include "load/sets/set_int.h"

#include <ctype.h>
#include <string.h>

#include "util/mem.h"

void ks_set_strv_add(char ***v, size_t *n, const char *s, size_t max)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	if (*n >= max)
		return;
	*v = ks_realloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = ks_strdup(s);
}

/* The lexer's state between characters: inside a string (its quote and whether it is triple) or
 * not, and the bracket depth. */
typedef struct {
	char quote;   /* 0: code */
	int triple;
	int depth;    /* ( [ { open */
	int cont;     /* the line ended with a backslash outside a string */
} lexstate;

/* Advances st over one line [p, e), blanking what is not code (strings, comments) into code[] (a
 * buffer of the line's length + 1) when code is not NULL. */
static void lex_line(lexstate *st, const char *p, const char *e, char *code)
{
	size_t o = 0;
	st->cont = 0;
	while (p < e) {
		char c = *p;
		if (st->quote) {
			if (c == '\\' && p + 1 < e) {
				p += 2;
				if (code)
					code[o++] = ' ', code[o++] = ' ';
				continue;
			}
			if (c == st->quote && (!st->triple || (e - p >= 3 && p[1] == c && p[2] == c))) {
				int w = st->triple ? 3 : 1;
				p += w;
				while (code && w--)
					code[o++] = ' ';
				st->quote = 0;
				continue;
			}
			p++;
			if (code)
				code[o++] = ' ';
			continue;
		}
		if (c == '#') {
			while (p < e) {
				p++;
				if (code)
					code[o++] = ' ';
			}
			break;
		}
		if (c == '"' || c == '\'') {
			st->quote = c;
			st->triple = e - p >= 3 && p[1] == c && p[2] == c;
			p += st->triple ? 3 : 1;
			if (code)
				code[o++] = '"';
			if (code && st->triple)
				code[o++] = ' ', code[o++] = ' ';
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			st->depth++;
		else if ((c == ')' || c == ']' || c == '}') && st->depth > 0)
			st->depth--;
		else if (c == '\\' && p + 1 == e)
			st->cont = 1;
		if (code)
			code[o++] = c;
		p++;
	}
	/* a single-quoted string never spans lines (an unterminated one is a syntax error) */
	if (st->quote && !st->triple)
		st->quote = 0;
	if (code)
		code[o] = 0;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The identifier at p into name[n] (empty when there is none); returns the char after it. */
static const char *ident(char *name, size_t n, const char *p)
{
	size_t len = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	while (ident_char(p[len]))
		len++;
	if (len >= n || (len && isdigit((unsigned char)p[0])))
		len = 0;
	memcpy(name, p, len);
	name[len] = 0;
	return p + len;
}

static void add_import(ks_py_info *info, const char *mod, size_t max)
{
	char name[128];
	ident(name, sizeof(name), mod);
	if (!*name)
		return;
	if (info->nimports >= max)
		info->truncated = 1;
	ks_set_strv_add(&info->imports, &info->nimports, name, max);
}

/* One top-level statement's code (strings and comments blanked). */
static void statement(ks_py_info *info, const char *code, int *decorated_jit, size_t max)
{
	char name[128];
	const char *p;
	if (code[0] == '@') {
		/* @triton.jit, @jit, @triton.jit(...), and autotune/heuristics stacked over one */
		if (strstr(code, "jit"))
			*decorated_jit = 1;
		return;
	}
	if (strncmp(code, "def ", 4) == 0 || strncmp(code, "async def ", 10) == 0 || strncmp(code, "class ", 6) == 0) {
		int is_class = code[0] == 'c';
		p = ident(name, sizeof(name), code + (is_class ? 6 : code[0] == 'a' ? 10 : 4));
		if (*name) {
			if (info->ndefs >= max) {
				info->truncated = 1;
			} else {
				info->defs = ks_realloc(info->defs, (info->ndefs + 1) * sizeof(*info->defs));
				info->defs[info->ndefs].name = ks_strdup(name);
				info->defs[info->ndefs].kernel = !is_class && *decorated_jit;
				info->defs[info->ndefs].is_class = is_class;
				info->defs[info->ndefs].is_name = 0;
				info->ndefs++;
			}
		}
		*decorated_jit = 0;
		return;
	}
	*decorated_jit = 0;
	if (strncmp(code, "import ", 7) == 0) {
		/* import a.b as c, d */
		for (p = code + 7; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			add_import(info, p, max);
		return;
	}
	if (strncmp(code, "from ", 5) == 0) {
		if (code[5] != '.')
			add_import(info, code + 5, max);
		return;
	}
	p = ident(name, sizeof(name), code);
	{
		/* NAME = ...: a module-level name (an entry may be an alias: `layer_norm = LayerNorm.apply`) */
		const char *q = p;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*name && *q == '=' && q[1] != '=' && strcmp(name, "result_gold") != 0) {
			if (info->ndefs >= max) {
				info->truncated = 1;
			} else {
				info->defs = ks_realloc(info->defs, (info->ndefs + 1) * sizeof(*info->defs));
				info->defs[info->ndefs].name = ks_strdup(name);
				info->defs[info->ndefs].kernel = 0;
				info->defs[info->ndefs].is_class = 0;
				info->defs[info->ndefs].is_name = 1;
				info->ndefs++;
			}
		}
	}
	if (strcmp(name, "result_gold") == 0) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=' && p[1] != '=') {
			const char *q = ident(name, sizeof(name), p + 1);
			while (*q == ' ')
				q++;
			if (*name && *q == '(') {
				ks_free(info->gold_fn);
				info->gold_fn = ks_strdup(name);
			}
		}
	}
}

void ks_py_scan(ks_py_info *out, const char *text, size_t max_names)
{
	lexstate st = { 0, 0, 0, 0 };
	const char *line = text;
	char *code = NULL;
	size_t cap = 0;
	int jit = 0;

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *e = nl ? nl : line + strlen(line);
		size_t len = (size_t)(e - line);
		int top = !st.quote && st.depth == 0 && !st.cont && len > 0 && line[0] != ' ' && line[0] != '\t' &&
			  line[0] != '#' && line[0] != '\r';
		if (len + 1 > cap) {
			cap = len + 1;
			code = ks_realloc(code, cap);
		}
		lex_line(&st, line, e, code);
		if (top)
			statement(out, code, &jit, max_names);
		line = nl ? nl + 1 : NULL;
	}
	ks_free(code);
}

void ks_py_info_clear(ks_py_info *info)
{
	size_t i;
	for (i = 0; i < info->ndefs; i++)
		ks_free(info->defs[i].name);
	ks_free(info->defs);
	ks_free_strv(info->imports, info->nimports);
	ks_free(info->gold_fn);
	memset(info, 0, sizeof(*info));
}

int ks_py_uses(const char *text, const char *name)
{
	lexstate st = { 0, 0, 0, 0 };
	const char *line = text;
	char *code = NULL;
	size_t cap = 0, nlen = strlen(name);
	int found = 0;

	while (!found && line && *line) {
		const char *nl = strchr(line, '\n'), *e = nl ? nl : line + strlen(line), *p;
		size_t len = (size_t)(e - line);
		if (len + 1 > cap) {
			cap = len + 1;
			code = ks_realloc(code, cap);
		}
		lex_line(&st, line, e, code);
		for (p = code; !found && (p = strstr(p, name)) != NULL; p += nlen) {
			const char *a = p + nlen;
			if (p > code && (ident_char(p[-1]) || p[-1] == '.'))
				continue;
			while (*a == ' ')
				a++;
			found = *a == '(' || *a == '[' || (*a == '.' && ident_char(a[1]));
		}
		line = nl ? nl + 1 : NULL;
	}
	ks_free(code);
	return found;
}
