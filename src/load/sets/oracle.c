/* oracle: the kscore-oracle process and its requests (oracle.h). */
#include "load/sets/oracle.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/linechild.h"
#include "util/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRACE_S 30.0 /* past the helper's own limit on its child, before kscore gives up on it */
#define SEED_MASK ((UINT64_C(1) << 53) - 1) /* a JSON number carries 53 bits exactly */

struct ks_oracle {
	ks_oracle_options o;
	char *python, *helper, *dir, *visible;
	ks_linechild proc;
	uint64_t next_id;
	int answered;             /* the running server has answered once: torch is imported */
};

static int spawn(ks_oracle *o)
{
	/* the driver needs an unlimited address space; materialize writes tensors of any size */
	ks_sandbox_limits lim = KS_SANDBOX_LIMITS_INIT;
	char *log = ks_asprintf("%s/oracle.log", o->dir);
	const char *argv[] = { o->python, "-I", "-B", o->helper, "serve", NULL };
	char **env = ks_linechild_env(o->dir, o->visible);
	int rc;
	lim.file_size_mb = 64u << 10;
	lim.max_files = 4096;
	rc = ks_linechild_spawn(&o->proc, argv, (const char *const *)env, log, &lim);
	ks_linechild_env_free(env);
	ks_free(log);
	o->answered = 0;
	return rc;
}

int ks_oracle_start(ks_oracle **out, const ks_oracle_options *opts)
{
	ks_oracle *o = ks_calloc(1, sizeof(*o));
	const char *tmp = getenv("TMPDIR");
	int rc = 0;
	o->o = *opts;
	o->visible = opts->visible_devices ? ks_strdup(opts->visible_devices) : NULL;
	o->o.visible_devices = o->visible;
	ks_linechild_init(&o->proc, KS_ORACLE_MAX_REPLY);
	*out = NULL;
	if (!(o->python = ks_linechild_python(opts->python)) ||
	    !(o->helper = opts->helper ? ks_strdup(opts->helper) : ks_fs_find_helper("kscore-oracle"))) {
		rc = KS_ENOTFOUND;
		goto done;
	}
	o->dir = ks_asprintf("%s/kscore-oracle-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(o->dir)) {
		rc = ks_error_set(KS_EIO, "cannot make the oracle's folder %s: %s", o->dir, strerror(errno));
		ks_free(o->dir);
		o->dir = NULL;
		goto done;
	}
	rc = spawn(o);
done:
	if (rc < 0)
		ks_oracle_free(o);
	else
		*out = o;
	return rc;
}

void ks_oracle_free(ks_oracle *o)
{
	if (!o)
		return;
	if (o->proc.in >= 0) {
		static const char quit[] = "{\"op\": \"quit\"}";
		(void)ks_linechild_send(&o->proc, quit, sizeof(quit) - 1);
	}
	ks_linechild_free(&o->proc);
	if (o->dir)
		ks_fs_rm_rf(o->dir); /* the folder ks_oracle_start made, and only that */
	ks_free(o->dir);
	ks_free(o->python);
	ks_free(o->helper);
	ks_free(o->visible);
	ks_free(o);
}

/* Sends req and reads the reply line into *line (caller frees). The first request of a server also
 * waits for its torch import. On failure the server is stopped (the next request starts another)
 * and the returned status says why: KS_ORACLE_TIMEOUT, _UNAVAILABLE (it exited), _BROKEN. */
static ks_oracle_status exchange(ks_oracle *o, char **line, const cJSON *req, double timeout_s)
{
	char *text = NULL;
	ks_oracle_status st = KS_ORACLE_OK;
	double deadline;
	int e;
	*line = NULL;
	if (o->proc.pid < 0 && spawn(o) < 0)
		return KS_ORACLE_UNAVAILABLE;
	deadline = ks_linechild_now() + timeout_s + GRACE_S + (o->answered ? 0 : o->o.start_timeout_s);
	text = ks_json_print(req, 0);
	if (!text || ks_linechild_send(&o->proc, text, strlen(text)) < 0) {
		ks_error_set(KS_ECHILD, "the oracle helper is not running (see its log)");
		st = KS_ORACLE_UNAVAILABLE;
	} else if ((e = ks_linechild_recv(&o->proc, line, deadline, "the oracle helper")) < 0) {
		st = e == KS_ETIMEOUT ? KS_ORACLE_TIMEOUT : e == KS_ECHILD ? KS_ORACLE_UNAVAILABLE : KS_ORACLE_BROKEN;
	} else {
		o->answered = 1;
	}
	if (st != KS_ORACLE_OK)
		ks_linechild_stop(&o->proc);
	ks_free(text);
	return st;
}

