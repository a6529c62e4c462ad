/* worker_reply: how the worker answers the scoring process (replies, failures) and reads its
 * device, shared by the dispatch loop (worker_main.c) and the request handlers (worker_exec.c,
 * worker_time.c, worker_calib.c), which include this one way (worker_int.h). */
#include "worker/worker_int.h"
#include "util/errors.h"
#include "util/jsonutil.h"

#include <stdio.h>
#include <unistd.h>

void wk_reply(cJSON *j, const void *blob, uint64_t len)
{
	/* What this request printed (device printf reaches stdout through the C library at
	 * synchronisation points) goes out before the reply, so the scoring process, which drains the
	 * pipe while it waits, credits it to this request. */
	fflush(stdout);
	fflush(stderr);
	if (ks_proto_send(WK_FD, KS_MSG_REPLY, j, blob, len) < 0)
		_exit(3);
	cJSON_Delete(j);
}

void wk_reply_error(const char *stage, CUresult r, const char *msg, int sticky)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 0);
	cJSON_AddStringToObject(j, "stage", stage);
	cJSON_AddNumberToObject(j, "code", (double)r);
	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddBoolToObject(j, "sticky", sticky);
	wk_reply(j, NULL, 0);
	if (sticky)
		_exit(0); /* the context is unusable; the scoring process starts a fresh worker */
}

cJSON *wk_ok_reply(void)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 1);
	return j;
}

int wk_attr(wk_ctx *w, CUdevice_attribute a)
{
	int v = 0;
	w->cu.cuDeviceGetAttribute(&v, a, w->dev);
	return v;
}
