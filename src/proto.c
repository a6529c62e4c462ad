#include "proto.h"
#include "errors.h"
#include "jsonutil.h"
#include "mem.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const ks_proto_cal_keys[KS_CAL_COUNT] = {
	"copy", "read", "fma", "mma_f16", "mma_bf16", "wgmma_f16", "wgmma_bf16",
};

typedef struct {
	uint32_t magic, type, json_len, reserved;
	uint64_t blob_len;
} header;

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ks_error_set(KS_EIO, "worker connection: write failed: %s", strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ks_proto_send(int fd, uint32_t type, const cJSON *json, const void *blob, uint64_t blob_len)
{
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;
	header h = { KS_PROTO_MAGIC, type, 0, 0, blob ? blob_len : 0 };
	int rc;
	h.json_len = text ? (uint32_t)strlen(text) : 0;
	if ((rc = write_all(fd, &h, sizeof(h))) == 0 && text)
		rc = write_all(fd, text, h.json_len);
	if (rc == 0 && blob && blob_len)
		rc = write_all(fd, blob, (size_t)blob_len);
	cJSON_free(text);
	return rc;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int read_all(int fd, void *data, size_t len, double deadline)
{
	char *p = data;
	while (len > 0) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int wait_ms = -1, r;
		ssize_t n;
		if (deadline > 0) {
			double left = deadline - now();
			if (left <= 0)
				return ks_error_set(KS_ETIMEOUT, "worker did not answer in time");
			wait_ms = (int)(left * 1000) + 1;
		}
		r = poll(&pfd, 1, wait_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return ks_error_set(KS_EIO, "poll: %s", strerror(errno));
		}
		if (r == 0)
			continue; /* re-check the deadline */
		n = read(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return ks_error_set(KS_ECHILD, "worker connection: %s", strerror(errno));
		}
		if (n == 0)
			return ks_error_set(KS_ECHILD, "worker closed the connection");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ks_proto_recv(int fd, ks_msg *out, double timeout_s, uint64_t max_blob)
{
	double deadline = timeout_s > 0 ? now() + timeout_s : 0;
	header h;
	char *text = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = read_all(fd, &h, sizeof(h), deadline)) < 0)
		return rc;
	if (h.magic != KS_PROTO_MAGIC)
		return ks_error_set(KS_EINVALID, "worker sent a malformed message");
	if (h.json_len > KS_PROTO_MAX_JSON || h.blob_len > max_blob)
		return ks_error_set(KS_ELIMIT, "worker message too large (%u + %llu bytes)", h.json_len,
				    (unsigned long long)h.blob_len);
	out->type = h.type;
	text = ks_malloc((size_t)h.json_len + 1);
	if ((rc = read_all(fd, text, h.json_len, deadline)) < 0)
		goto done;
	text[h.json_len] = '\0';
	if (h.json_len && (rc = ks_json_parse(&out->json, text, h.json_len, 32, "worker message")) < 0)
		goto done;
	if (!out->json)
		out->json = cJSON_CreateObject();
	if (h.blob_len) {
		out->blob = ks_malloc((size_t)h.blob_len);
		out->blob_len = h.blob_len;
		if ((rc = read_all(fd, out->blob, (size_t)h.blob_len, deadline)) < 0)
			goto done;
	}
done:
	ks_free(text);
	if (rc < 0)
		ks_msg_clear(out);
	return rc;
}

void ks_msg_clear(ks_msg *m)
{
	cJSON_Delete(m->json);
	ks_free(m->blob);
	memset(m, 0, sizeof(*m));
}
