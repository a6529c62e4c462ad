#include "load/expr.h"
#include "util/errors.h"
#include "util/mem.h"

#include <ctype.h>
#include <string.h>


void ks_env_set(ks_env *env, const char *name, int64_t value)
{
	size_t i, cap = env->cap;
	for (i = 0; i < env->n; i++) {
		if (!strcmp(env->names[i], name)) {
			env->values[i] = value;
			return;
		}
	}
	env->names = ks_grow(env->names, sizeof(*env->names), &cap, env->n + 1);
	cap = env->cap;
	env->values = ks_grow(env->values, sizeof(*env->values), &cap, env->n + 1);
	env->cap = cap;
	env->names[env->n] = ks_strdup(name);
	env->values[env->n] = value;
	env->n++;
}

int ks_env_get(const ks_env *env, const char *name, int64_t *value)
{
	size_t i;
	for (i = 0; env && i < env->n; i++) {
		if (!strcmp(env->names[i], name)) {
			*value = env->values[i];
			return 1;
		}
	}
	return 0;
}

void ks_env_free(ks_env *env)
{
	ks_free_strv(env->names, env->n);
	ks_free(env->values);
	memset(env, 0, sizeof(*env));
}

typedef struct {
	const char *text, *p;
	const ks_env *env;          /* evaluation mode */
	const char *const *names;   /* check mode */
	size_t nnames;
	int check;
	int depth;
	int nodes;                  /* numbers, names, calls and operators seen so far */
	int rc;
} parser;

/* Messages quote at most this much of an expression, so the reason at the end is never cut off. */
#define QUOTE_MAX 120
#define QUOTE(ps) QUOTE_MAX, (ps)->text, strnlen((ps)->text, QUOTE_MAX + 1) > QUOTE_MAX ? "..." : ""

static int fail(parser *ps, const char *what)
{
	if (ps->rc == 0)
		ps->rc = ks_error_set(KS_EINVALID, "in expression \"%.*s%s\" at column %d: %s", QUOTE(ps),
				      (int)(ps->p - ps->text) + 1, what);
	return ps->rc;
}

static void skip_ws(parser *ps)
{
	while (*ps->p && isspace((unsigned char)*ps->p))
		ps->p++;
}

static int accept(parser *ps, const char *tok)
{
	size_t n = strlen(tok);
	skip_ws(ps);
	if (strncmp(ps->p, tok, n) == 0) {
		/* do not take "*" out of "**", "<" out of "<<" or "<=", ">" out of ">>" or ">=" */
		if (n == 1 && (tok[0] == '*' || tok[0] == '<' || tok[0] == '>') &&
		    (ps->p[1] == tok[0] || (tok[0] != '*' && ps->p[1] == '=')))
			return 0;
		ps->p += n;
		return 1;
	}
	return 0;
}

static int parse_expr(parser *ps, int64_t *v);

/* Counts one node of the expression; with the length cap this bounds the work of one evaluation
 * whatever the values: every node costs O(1) (power included, see pow_checked). */
static int node(parser *ps)
{
	if (++ps->nodes > KS_EXPR_MAX_NODES)
		return fail(ps, "too many terms (the limit is " KS_EXPR_STR(KS_EXPR_MAX_NODES) ")");
	return 0;
}

static int op(parser *ps, char o, int64_t a, int64_t b, int64_t *r)
{
	if (node(ps) < 0)
		return ps->rc;
	if (ps->check) {
		*r = 1;
		return 0;
	}
	switch (o) {
	case '+':
		if (__builtin_add_overflow(a, b, r))
			return fail(ps, "integer overflow");
		return 0;
	case '-':
		if (__builtin_sub_overflow(a, b, r))
			return fail(ps, "integer overflow");
		return 0;
	case '*':
		if (__builtin_mul_overflow(a, b, r))
			return fail(ps, "integer overflow");
		return 0;
	case '/':
	case '%':
		if (b == 0)
			return fail(ps, "division by zero");
		if (a == INT64_MIN && b == -1)
			return fail(ps, "integer overflow");
		*r = o == '/' ? a / b : a % b;
		return 0;
	case '<':
		if (b < 0 || b > 62 || a < 0 || (a > (INT64_MAX >> b)))
			return fail(ps, "shift out of range");
		*r = a << b;
		return 0;
	case '>':
		if (b < 0 || b > 63)
			return fail(ps, "shift out of range");
		*r = a >> b;
		return 0;
	/* comparisons: 1 or 0 */
	case 'l':
		*r = a < b;
		return 0;
	case 'L':
		*r = a <= b;
		return 0;
	case 'g':
		*r = a > b;
		return 0;
	case 'G':
		*r = a >= b;
		return 0;
	case 'e':
		*r = a == b;
		return 0;
	case 'n':
		*r = a != b;
		return 0;
	}
	return fail(ps, "unknown operator");
}

