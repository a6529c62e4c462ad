/* domain: the `domain` section of a problem spec (docs/problem-format.md, "The domain"): the
 * shapes and limits the problem's operator is defined for, as the problem set's own reference
 * implementation enforces them (`N * 4 < 65536`, `is_pow2(SIZE_M)`), each rule with a message.
 *
 * A scored case lies inside the domain: problem.c refuses a spec whose scored case breaks a rule,
 * naming the case and the rule. Cases kscore wants beyond it are marked `extended` in the spec:
 * they run, are reported, and never count (DESIGN §3). The types are included by load/problem.h:
 * a problem holds one domain. */
#ifndef KS_DOMAIN_H
#define KS_DOMAIN_H

#include <stddef.h>
#include <cJSON.h>
#include "load/expr.h"

#define KS_DOMAIN_MAX_RULES 32      /* rules of one domain */
#define KS_DOMAIN_MAX_MESSAGE 512   /* bytes of a rule's message */

typedef struct {
	char *rule;      /* an expression over the problem's names: nonzero inside the domain */
	char *message;   /* why the rule holds (what the reference does outside it) */
} ks_domain_rule;

typedef struct {
	ks_domain_rule *rules;
	size_t n;
} ks_domain;

/* Parses the section v (a list of {"rule": expression, "message": text}) into *d (zeroed first;
 * cleared again on failure). Every rule must parse and use only names[0..nnames) (the spec's
 * `sm_count`, dims and lets). Caps: KS_DOMAIN_MAX_RULES rules, messages of KS_DOMAIN_MAX_MESSAGE
 * bytes. */
int ks_domain_parse(ks_domain *d, const cJSON *v, const char *const *names, size_t nnames);

/* The index of the first rule of d that env (a case's environment, problem.h's ks_problem_env)
 * breaks, -1 when the case lies inside the domain. A rule that does not evaluate (a division by
 * zero) is an error: KS_EINVALID with the rule quoted, and *broken is left unset. */
int ks_domain_first_broken(int *broken, const ks_domain *d, const ks_env *env);

/* The names and values of the env that a rule uses, as "N=20000 seqlen=300" (at most 16 names);
 * caller frees. For messages that say why a case is outside. */
char *ks_domain_values(const ks_domain_rule *r, const ks_env *env);

void ks_domain_clear(ks_domain *d);

#endif
