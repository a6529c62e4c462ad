/* goldcache tests: golden results kept for a run and shared by the runners of one GPU: a value is
 * computed once per key, a value put twice at once keeps the first, the budget drops the least
 * recently used values nobody holds and never one in use, and every value is freed once. */
#include "ktest.h"
#include "run/goldcache.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>

static atomic_int g_freed;

static void free_value(void *v)
{
	atomic_fetch_add(&g_freed, 1);
	ks_free(v);
}

static int *val(int x)
{
	int *v = ks_malloc(sizeof(*v));
	*v = x;
	return v;
}

static ks_goldcache_key key(const void *problem, int perf, size_t ci, uint64_t seed)
{
	ks_goldcache_key k;
	k.problem = problem;
	k.perf = perf;
	k.case_index = ci;
	k.seed = seed;
	return k;
}

static void test_a_value_is_found_by_its_whole_key(void)
{
	static int pa, pb;
	ks_goldcache *c = ks_goldcache_new(0, free_value);
	ks_goldcache_key k = key(&pa, 1, 2, 99);
	ks_goldcache_entry *e, *f;
	ks_goldcache_stats st;
	atomic_store(&g_freed, 0);
	KT_ASSERT(ks_goldcache_get(c, &k) == NULL);
	e = ks_goldcache_put(c, &k, val(7), 100);
	KT_EQ_INT(*(int *)ks_goldcache_value(e), 7);
	f = ks_goldcache_get(c, &k);
	KT_ASSERT(f == e);
	/* any field of the key makes another key */
	k = key(&pb, 1, 2, 99);
	KT_ASSERT(ks_goldcache_get(c, &k) == NULL);
	k = key(&pa, 0, 2, 99);
	KT_ASSERT(ks_goldcache_get(c, &k) == NULL);
	k = key(&pa, 1, 3, 99);
	KT_ASSERT(ks_goldcache_get(c, &k) == NULL);
	k = key(&pa, 1, 2, 98);
	KT_ASSERT(ks_goldcache_get(c, &k) == NULL);
	ks_goldcache_stats_get(&st, c);
	KT_EQ_INT(st.hits, 1);
	KT_EQ_INT(st.misses, 5);
	KT_EQ_INT(st.entries, 1);
	KT_EQ_INT(st.bytes, 100);
	ks_goldcache_release(c, e);
	ks_goldcache_release(c, f);
	ks_goldcache_release(c, NULL);
	ks_goldcache_free(c);
	KT_EQ_INT(atomic_load(&g_freed), 1);
}

/* Two runners computed the same golden result at once: the first stored stays, the second is freed,
 * so both check against the same bytes. */
static void test_a_value_put_twice_keeps_the_first(void)
{
	static int p;
	ks_goldcache *c = ks_goldcache_new(0, free_value);
	ks_goldcache_key k = key(&p, 0, 0, 1);
	ks_goldcache_entry *a, *b;
	atomic_store(&g_freed, 0);
	a = ks_goldcache_put(c, &k, val(1), 10);
	b = ks_goldcache_put(c, &k, val(2), 10);
	KT_ASSERT(a == b);
	KT_EQ_INT(*(int *)ks_goldcache_value(b), 1);
	KT_EQ_INT(atomic_load(&g_freed), 1);
	ks_goldcache_release(c, a);
	ks_goldcache_release(c, b);
	ks_goldcache_free(c);
	KT_EQ_INT(atomic_load(&g_freed), 2);
}

