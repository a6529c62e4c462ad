#include "run/workerenv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

/* One hardware work queue per context: a worker drives one stream, and a context with the default
 * eight is made and torn down about three times slower, under a lock the driver holds for every GPU
 * of the host (docs/benchmarks.md, "Contexts"). */
#define CONNECTIONS "CUDA_DEVICE_MAX_CONNECTIONS="
#define DEFAULT_CONNECTIONS CONNECTIONS "1"

/* Adds a passed variable; one that sets the connections replaces the default at slot `dflt`. */
static void add_passed(char **env, size_t *n, size_t dflt, char *entry)
{
	if (!strncmp(entry, CONNECTIONS, strlen(CONNECTIONS))) {
		ks_free(env[dflt]);
		env[dflt] = entry;
		return;
	}
	env[(*n)++] = entry;
}

char *ks_workerenv_visible_entry(const char *cvd, int device)
{
	const char *p = cvd, *end;
	int k = 0;
	if (!cvd)
		return ks_asprintf("%d", device);
	for (;;) {
		end = strchr(p, ',');
		if (k == device)
			return end ? ks_strndup(p, (size_t)(end - p)) : ks_strdup(p);
		if (!end)
			return NULL;
		p = end + 1;
		k++;
	}
}

char **ks_workerenv_new(int device, int own_device)
{
	const char *pass = getenv("KSCORE_WORKER_ENV"), *cvd = getenv("CUDA_VISIBLE_DEVICES");
	size_t n = 0, cap = 0, i, dflt;
	char **env = NULL, *own = NULL;
	if (own_device && device >= 0) {
		char *e = ks_workerenv_visible_entry(cvd, device);
		/* an ordinal past the run's list: the worker sees none, and says which it was asked for */
		own = ks_asprintf("CUDA_VISIBLE_DEVICES=%s", e ? e : "");
		ks_free(e);
	}
	env = ks_grow(env, sizeof(char *), &cap, 3);
	if (own)
		env[n++] = own;
	else if (cvd)
		env[n++] = ks_asprintf("CUDA_VISIBLE_DEVICES=%s", cvd);
	dflt = n;
	env[n++] = ks_strdup(DEFAULT_CONNECTIONS);
	if (pass && !strcmp(pass, "*")) {
		for (i = 0; environ[i]; i++) {
			if (!strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21))
				continue;
			env = ks_grow(env, sizeof(char *), &cap, n + 2);
			add_passed(env, &n, dflt, ks_strdup(environ[i]));
		}
	} else if (pass) {
		char *dup = ks_strdup(pass), *tok, *save = NULL;
		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const char *v = getenv(tok);
			if (!v || !strcmp(tok, "CUDA_VISIBLE_DEVICES"))
				continue;
			env = ks_grow(env, sizeof(char *), &cap, n + 2);
			add_passed(env, &n, dflt, ks_asprintf("%s=%s", tok, v));
		}
		ks_free(dup);
	}
	env = ks_grow(env, sizeof(char *), &cap, n + 1);
	env[n] = NULL;
	return env;
}

void ks_workerenv_free(char **env)
{
	size_t i;
	for (i = 0; env && env[i]; i++)
		ks_free(env[i]);
	ks_free(env);
}