char *ks_oracle_versions(ks_oracle *o, int *torch_missing)
{
	cJSON *req = cJSON_CreateObject(), *resp = NULL;
	char *line = NULL, *out = NULL;
	const cJSON *v;
	*torch_missing = 0;
	ks_json_add_str(req, "op", "version");
	cJSON_AddNumberToObject(req, "id", (double)++o->next_id);
	if (exchange(o, &line, req, o->o.start_timeout_s) != KS_ORACLE_OK)
		goto done;
	if (ks_json_parse(&resp, line, strlen(line), 8, "the oracle's versions") < 0)
		goto done;
	if ((v = cJSON_GetObjectItemCaseSensitive(resp, "unavailable")) && cJSON_IsString(v)) {
		*torch_missing = 1;
		ks_error_set(KS_ENOTFOUND, "%.600s", v->valuestring);
	}
	out = ks_json_print(cJSON_GetObjectItemCaseSensitive(resp, "versions"), 0);
done:
	ks_free(line);
	cJSON_Delete(req);
	cJSON_Delete(resp);
	return out;
}

static const char *format_name(ks_set_format f)
{
	return f == KS_SET_KERNELBENCH ? "kernelbench" : "tritonbench-g";
}

static cJSON *request(ks_oracle *o, const char *op, ks_set_format format, const ks_set_problem *p, uint64_t seed)
{
	cJSON *req = cJSON_CreateObject(), *entries = cJSON_AddArrayToObject(req, "entries");
	size_t i;
	ks_json_add_str(req, "op", op);
	cJSON_AddNumberToObject(req, "id", (double)++o->next_id);
	ks_json_add_str(req, "format", format_name(format));
	ks_json_add_str(req, "path", p->path);
	if (p->perf_path)
		ks_json_add_str(req, "perf_path", p->perf_path);
	for (i = 0; format == KS_SET_TRITONBENCH_G && i < p->nentries; i++)
		cJSON_AddItemToArray(entries, cJSON_CreateString(p->entries[i]));
	cJSON_AddNumberToObject(req, "seed", (double)(seed & SEED_MASK));
	cJSON_AddNumberToObject(req, "timeout_s", o->o.timeout_s);
	if (o->o.unconfined)
		cJSON_AddFalseToObject(req, "confine");
	return req;
}

static void failed(ks_oracle_reply *out, ks_oracle_status st, const ks_set_problem *p)
{
	memset(out, 0, sizeof(*out));
	out->status = st;
	out->file = ks_strdup(p->path);
	out->reason = ks_strdup(ks_error_msg());
	ks_error_clear();
}

static int ask(ks_oracle *o, ks_oracle_reply *out, cJSON *req, const ks_set_problem *p)
{
	char *line = NULL;
	ks_oracle_status st = exchange(o, &line, req, o->o.timeout_s);
	if (st != KS_ORACLE_OK)
		failed(out, st, p);
	else
		ks_oracle_reply_read(out, line, strlen(line));
	if (!out->file)
		out->file = ks_strdup(p->path);
	ks_free(line);
	cJSON_Delete(req);
	return 0;
}

int ks_oracle_cases(ks_oracle *o, ks_oracle_reply *out, ks_set_format format, const ks_set_problem *p,
		    uint64_t seed)
{
	if (format != KS_SET_TRITONBENCH_G && format != KS_SET_KERNELBENCH) {
		failed(out, KS_ORACLE_BAD_REQUEST, p);
		return ks_error_set(KS_EINVALID, "the oracle runs TritonBench-G and KernelBench files only");
	}
	return ask(o, out, request(o, "cases", format, p, seed), p);
}

int ks_oracle_materialize(ks_oracle *o, ks_oracle_reply *out, ks_set_format format, const ks_set_problem *p,
			  uint64_t seed, const ks_oracle_reply *cases, uint64_t cases_seed, const char *inputs_dir,
			  const char *outputs_dir, uint64_t max_bytes)
{
	cJSON *req, *expect;
	size_t i;
	if ((format != KS_SET_TRITONBENCH_G && format != KS_SET_KERNELBENCH) || !cases ||
	    cases->status != KS_ORACLE_OK) {
		ks_error_set(KS_EINVALID, "materialize needs the ok reply of a cases run");
		failed(out, KS_ORACLE_BAD_REQUEST, p);
		return KS_EINVALID;
	}
	req = request(o, "materialize", format, p, seed);
	ks_json_add_str(req, "inputs_dir", inputs_dir);
	ks_json_add_str(req, "outputs_dir", outputs_dir);
	cJSON_AddNumberToObject(req, "cases_seed", (double)(cases_seed & SEED_MASK));
	if (max_bytes)
		cJSON_AddNumberToObject(req, "max_bytes", (double)(max_bytes > (UINT64_C(1) << 50) ? UINT64_C(1) << 50
												       : max_bytes));
	expect = cJSON_AddArrayToObject(req, "expect");
	for (i = 0; i < cases->ncases; i++)
		cJSON_AddItemToArray(expect, cJSON_CreateString(cases->cases[i].signature));
	return ask(o, out, req, p);
}
