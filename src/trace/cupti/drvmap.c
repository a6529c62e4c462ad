#include "trace/cupti/drvmap.h"

#include <stdlib.h>
#include <string.h>

/* index of the first range whose base is >= a */
static size_t lower_bound(const ks_drvmap *m, uint64_t a)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->r[mid].base < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ks_drvmap_add(ks_drvmap *m, uint64_t base, uint64_t size, uint64_t id)
{
	size_t i, j;
	uint64_t end = base + size;
	if (size == 0 || end < base)
		return -1;
	i = lower_bound(m, base);
	/* a range before i that reaches into [base, end) overlaps too */
	if (i > 0 && m->r[i - 1].base + m->r[i - 1].size > base)
		i--;
	for (j = i; j < m->n && m->r[j].base < end; j++)
		;
	if (j == i) {
		if (m->n >= m->max)
			return -1;
		if (m->n == m->cap) {
			size_t nc = m->cap ? m->cap * 2 : 64;
			ks_drvmap_range *nr = realloc(m->r, nc * sizeof(*nr));
			if (!nr)
				return -1;
			m->r = nr;
			m->cap = nc;
		}
		memmove(m->r + i + 1, m->r + i, (m->n - i) * sizeof(*m->r));
		m->n++;
	} else if (j > i + 1) {
		/* ranges i..j-1 overlap: the new one takes the place of the first, the others go */
		memmove(m->r + i + 1, m->r + j, (m->n - j) * sizeof(*m->r));
		m->n -= j - i - 1;
	}
	m->r[i].base = base;
	m->r[i].size = size;
	m->r[i].id = id;
	return 0;
}

int ks_drvmap_remove(uint64_t *id, ks_drvmap *m, uint64_t base)
{
	size_t i = lower_bound(m, base);
	if (i >= m->n || m->r[i].base != base)
		return -1;
	if (id)
		*id = m->r[i].id;
	memmove(m->r + i, m->r + i + 1, (m->n - i - 1) * sizeof(*m->r));
	m->n--;
	return 0;
}

const ks_drvmap_range *ks_drvmap_find(const ks_drvmap *m, uint64_t a)
{
	size_t i = lower_bound(m, a);
	if (i < m->n && m->r[i].base == a)
		return &m->r[i];
	if (i > 0 && a - m->r[i - 1].base < m->r[i - 1].size)
		return &m->r[i - 1];
	return NULL;
}

void ks_drvmap_clear(ks_drvmap *m)
{
	free(m->r);
	m->r = NULL;
	m->n = m->cap = 0;
}
