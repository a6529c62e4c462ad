/* expr: the small integer expression language used for shapes, launch geometry, scratch sizes,
 * bytes and FLOPs (DESIGN §2). One evaluator serves them all, so a formula means the same thing
 * wherever it appears.
 *
 * Grammar (64-bit signed integers; every operation is checked for overflow):
 *     expr  := shift (("<=" | ">=" | "==" | "!=" | "<" | ">") shift)?
 *     shift := sum (("<<" | ">>") sum)*
 *     sum   := prod (("+" | "-") prod)*
 *     prod  := unary (("*" | "/" | "%") unary)*
 *     unary := ("-" | "+") unary | power
 *     power := atom ("**" unary)?
 *     atom  := INTEGER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"
 * INTEGER is decimal or 0x-hex. "/" and "%" truncate toward zero, as in C; division by zero is an
 * error. Functions: cdiv(a,b) = ceil(a/b) for b > 0, min(a,...), max(a,...), abs(a),
 * log2(a) = floor(log2(a)) for a > 0, align(a,b) = cdiv(a,b)*b, is_pow2(a) = 1 when a is a
 * positive power of two, else 0. A comparison is 1 or 0 and does not chain (`a < b < c` is an
 * error); the problem's domain rules (load/domain.h) are comparisons.
 *
 * Every evaluation is bounded in time whatever the values (an expression comes from untrusted
 * launch plans): at most KS_EXPR_MAX_LEN characters, KS_EXPR_MAX_DEPTH levels of nesting and
 * KS_EXPR_MAX_NODES nodes (numbers, names, calls, operators), each node O(1) work (`**` included:
 * closed forms for bases 0 and +-1, overflow beyond the 63rd power otherwise). */
#ifndef KS_EXPR_H
#define KS_EXPR_H

#include <stddef.h>
#include <stdint.h>

#define KS_EXPR_MAX_LEN 4096   /* characters */
#define KS_EXPR_MAX_DEPTH 64   /* nested parentheses, calls, unary signs and powers */
#define KS_EXPR_MAX_NODES 1024 /* numbers, names, calls and operators */
#define KS_EXPR_STR_(x) #x
#define KS_EXPR_STR(x) KS_EXPR_STR_(x)

/* A set of named integer values (the problem's dimensions for one case, plus derived names). */
typedef struct {
	char **names;
	int64_t *values;
	size_t n, cap;
} ks_env;

#define KS_ENV_INIT { NULL, NULL, 0, 0 }

/* Sets (or replaces) name = value. The env copies the name. */
void ks_env_set(ks_env *env, const char *name, int64_t value);
/* Returns 1 and the value if name is set, 0 otherwise. */
int ks_env_get(const ks_env *env, const char *name, int64_t *value);
void ks_env_free(ks_env *env);

/* Evaluates text with the names in env. On failure returns KS_EINVALID with a message that quotes
 * the expression and says what went wrong (syntax, unknown name, overflow, division by zero). */
int ks_expr_eval(int64_t *out, const char *text, const ks_env *env);

/* Checks syntax and that every name used is one of names[0..n) without evaluating. */
int ks_expr_check(const char *text, const char *const *names, size_t n);

#endif
