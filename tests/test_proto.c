#include "ktest.h"
#include "util/errors.h"
#include "util/mem.h"
#include "run/proto.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_roundtrip_with_blob(void)
{
	int sv[2];
	ks_msg m;
	cJSON *j = cJSON_CreateObject();
	unsigned char blob[1000];
	int i;
	for (i = 0; i < 1000; i++)
		blob[i] = (unsigned char)i;
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cJSON_AddNumberToObject(j, "x", 42);
	KT_EQ_INT(ks_proto_send(sv[0], KS_MSG_RUN, j, blob, sizeof(blob)), 0);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 5, 1 << 20), 0);
	KT_EQ_INT(m.type, KS_MSG_RUN);
	KT_EQ_INT(cJSON_GetObjectItem(m.json, "x")->valuedouble, 42);
	KT_EQ_INT(m.blob_len, 1000);
	KT_EQ_INT(memcmp(m.blob, blob, 1000), 0);
	ks_msg_clear(&m);
	cJSON_Delete(j);
}

static void test_timeout_eof_and_caps(void)
{
	int sv[2];
	ks_msg m;
	char junk[24] = "garbage-not-a-header!!!";
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 0.2, 1 << 20), KS_ETIMEOUT);
	KT_EQ_INT(ks_proto_send(sv[0], KS_MSG_REPLY, NULL, "abcdef", 6), 0);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 1, 4), KS_ELIMIT);
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	KT_ASSERT(write(sv[0], junk, 24) == 24);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 1, 1 << 20), KS_EINVALID);
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 1, 1 << 20), KS_ECHILD);
}

static void nonblock(int fd)
{
	KT_ASSERT(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k <= 0)
			_exit(3);
		p += k;
		n -= (size_t)k;
	}
}

static void test_capture_keeps_the_first_bytes_and_counts_the_rest(void)
{
	ks_proto_capture c = KS_PROTO_CAPTURE_INIT(4096);
	char data[10000], *kept;
	size_t len;
	uint64_t total;
	int p[2], i;
	for (i = 0; i < 10000; i++)
		data[i] = (char)('a' + i % 26);
	KT_EQ_INT(pipe(p), 0);
	nonblock(p[0]);
	KT_EQ_INT(ks_proto_capture_drain(&c, p[0], 0), 0); /* nothing yet: does not block */
	KT_ASSERT(!c.closed);
	write_all(p[1], data, sizeof(data));
	KT_EQ_INT(ks_proto_capture_drain(&c, p[0], 0), 10000);
	kept = ks_proto_capture_take(&c, &len, &total);
	KT_EQ_INT(len, 4096);
	KT_EQ_INT(total, 10000);
	KT_EQ_INT(memcmp(kept, data, 4096), 0);
	KT_EQ_INT(kept[4096], 0);
	ks_free(kept);
	/* taking starts afresh */
	write_all(p[1], "tail", 4);
	close(p[1]);
	KT_EQ_INT(ks_proto_capture_drain(&c, p[0], 0), 4);
	KT_ASSERT(c.closed);
	kept = ks_proto_capture_take(&c, &len, &total);
	KT_EQ_STR(kept, "tail");
	KT_EQ_INT(total, 4);
	ks_free(kept);
	ks_proto_capture_free(&c);
	close(p[0]);
}

/* A peer that prints more than a pipe holds before it replies: receiving without draining its
 * output stalls until the deadline; receiving with the capture gets the reply and counts it all. */
static void test_recv_drains_the_peers_output_while_it_waits(void)
{
	ks_proto_capture c = KS_PROTO_CAPTURE_INIT(4096);
	static char flood[1 << 20];
	int sv[2], p[2], i, st = 0;
	size_t len;
	uint64_t total;
	char *kept;
	pid_t pid;
	ks_msg m;
	memset(flood, 'x', sizeof(flood));
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	KT_EQ_INT(pipe(p), 0);
	pid = fork();
	KT_ASSERT(pid >= 0);
	if (pid == 0) {
		cJSON *j = cJSON_CreateObject();
		close(p[0]);
		for (i = 0; i < 8; i++)
			write_all(p[1], flood, sizeof(flood));
		cJSON_AddBoolToObject(j, "ok", 1);
		_exit(ks_proto_send(sv[0], KS_MSG_REPLY, j, NULL, 0) == 0 ? 0 : 4);
	}
	close(p[1]);
	nonblock(p[0]);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 0.3, 1 << 20), KS_ETIMEOUT); /* the peer is stuck printing */
	KT_EQ_INT(ks_proto_recv_capture(sv[1], &m, 20, 1 << 20, p[0], &c), 0);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(m.json, "ok")));
	ks_msg_clear(&m);
	ks_proto_capture_drain(&c, p[0], 0);
	kept = ks_proto_capture_take(&c, &len, &total);
	KT_EQ_INT(len, 4096);
	KT_EQ_INT(total, 8u << 20);
	ks_free(kept);
	KT_EQ_INT(waitpid(pid, &st, 0), pid);
	KT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ks_proto_capture_free(&c);
}