static int call(parser *ps, const char *name, int64_t *args, int nargs, int64_t *r)
{
	int i;
	if (!strcmp(name, "cdiv") || !strcmp(name, "align")) {
		int64_t q;
		if (nargs != 2)
			return fail(ps, "cdiv/align take 2 arguments");
		if (ps->check) {
			*r = 1;
			return 0;
		}
		if (args[1] <= 0)
			return fail(ps, "cdiv/align need a positive divisor");
		if (args[0] >= 0) {
			if (__builtin_add_overflow(args[0], args[1] - 1, &q))
				return fail(ps, "integer overflow");
			q /= args[1];
		} else
			q = args[0] / args[1];
		if (name[0] == 'a')
			return op(ps, '*', q, args[1], r);
		*r = q;
		return 0;
	}
	if (!strcmp(name, "min") || !strcmp(name, "max")) {
		if (nargs < 1)
			return fail(ps, "min/max need at least 1 argument");
		*r = args[0];
		for (i = 1; i < nargs; i++)
			if (name[1] == 'i' ? args[i] < *r : args[i] > *r)
				*r = args[i];
		return 0;
	}
	if (!strcmp(name, "abs")) {
		if (nargs != 1)
			return fail(ps, "abs takes 1 argument");
		if (args[0] == INT64_MIN)
			return fail(ps, "integer overflow");
		*r = args[0] < 0 ? -args[0] : args[0];
		return 0;
	}
	if (!strcmp(name, "is_pow2")) {
		if (nargs != 1)
			return fail(ps, "is_pow2 takes 1 argument");
		*r = args[0] > 0 && (args[0] & (args[0] - 1)) == 0;
		return 0;
	}
	if (!strcmp(name, "log2")) {
		int64_t x, k = 0;
		if (nargs != 1)
			return fail(ps, "log2 takes 1 argument");
		x = args[0];
		if (ps->check) {
			*r = 0;
			return 0;
		}
		if (x <= 0)
			return fail(ps, "log2 needs a positive argument");
		while (x > 1) {
			x >>= 1;
			k++;
		}
		*r = k;
		return 0;
	}
	return fail(ps, "unknown function");
}

static int parse_unary(parser *ps, int64_t *v);