/* Over the budget the least recently used value nobody holds goes; one in use never does. */
static void test_the_budget_drops_the_least_recently_used_unheld_values(void)
{
	static int p;
	ks_goldcache *c = ks_goldcache_new(300, free_value);
	ks_goldcache_key k0 = key(&p, 1, 0, 0), k1 = key(&p, 1, 1, 0), k2 = key(&p, 1, 2, 0), k3 = key(&p, 1, 3, 0);
	ks_goldcache_entry *e0, *e1, *e2, *e3, *held;
	ks_goldcache_stats st;
	atomic_store(&g_freed, 0);
	e0 = ks_goldcache_put(c, &k0, val(0), 100);
	e1 = ks_goldcache_put(c, &k1, val(1), 100);
	e2 = ks_goldcache_put(c, &k2, val(2), 100);
	ks_goldcache_release(c, e0);
	ks_goldcache_release(c, e1);
	ks_goldcache_release(c, e2);
	/* k0 used again: k1 is now the least recently used */
	ks_goldcache_release(c, ks_goldcache_get(c, &k0));
	e3 = ks_goldcache_put(c, &k3, val(3), 100);
	ks_goldcache_release(c, e3);
	KT_ASSERT(ks_goldcache_get(c, &k1) == NULL);
	held = ks_goldcache_get(c, &k0);
	KT_ASSERT(held != NULL);
	ks_goldcache_stats_get(&st, c);
	KT_EQ_INT(st.evicted, 1);
	KT_EQ_INT(st.bytes, 300);
	/* a value larger than the budget while k0 is held: everything else goes, k0 stays */
	e1 = ks_goldcache_put(c, &k1, val(1), 250);
	ks_goldcache_stats_get(&st, c);
	KT_EQ_INT(st.entries, 2);
	KT_EQ_INT(*(int *)ks_goldcache_value(held), 0);
	ks_goldcache_release(c, held);
	/* once released, k0 (older) goes before k1, which is still held */
	ks_goldcache_stats_get(&st, c);
	KT_EQ_INT(st.entries, 1);
	KT_ASSERT(ks_goldcache_get(c, &k0) == NULL);
	KT_EQ_INT(*(int *)ks_goldcache_value(e1), 1);
	ks_goldcache_release(c, e1);
	ks_goldcache_free(c);
	KT_EQ_INT(atomic_load(&g_freed), 5);
}

typedef struct {
	ks_goldcache *c;
	int computed;
	const void *seen[8];
} worker_arg;

static int g_problem;

static void *worker(void *arg)
{
	worker_arg *w = arg;
	int i, k;
	for (i = 0; i < 400; i++) {
		ks_goldcache_key kk;
		ks_goldcache_entry *e;
		k = i % 8;
		kk = key(&g_problem, 0, (size_t)k, 5);
		if (!(e = ks_goldcache_get(w->c, &kk))) {
			e = ks_goldcache_put(w->c, &kk, val(k), 8);
			w->computed++;
		}
		KT_EQ_INT(*(int *)ks_goldcache_value(e), k);
		if (!w->seen[k])
			w->seen[k] = ks_goldcache_value(e);
		KT_ASSERT_MSG(w->seen[k] == ks_goldcache_value(e), "key %d changed its value while cached", k);
		ks_goldcache_release(w->c, e);
	}
	return NULL;
}

/* Runners of one GPU on their own threads: every key is computed about once, and nobody ever sees
 * two values for a key. */
static void test_threads_share_one_value_per_key(void)
{
	ks_goldcache *c = ks_goldcache_new(0, free_value);
	worker_arg w[4];
	pthread_t th[4];
	ks_goldcache_stats st;
	int i, k, computed = 0;
	atomic_store(&g_freed, 0);
	memset(w, 0, sizeof(w));
	for (i = 0; i < 4; i++) {
		w[i].c = c;
		KT_EQ_INT(pthread_create(&th[i], NULL, worker, &w[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		computed += w[i].computed;
	}
	for (i = 1; i < 4; i++)
		for (k = 0; k < 8; k++)
			KT_ASSERT(w[i].seen[k] == w[0].seen[k]);
	ks_goldcache_stats_get(&st, c);
	KT_EQ_INT(st.entries, 8);
	KT_EQ_INT(st.hits + st.misses, 1600);
	KT_ASSERT_MSG(computed <= 8 + 3 * 8, "%d computations for 8 keys", computed);
	KT_EQ_INT(atomic_load(&g_freed), computed - 8);
	ks_goldcache_free(c);
	KT_EQ_INT(atomic_load(&g_freed), computed);
}

static const kt_test tests[] = {
	KT(test_a_value_is_found_by_its_whole_key),
	KT(test_a_value_put_twice_keeps_the_first),
	KT(test_the_budget_drops_the_least_recently_used_unheld_values),
	KT(test_threads_share_one_value_per_key),
	{ NULL, NULL }
};

KT_MAIN("goldcache", tests)
