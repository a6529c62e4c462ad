/* fuzz_oracle: one reply line of the oracle helper (the output of a Python process that ran a
 * problem set's code) through the client's reader (src/load/sets/oracle_reply.c) and, for an ok
 * reply, the problem model made from it (oracle_problem.c). The contract: a reply that is not ok
 * has a reason; an ok one's cases are numbered in order, every tensor within the rank cap and every
 * written path an argument tensor; the problem model made from it has a dim value per dim in each
 * case, a data file for every input tensor, and a reason for every refused case. */
#include "load/sets/oracle.h"
#include "util/errors.h"
#include "util/mem.h"
#include "fuzz.h"

static void check_problem(const ks_problem *p, int kernelbench)
{
	size_t i, k, a;
	const ks_case *lists[2] = { p->correctness, p->perf };
	size_t counts[2] = { p->ncorrectness, p->nperf };
	FZ_CHECK(p->oracle && p->ncorrectness + p->nperf > 0, "an oracle problem without cases");
	FZ_CHECK(p->python.entry != NULL, "no Python entry");
	for (k = 0; k < 2; k++)
		for (i = 0; i < counts[k]; i++) {
			const ks_case *c = &lists[k][i];
			size_t d;
			for (d = 0; d < p->ndims; d++)
				FZ_CHECK(c->dims[d] && *c->dims[d], "a case without a dim value");
			for (a = 0; a < p->nargs; a++)
				if (p->args[a].role == KS_ROLE_IN || p->args[a].role == KS_ROLE_INOUT)
					FZ_CHECK(c->dist[a].kind == KS_DIST_DATA && c->dist[a].file, "an input without its file");
		}
	for (a = 0; a < p->nargs; a++)
		if (p->args[a].role == KS_ROLE_OUT)
			FZ_CHECK(p->args[a].atol > 0 && (kernelbench || p->args[a].rtol == KS_ORACLE_TRITONBENCH_RTOL),
				 "an output without the set's tolerance");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_oracle_reply r;
	ks_set_problem sp;
	ks_oracle_refusal *ref = NULL;
	size_t i, nref = 0;
	ks_problem *p = NULL;
	int kb = size > 0 && (data[0] & 1);

	ks_oracle_reply_read(&r, (const char *)data, size);
	FZ_CHECK(r.status <= KS_ORACLE_BROKEN, "a status out of range");
	if (r.status != KS_ORACLE_OK) {
		FZ_CHECK(r.reason && *r.reason, "a failed reply without a reason");
		FZ_CHECK(r.ncases == 0 || r.status != KS_ORACLE_BROKEN, "a broken reply kept cases");
	}
	for (i = 0; i < r.ncases; i++) {
		const ks_oracle_case *c = &r.cases[i];
		size_t w;
		FZ_CHECK(c->index == i, "cases out of order");
		FZ_CHECK(c->entry && *c->entry, "a case without its entry");
		for (w = 0; w < c->nwrites; w++) {
			const ks_oval *t = ks_oracle_case_tensor(c, c->writes[w]);
			FZ_CHECK(t && t->kind == KS_OVAL_TENSOR && t->ndim <= KS_ORACLE_MAX_RANK, "a write of no tensor");
		}
	}
	if (r.status == KS_ORACLE_OK) {
		memset(&sp, 0, sizeof(sp));
		sp.name = (char *)"fuzz";
		sp.suite = (char *)"tritonbench-g";
		sp.path = (char *)"/set/reference/fuzz.py";
		FZ_CHECK(ks_oracle_problem(&p, &ref, &nref, &sp, kb ? KS_SET_KERNELBENCH : KS_SET_TRITONBENCH_G, &r) == 0,
			 "an ok reply refused as a whole");
		for (i = 0; i < nref; i++)
			FZ_CHECK(ref[i].reason && *ref[i].reason, "a refused case without a reason");
		if (p)
			check_problem(p, kb);
		FZ_CHECK(p || nref == r.ncases, "cases neither kept nor refused");
		ks_problem_free(p);
		ks_oracle_refusals_free(ref, nref);
	}
	ks_oracle_reply_clear(&r);
	ks_error_clear();
	return 0;
}
