#include "run/proto.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/utf8.h"

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

static double now(void);

/* A reply's blob buffer is allocated this much at a time (run/proto.h: ks_proto_recv). */
#define BLOB_STEP (64ull << 20)

/* Drains at most this much of a worker's output per wake-up, so that a flood cannot starve the
 * protocol's own descriptor. */
#define DRAIN_SLICE (1u << 20)

/* Waits until fd is ready for `events`, draining side (when >= 0) into cap whenever it has output
 * meanwhile. wait_ms < 0: no limit. Returns 1 when fd is ready, 0 after a timeout or a drain (the
 * caller loops), <0 on an error. */
static int wait_fd(int fd, short events, int wait_ms, int side, ks_proto_capture *cap)
{
	struct pollfd p[2] = { { fd, events, 0 }, { side, POLLIN, 0 } };
	int r = poll(p, side >= 0 ? 2 : 1, wait_ms);
	if (r < 0)
		return errno == EINTR ? 0 : ks_error_set(KS_EIO, "poll: %s", strerror(errno));
	if (side >= 0 && p[1].revents)
		ks_proto_capture_drain(cap, side, DRAIN_SLICE);
	return r > 0 && p[0].revents ? 1 : 0;
}

static int write_all(int fd, const void *data, size_t len, int side, ks_proto_capture *cap)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			int r;
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return ks_error_set(KS_EIO, "worker connection: write failed: %s", strerror(errno));
			/* the peer is not reading yet: meanwhile its output keeps flowing */
			if ((r = wait_fd(fd, POLLOUT, -1, side >= 0 && !cap->closed ? side : -1, cap)) < 0)
				return r;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ks_proto_send_capture(int fd, uint32_t type, const cJSON *json, const void *blob, uint64_t blob_len,
			  int out_fd, ks_proto_capture *cap)
{
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;
	header h = { KS_PROTO_MAGIC, type, 0, 0, blob ? blob_len : 0 };
	int rc;
	h.json_len = text ? (uint32_t)strlen(text) : 0;
	if ((rc = write_all(fd, &h, sizeof(h), out_fd, cap)) == 0 && text)
		rc = write_all(fd, text, h.json_len, out_fd, cap);
	if (rc == 0 && blob && blob_len)
		rc = write_all(fd, blob, (size_t)blob_len, out_fd, cap);
	cJSON_free(text);
	return rc;
}

int ks_proto_send(int fd, uint32_t type, const cJSON *json, const void *blob, uint64_t blob_len)
{
	return ks_proto_send_capture(fd, type, json, blob, blob_len, -1, NULL);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int read_all(int fd, void *data, size_t len, double deadline, int side, ks_proto_capture *cap)
{
	char *p = data;
	while (len > 0) {
		int wait_ms = -1, r;
		ssize_t n;
		if (deadline > 0) {
			double left = deadline - now();
			if (left <= 0)
				return ks_error_set(KS_ETIMEOUT, "worker did not answer in time");
			wait_ms = (int)(left * 1000) + 1;
		}
		r = wait_fd(fd, POLLIN, wait_ms, side >= 0 && !cap->closed ? side : -1, cap);
		if (r < 0)
			return r;
		if (r == 0)
			continue; /* re-check the deadline */
		n = read(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
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
	return ks_proto_recv_capture(fd, out, timeout_s, max_blob, -1, NULL);
}

int ks_proto_recv_capture(int fd, ks_msg *out, double timeout_s, uint64_t max_blob, int out_fd,
			  ks_proto_capture *cap)
{
	double deadline = timeout_s > 0 ? now() + timeout_s : 0;
	header h;
	char *text = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = read_all(fd, &h, sizeof(h), deadline, out_fd, cap)) < 0)
		return rc;
	if (h.magic != KS_PROTO_MAGIC)
		return ks_error_set(KS_EINVALID, "worker sent a malformed message");
	if (h.json_len > KS_PROTO_MAX_JSON || h.blob_len > max_blob)
		return ks_error_set(KS_ELIMIT, "worker message too large (%u + %llu bytes)", h.json_len,
				    (unsigned long long)h.blob_len);
	out->type = h.type;
	text = ks_malloc((size_t)h.json_len + 1);
	if ((rc = read_all(fd, text, h.json_len, deadline, out_fd, cap)) < 0)
		goto done;
	text[h.json_len] = '\0';
	if (h.json_len && (rc = ks_json_parse(&out->json, text, h.json_len, 32, "worker message")) < 0)
		goto done;
	if (!out->json)
		out->json = cJSON_CreateObject();
	if (h.blob_len) {
		/* the buffer grows with what arrives, so a header's claim alone (a worker that breaks
		 * mid-reply) costs at most BLOB_STEP, not the cap */
		uint64_t got = 0, room = h.blob_len < BLOB_STEP ? h.blob_len : BLOB_STEP;
		out->blob = ks_malloc((size_t)room);
		out->blob_len = h.blob_len;
		while (got < h.blob_len) {
			if (got == room) {
				room = h.blob_len - room < room ? h.blob_len : 2 * room;
				out->blob = ks_realloc(out->blob, (size_t)room);
			}
			if ((rc = read_all(fd, out->blob + got, (size_t)(room - got), deadline, out_fd, cap)) < 0)
				goto done;
			got = room;
		}
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

uint64_t ks_proto_capture_drain(ks_proto_capture *c, int fd, uint64_t max_bytes)
{
	char chunk[65536];
	uint64_t got = 0;
	while (!c->closed && (!max_bytes || got < max_bytes)) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			c->closed = 1;
			break;
		}
		ks_buf_put_truncated(&c->kept, chunk, (size_t)n);
		c->total += (uint64_t)n;
		got += (uint64_t)n;
	}
	return got;
}

char *ks_proto_capture_take(ks_proto_capture *c, size_t *len, uint64_t *total)
{
	*total = c->total;
	c->total = 0;
	return ks_buf_take(&c->kept, len);
}

void ks_proto_capture_free(ks_proto_capture *c)
{
	ks_buf_free(&c->kept);
	c->total = 0;
}

char *ks_proto_output_text(const char *s, size_t n)
{
	return ks_utf8_printable(s, n);
}