static int parse_atom(parser *ps, int64_t *v)
{
	if (node(ps) < 0)
		return ps->rc;
	skip_ws(ps);
	if (isdigit((unsigned char)*ps->p)) {
		int64_t x = 0;
		int base = 10;
		if (ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X')) {
			base = 16;
			ps->p += 2;
			if (!isxdigit((unsigned char)*ps->p))
				return fail(ps, "bad hexadecimal number");
		}
		while (base == 10 ? isdigit((unsigned char)*ps->p) : isxdigit((unsigned char)*ps->p)) {
			int d = isdigit((unsigned char)*ps->p) ? *ps->p - '0'
							       : tolower((unsigned char)*ps->p) - 'a' + 10;
			if (__builtin_mul_overflow(x, base, &x) || __builtin_add_overflow(x, d, &x))
				return fail(ps, "number too large");
			ps->p++;
		}
		if (isalpha((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.')
			return fail(ps, "bad number");
		*v = x;
		return 0;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		const char *s = ps->p;
		char name[64];
		size_t n;
		while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
			ps->p++;
		n = (size_t)(ps->p - s);
		if (n >= sizeof(name))
			return fail(ps, "name too long");
		memcpy(name, s, n);
		name[n] = '\0';
		if (accept(ps, "(")) {
			int64_t args[16];
			int nargs = 0;
			if (!accept(ps, ")")) {
				do {
					if (nargs == 16)
						return fail(ps, "too many arguments");
					if (parse_expr(ps, &args[nargs++]) < 0)
						return ps->rc;
				} while (accept(ps, ","));
				if (!accept(ps, ")"))
					return fail(ps, "expected ')'");
			}
			return call(ps, name, args, nargs, v);
		}
		if (ps->check) {
			size_t i;
			for (i = 0; i < ps->nnames; i++)
				if (!strcmp(ps->names[i], name))
					break;
			if (i == ps->nnames) {
				ps->p = s;
				if (ps->rc == 0)
					ps->rc = ks_error_set(KS_EINVALID,
							      "in expression \"%.*s%s\": unknown name \"%s\"",
							      QUOTE(ps), name);
				return ps->rc;
			}
			*v = 1;
			return 0;
		}
		if (!ks_env_get(ps->env, name, v)) {
			if (ps->rc == 0)
				ps->rc = ks_error_set(KS_EINVALID, "in expression \"%.*s%s\": unknown name \"%s\"",
						      QUOTE(ps), name);
			return ps->rc;
		}
		return 0;
	}
	if (accept(ps, "(")) {
		if (parse_expr(ps, v) < 0)
			return ps->rc;
		if (!accept(ps, ")"))
			return fail(ps, "expected ')'");
		return 0;
	}
	return fail(ps, *ps->p ? "unexpected character" : "unexpected end");
}

/* base ** e for e >= 0 in at most 63 multiplications: bases 0 and +-1 have closed forms (they
 * never overflow, so a loop over e would run e times), and any other base overflows int64 before
 * its 64th power. */
static int pow_checked(int64_t base, int64_t e, int64_t *r)
{
	int64_t acc = 1;
	if (e == 0) {
		*r = 1;
		return 0;
	}
	if (base == 0 || base == 1) {
		*r = base;
		return 0;
	}
	if (base == -1) {
		*r = (e & 1) ? -1 : 1;
		return 0;
	}
	if (e > 63)
		return -1;
	while (e-- > 0)
		if (__builtin_mul_overflow(acc, base, &acc))
			return -1;
	*r = acc;
	return 0;
}

static int parse_power(parser *ps, int64_t *v)
{
	int64_t e, r = 1;
	if (parse_atom(ps, v) < 0)
		return ps->rc;
	if (!accept(ps, "**"))
		return 0;
	if (parse_unary(ps, &e) < 0)
		return ps->rc;
	if (node(ps) < 0 || ps->check)
		return ps->rc;
	if (e < 0)
		return fail(ps, "negative exponent");
	if (pow_checked(*v, e, &r) < 0)
		return fail(ps, "integer overflow");
	*v = r;
	return 0;
}

static int parse_unary(parser *ps, int64_t *v)
{
	if (++ps->depth > KS_EXPR_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	if (accept(ps, "-")) {
		if (parse_unary(ps, v) < 0)
			return ps->rc;
		if (op(ps, '-', 0, *v, v) < 0)
			return ps->rc;
	} else if (accept(ps, "+")) {
		if (parse_unary(ps, v) < 0)
			return ps->rc;
	} else if (parse_power(ps, v) < 0)
		return ps->rc;
	ps->depth--;
	return 0;
}

/* One left-associative level of binary operators: next (the tighter level), then any number of
 * "token next" pairs, folded left to right. tokens[i] (NULL-ended) is the operator whose code for
 * op() is codes[i]. */
static int binary_level(parser *ps, int64_t *v, int (*next)(parser *, int64_t *),
			const char *const *tokens, const char *codes)
{
	int64_t r;
	size_t i;
	if (next(ps, v) < 0)
		return ps->rc;
	for (;;) {
		for (i = 0; tokens[i] && !accept(ps, tokens[i]); i++)
			;
		if (!tokens[i])
			return 0;
		if (next(ps, &r) < 0 || op(ps, codes[i], *v, r, v) < 0)
			return ps->rc;
	}
}

static int parse_prod(parser *ps, int64_t *v)
{
	static const char *const tokens[] = { "*", "/", "%", NULL };
	return binary_level(ps, v, parse_unary, tokens, "*/%");
}

static int parse_sum(parser *ps, int64_t *v)
{
	static const char *const tokens[] = { "+", "-", NULL };
	return binary_level(ps, v, parse_prod, tokens, "+-");
}

static int parse_shift(parser *ps, int64_t *v)
{
	static const char *const tokens[] = { "<<", ">>", NULL };
	return binary_level(ps, v, parse_sum, tokens, "<>");
}

/* At most one comparison: `a < b < c` reads as nothing sensible, so it is a syntax error. */
static int parse_expr(parser *ps, int64_t *v)
{
	static const char *const tokens[] = { "<=", ">=", "==", "!=", "<", ">", NULL };
	static const char codes[] = "LGenlg";
	int64_t r;
	size_t i;
	if (++ps->depth > KS_EXPR_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	if (parse_shift(ps, v) < 0)
		return ps->rc;
	for (i = 0; tokens[i] && !accept(ps, tokens[i]); i++)
		;
	if (tokens[i]) {
		if (parse_shift(ps, &r) < 0 || op(ps, codes[i], *v, r, v) < 0)
			return ps->rc;
		for (i = 0; tokens[i] && !accept(ps, tokens[i]); i++)
			;
		if (tokens[i])
			return fail(ps, "comparisons do not chain (write each as its own rule)");
	}
	ps->depth--;
	return 0;
}

static int run(parser *ps, int64_t *out)
{
	int64_t v = 0;
	if (!ps->text)
		return ks_error_set(KS_EINVALID, "missing expression");
	if (strnlen(ps->text, KS_EXPR_MAX_LEN + 1) > KS_EXPR_MAX_LEN)
		return ks_error_set(KS_ELIMIT, "expression longer than %d characters", KS_EXPR_MAX_LEN);
	if (parse_expr(ps, &v) < 0)
		return ps->rc;
	skip_ws(ps);
	if (*ps->p)
		return fail(ps, "unexpected text");
	if (out)
		*out = v;
	return 0;
}

int ks_expr_eval(int64_t *out, const char *text, const ks_env *env)
{
	parser ps = { text, text, env, NULL, 0, 0, 0, 0, 0 };
	return run(&ps, out);
}

int ks_expr_check(const char *text, const char *const *names, size_t n)
{
	parser ps = { text, text, NULL, names, n, 1, 0, 0, 0 };
	return run(&ps, NULL);
}
