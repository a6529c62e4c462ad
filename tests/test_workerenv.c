/* workerenv: a worker's environment, and the one GPU a lane's worker is narrowed to. */
#include "ktest.h"
#include "util/mem.h"
#include "run/workerenv.h"

#include <stdlib.h>

static void test_workerenv_visible_entry(void)
{
	char *e;
	e = ks_workerenv_visible_entry(NULL, 3);
	KT_EQ_STR(e, "3");
	ks_free(e);
	e = ks_workerenv_visible_entry("4,GPU-ab-cd,MIG-1/2/3", 1);
	KT_EQ_STR(e, "GPU-ab-cd");
	ks_free(e);
	e = ks_workerenv_visible_entry("4,GPU-ab-cd,MIG-1/2/3", 2);
	KT_EQ_STR(e, "MIG-1/2/3");
	ks_free(e);
	e = ks_workerenv_visible_entry("4,5", 0);
	KT_EQ_STR(e, "4");
	ks_free(e);
	KT_ASSERT(ks_workerenv_visible_entry("4,5", 2) == NULL);
	KT_ASSERT(ks_workerenv_visible_entry("", 1) == NULL);
}

/* How many entries start with prefix, and the first one. */
static size_t count_prefix(char **env, const char *prefix, const char **first)
{
	size_t i, n = 0;
	*first = NULL;
	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], prefix, strlen(prefix))) {
			if (!n)
				*first = env[i];
			n++;
		}
	return n;
}

static void test_workerenv_narrowed_to_its_own_gpu(void)
{
	struct {
		int device, own_device;
	} o = { 0, 0 };
	const char *v;
	char **env;

	setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
	setenv("KSCORE_TEST_SECRET", "leak", 1);
	unsetenv("KSCORE_WORKER_ENV");
	o.device = 1;
	env = ks_workerenv_new(o.device, o.own_device);
	KT_EQ_INT(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	KT_EQ_STR(v, "CUDA_VISIBLE_DEVICES=2,3");
	KT_EQ_INT(count_prefix(env, "KSCORE_TEST_SECRET=", &v), 0);
	ks_workerenv_free(env);

	o.own_device = 1;
	env = ks_workerenv_new(o.device, o.own_device);
	KT_EQ_INT(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	KT_EQ_STR(v, "CUDA_VISIBLE_DEVICES=3");
	ks_workerenv_free(env);

	/* everything passed: still one CUDA_VISIBLE_DEVICES, its own */
	setenv("KSCORE_WORKER_ENV", "*", 1);
	env = ks_workerenv_new(o.device, o.own_device);
	KT_EQ_INT(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	KT_EQ_STR(v, "CUDA_VISIBLE_DEVICES=3");
	KT_EQ_INT(count_prefix(env, "KSCORE_TEST_SECRET=", &v), 1);
	ks_workerenv_free(env);

	/* past the run's list: it sees no GPU rather than another one */
	o.device = 5;
	unsetenv("KSCORE_WORKER_ENV");
	env = ks_workerenv_new(o.device, o.own_device);
	KT_EQ_INT(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	KT_EQ_STR(v, "CUDA_VISIBLE_DEVICES=");
	ks_workerenv_free(env);
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("KSCORE_TEST_SECRET");
}

/* A worker's context gets one hardware queue unless the user passes another count. */
static void test_workerenv_one_connection_unless_passed(void)
{
	const char *v;
	char **env;

	unsetenv("KSCORE_WORKER_ENV");
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8", 1);
	env = ks_workerenv_new(0, 1);
	KT_EQ_INT(count_prefix(env, "CUDA_DEVICE_MAX_CONNECTIONS=", &v), 1);
	KT_EQ_STR(v, "CUDA_DEVICE_MAX_CONNECTIONS=1");
	ks_workerenv_free(env);

	setenv("KSCORE_WORKER_ENV", "PATH,CUDA_DEVICE_MAX_CONNECTIONS", 1);
	env = ks_workerenv_new(0, 1);
	KT_EQ_INT(count_prefix(env, "CUDA_DEVICE_MAX_CONNECTIONS=", &v), 1);
	KT_EQ_STR(v, "CUDA_DEVICE_MAX_CONNECTIONS=8");
	KT_EQ_INT(count_prefix(env, "PATH=", &v), getenv("PATH") ? 1 : 0);
	ks_workerenv_free(env);

	setenv("KSCORE_WORKER_ENV", "*", 1);
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
	env = ks_workerenv_new(0, 0);
	KT_EQ_INT(count_prefix(env, "CUDA_DEVICE_MAX_CONNECTIONS=", &v), 1);
	KT_EQ_STR(v, "CUDA_DEVICE_MAX_CONNECTIONS=4");
	ks_workerenv_free(env);

	/* named but not set: the default stays */
	unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
	setenv("KSCORE_WORKER_ENV", "CUDA_DEVICE_MAX_CONNECTIONS", 1);
	env = ks_workerenv_new(0, 1);
	KT_EQ_INT(count_prefix(env, "CUDA_DEVICE_MAX_CONNECTIONS=", &v), 1);
	KT_EQ_STR(v, "CUDA_DEVICE_MAX_CONNECTIONS=1");
	ks_workerenv_free(env);
	unsetenv("KSCORE_WORKER_ENV");
}

static const kt_test tests[] = {
	KT(test_workerenv_visible_entry),
	KT(test_workerenv_narrowed_to_its_own_gpu),
	KT(test_workerenv_one_connection_unless_passed),
	{ 0 }
};
KT_MAIN("workerenv", tests)
