/* golden_cubins: writes the CUBIN of every reference problem's golden kernel, compiled exactly as
 * `score` compiles it (ks_problem_set_load, then ks_compile_run with the default options and
 * ks_runner_golden_job's jobs), to OUTDIR/<suite>/<name>.cubin. A maintainer tool, not part of the
 * product: scripts/golden-cubins.sh builds it and compares two such folders, so a refactoring of
 * reference_tests/ can show that no golden's code changed. NVRTC only: no GPU needed.
 *
 * Usage: golden_cubins REFS_DIR OUTDIR HELPER (HELPER: the kscore-compile binary) */
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/mem.h"
#include "load/plan.h"
#include "load/problem.h"
#include "run/runner.h"
#include "util/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	ks_problem_set *set = NULL;
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	ks_compile_job *jobs;
	char ***names;
	size_t *nn, i;
	int rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: golden_cubins REFS_DIR OUTDIR HELPER\n");
		return 2;
	}
	if (ks_problem_set_load(&set, argv[1], NULL) < 0) {
		fprintf(stderr, "golden_cubins: %s\n", ks_error_msg());
		return 1;
	}
	for (i = 0; i < set->nerrors; i++) {
		fprintf(stderr, "golden_cubins: %s\n", set->errors[i]);
		rc = 1;
	}
	co.helper = argv[3];
	co.timeout_s = 300;
	co.jobs = 2;
	co.allow_unsandboxed = !ks_sandbox_available();
	jobs = ks_calloc(set->n + 1, sizeof(*jobs));
	names = ks_calloc(set->n + 1, sizeof(*names));
	nn = ks_calloc(set->n + 1, sizeof(*nn));
	for (i = 0; i < set->n; i++)
		ks_runner_golden_job(&jobs[i], &names[i], &nn[i], set->problems[i]);
	if (ks_compile_run(jobs, set->n, &co) < 0) {
		fprintf(stderr, "golden_cubins: %s\n", ks_error_msg());
		rc = 1;
	}
	mkdir(argv[2], 0755);
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		char *dir = ks_asprintf("%s/%s", argv[2], p->suite);
		char *path = ks_asprintf("%s/%s.cubin", dir, p->name);
		FILE *f;

		mkdir(dir, 0755);
		if (jobs[i].status != KS_COMPILE_OK) {
			fprintf(stderr, "golden_cubins: %s/%s: %s\n%s\n", p->suite, p->name,
				ks_compile_status_name(jobs[i].status), jobs[i].log ? jobs[i].log : "");
			rc = 1;
		} else if (!(f = fopen(path, "wb"))) {
			fprintf(stderr, "golden_cubins: cannot write %s\n", path);
			rc = 1;
		} else {
			int bad = fwrite(jobs[i].cubin, 1, jobs[i].cubin_len, f) != jobs[i].cubin_len;
			if (fclose(f) || bad) {
				fprintf(stderr, "golden_cubins: cannot write %s\n", path);
				rc = 1;
			}
		}
		ks_compile_job_clear(&jobs[i]);
		ks_free_strv(names[i], nn[i]);
		ks_free(path);
		ks_free(dir);
	}
	ks_free(jobs);
	ks_free(names);
	ks_free(nn);
	ks_problem_set_free(set);
	return rc;
}