/* Sending a large request to a peer that prints before it reads: the sender drains the output
 * while the socket is full, so neither side waits for the other forever. */
static void test_send_drains_the_peers_output_while_the_socket_is_full(void)
{
	ks_proto_capture c = KS_PROTO_CAPTURE_INIT(64);
	static char flood[1 << 20];
	unsigned char *blob = ks_malloc(8u << 20);
	int sv[2], p[2], st = 0;
	pid_t pid;
	memset(flood, 'y', sizeof(flood));
	memset(blob, 7, 8u << 20);
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	KT_EQ_INT(pipe(p), 0);
	pid = fork();
	KT_ASSERT(pid >= 0);
	if (pid == 0) {
		ks_msg m;
		int i;
		close(p[0]);
		for (i = 0; i < 4; i++)
			write_all(p[1], flood, sizeof(flood));
		_exit(ks_proto_recv(sv[0], &m, 20, 16u << 20) == 0 && m.blob_len == (8u << 20) ? 0 : 5);
	}
	close(p[1]);
	nonblock(p[0]);
	nonblock(sv[1]);
	alarm(30);
	KT_EQ_INT(ks_proto_send_capture(sv[1], KS_MSG_RUN, NULL, blob, 8u << 20, p[0], &c), 0);
	KT_EQ_INT(waitpid(pid, &st, 0), pid);
	KT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ks_proto_capture_drain(&c, p[0], 0);
	KT_EQ_INT(c.total, 4u << 20);
	KT_EQ_INT(c.kept.len, 64);
	ks_proto_capture_free(&c);
	ks_free(blob);
}

static void test_output_text_is_safe_to_show(void)
{
	static const char raw[] = "ok \xc3\xa9\n\tcolour \x1b[31mred\r\nnul \0 bad \xff \xc0\xaf "
				  "\xed\xa0\x80 cut \xe2\x82";
	char *t = ks_proto_output_text(raw, sizeof(raw) - 1);
	KT_EQ_STR(t, "ok \xc3\xa9\n\tcolour \\x1b[31mred\\x0d\nnul \\x00 bad \xef\xbf\xbd "
		  "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd cut "
		  "\xef\xbf\xbd\xef\xbf\xbd");
	ks_free(t);
	t = ks_proto_output_text("", 0);
	KT_EQ_STR(t, "");
	ks_free(t);
}

/* A worker that breaks mid-reply may have promised a blob of any size up to the cap (16 GiB for a
 * worker's replies): the buffer grows with what arrives, so a claim of 1 TiB followed by ten bytes
 * and the end of the stream is an error, not an allocation of 1 TiB (which aborts). Also a blob past
 * the first allocation step arrives whole. */
static void test_a_blobs_claim_alone_allocates_nothing_big(void)
{
	struct {
		uint32_t magic, type, json_len, reserved;
		uint64_t blob_len;
	} h = { KS_PROTO_MAGIC, KS_MSG_REPLY, 0, 0, 1ull << 40 };
	int sv[2];
	ks_msg m;
	size_t big = (64u << 20) + 12345, i;
	unsigned char *blob;
	pid_t pid;
	int st = 0;
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	KT_ASSERT(write(sv[0], &h, sizeof(h)) == (ssize_t)sizeof(h));
	KT_ASSERT(write(sv[0], "0123456789", 10) == 10);
	close(sv[0]);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 5, 1ull << 41), KS_ECHILD);
	KT_ASSERT(m.blob == NULL && m.json == NULL);
	close(sv[1]);
	/* more than one step: sent from a child while the parent reads */
	blob = ks_malloc(big);
	for (i = 0; i < big; i++)
		blob[i] = (unsigned char)(i * 7 + 3);
	KT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		close(sv[1]);
		_exit(ks_proto_send(sv[0], KS_MSG_REPLY, NULL, blob, big) == 0 ? 0 : 3);
	}
	close(sv[0]);
	KT_EQ_INT(ks_proto_recv(sv[1], &m, 30, 1ull << 34), 0);
	KT_ASSERT(m.blob_len == big);
	KT_EQ_INT(memcmp(m.blob, blob, big), 0);
	ks_msg_clear(&m);
	close(sv[1]);
	KT_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ks_free(blob);
}

static const kt_test tests[] = { KT(test_roundtrip_with_blob), KT(test_timeout_eof_and_caps),
				 KT(test_capture_keeps_the_first_bytes_and_counts_the_rest),
				 KT(test_recv_drains_the_peers_output_while_it_waits),
				 KT(test_send_drains_the_peers_output_while_the_socket_is_full),
				 KT(test_output_text_is_safe_to_show),
				 KT(test_a_blobs_claim_alone_allocates_nothing_big), { 0 } };
KT_MAIN("proto", tests)
