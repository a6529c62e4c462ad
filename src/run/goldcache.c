#include "run/goldcache.h"
#include "util/mem.h"

#include <pthread.h>
#include <string.h>

struct ks_goldcache_entry {
	ks_goldcache_key key;
	void *value;
	uint64_t bytes, used;     /* used: the cache's clock when last got or put */
	unsigned refs;
	ks_goldcache_entry *next;
};

struct ks_goldcache {
	pthread_mutex_t mu;
	uint64_t max_bytes, clock;
	void (*free_value)(void *);
	ks_goldcache_entry *head;
	ks_goldcache_stats st;
};

ks_goldcache *ks_goldcache_new(uint64_t max_bytes, void (*free_value)(void *value))
{
	ks_goldcache *c = ks_calloc(1, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	c->max_bytes = max_bytes;
	c->free_value = free_value;
	return c;
}

static int same_key(const ks_goldcache_key *a, const ks_goldcache_key *b)
{
	return a->problem == b->problem && a->perf == b->perf && a->case_index == b->case_index &&
	       a->seed == b->seed;
}

static ks_goldcache_entry *find(ks_goldcache *c, const ks_goldcache_key *key)
{
	ks_goldcache_entry *e;
	for (e = c->head; e; e = e->next)
		if (same_key(&e->key, key))
			return e;
	return NULL;
}

static void drop(ks_goldcache *c, ks_goldcache_entry *e)
{
	ks_goldcache_entry **pp;
	for (pp = &c->head; *pp != e; pp = &(*pp)->next)
		;
	*pp = e->next;
	c->st.bytes -= e->bytes;
	c->st.entries--;
	if (c->free_value)
		c->free_value(e->value);
	ks_free(e);
}

/* Over the budget: drops the least recently used entries nobody references (lock held). */
static void trim(ks_goldcache *c)
{
	while (c->max_bytes && c->st.bytes > c->max_bytes) {
		ks_goldcache_entry *e, *lru = NULL;
		for (e = c->head; e; e = e->next)
			if (!e->refs && (!lru || e->used < lru->used))
				lru = e;
		if (!lru)
			return; /* everything is in use: over budget until released */
		drop(c, lru);
		c->st.evicted++;
	}
}

ks_goldcache_entry *ks_goldcache_get(ks_goldcache *c, const ks_goldcache_key *key)
{
	ks_goldcache_entry *e;
	pthread_mutex_lock(&c->mu);
	if ((e = find(c, key)) != NULL) {
		e->refs++;
		e->used = ++c->clock;
		c->st.hits++;
	} else
		c->st.misses++;
	pthread_mutex_unlock(&c->mu);
	return e;
}

ks_goldcache_entry *ks_goldcache_put(ks_goldcache *c, const ks_goldcache_key *key, void *value, uint64_t bytes)
{
	ks_goldcache_entry *e;
	pthread_mutex_lock(&c->mu);
	c->st.computed++;
	if ((e = find(c, key)) != NULL) {
		/* computed twice at once: the first one stays, so every user sees the same bytes */
		if (c->free_value)
			c->free_value(value);
	} else {
		e = ks_calloc(1, sizeof(*e));
		e->key = *key;
		e->value = value;
		e->bytes = bytes;
		e->next = c->head;
		c->head = e;
		c->st.bytes += bytes;
		c->st.entries++;
	}
	e->refs++;
	e->used = ++c->clock;
	trim(c);
	pthread_mutex_unlock(&c->mu);
	return e;
}

void *ks_goldcache_value(const ks_goldcache_entry *e)
{
	return e ? e->value : NULL;
}

void ks_goldcache_release(ks_goldcache *c, ks_goldcache_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&c->mu);
	if (e->refs)
		e->refs--;
	trim(c);
	pthread_mutex_unlock(&c->mu);
}

void ks_goldcache_stats_get(ks_goldcache_stats *out, ks_goldcache *c)
{
	pthread_mutex_lock(&c->mu);
	*out = c->st;
	pthread_mutex_unlock(&c->mu);
}

void ks_goldcache_free(ks_goldcache *c)
{
	if (!c)
		return;
	while (c->head)
		drop(c, c->head);
	pthread_mutex_destroy(&c->mu);
	ks_free(c);
}
