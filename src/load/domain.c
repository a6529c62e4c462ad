#include "load/domain.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int ks_domain_parse(ks_domain *d, const cJSON *v, const char *const *names, size_t nnames)
{
	const cJSON *it;
	int rc = 0;
	memset(d, 0, sizeof(*d));
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > KS_DOMAIN_MAX_RULES)
		return ks_error_set(KS_EINVALID, "\"domain\" must be a list of at most %d rules",
				    KS_DOMAIN_MAX_RULES);
	d->rules = ks_calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(*d->rules));
	cJSON_ArrayForEach(it, v)
	{
		const char *rule = NULL, *msg = NULL;
		const cJSON *k;
		size_t i = d->n;
		if (!cJSON_IsObject(it)) {
			rc = ks_error_set(KS_EINVALID, "domain[%zu] must be an object", i);
			goto done;
		}
		cJSON_ArrayForEach(k, it)
			if (strcmp(k->string, "rule") && strcmp(k->string, "message")) {
				rc = ks_error_set(KS_EINVALID, "domain[%zu]: unknown key \"%.64s\"", i, k->string);
				goto done;
			}
		if (ks_json_str(&rule, it, "rule", 1) < 0 || ks_json_str(&msg, it, "message", 1) < 0) {
			rc = ks_error_wrap(KS_EINVALID, "domain[%zu]", i);
			goto done;
		}
		if (!*msg || strlen(msg) > KS_DOMAIN_MAX_MESSAGE) {
			rc = ks_error_set(KS_EINVALID, "domain[%zu]: the message must have 1 to %d bytes", i,
					  KS_DOMAIN_MAX_MESSAGE);
			goto done;
		}
		if ((rc = ks_expr_check(rule, names, nnames)) < 0) {
			ks_error_wrap(rc, "domain[%zu]", i);
			goto done;
		}
		d->rules[i].rule = ks_strdup(rule);
		d->rules[i].message = ks_strdup(msg);
		d->n++;
	}
done:
	if (rc < 0)
		ks_domain_clear(d);
	return rc;
}

int ks_domain_first_broken(int *broken, const ks_domain *d, const ks_env *env)
{
	size_t i;
	for (i = 0; i < d->n; i++) {
		int64_t v;
		if (ks_expr_eval(&v, d->rules[i].rule, env) < 0)
			return ks_error_wrap(KS_EINVALID, "domain rule %zu", i);
		if (!v) {
			*broken = (int)i;
			return 0;
		}
	}
	*broken = -1;
	return 0;
}

char *ks_domain_values(const ks_domain_rule *r, const ks_env *env)
{
	char out[512] = "";
	size_t off = 0, i, seen = 0;
	for (i = 0; i < env->n && seen < 16; i++) {
		const char *name = env->names[i], *p = r->rule;
		size_t n = strlen(name);
		/* the rule uses the name where it stands as a whole identifier */
		while ((p = strstr(p, name)) != NULL) {
			int before = p > r->rule && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
			int after = isalnum((unsigned char)p[n]) || p[n] == '_';
			if (!before && !after)
				break;
			p += n;
		}
		if (!p || off >= sizeof(out) - 1)
			continue;
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s=%lld", seen ? " " : "", name,
					(long long)env->values[i]);
		seen++;
	}
	if (off >= sizeof(out))
		off = sizeof(out) - 1;
	out[off] = '\0';
	return ks_strdup(out);
}

void ks_domain_clear(ks_domain *d)
{
	size_t i;
	for (i = 0; i < d->n; i++) {
		ks_free(d->rules[i].rule);
		ks_free(d->rules[i].message);
	}
	ks_free(d->rules);
	memset(d, 0, sizeof(*d));
}
