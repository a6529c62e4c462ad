/* fuzz_proto: what a GPU worker sends back (run/proto.c). A worker runs untrusted kernels and may
 * die, hang or be broken mid-reply, so the framing is read with caps and a deadline. The input is
 * the byte stream of a worker's socket, closed after it; messages are read until one fails. The
 * input is also a worker's console output (device printf), made safe to show.
 * Contract: a message that is read has a JSON object, a blob of the length its header said and at
 * most the cap asked for (NULL exactly when empty); a failure is one of the documented errors
 * with a message; the reader never reads past the stream or waits on a closed one; the console
 * text is valid UTF-8 with no control byte but newline and tab. */
#include "fuzz.h"
#include "run/proto.h"
#include "util/utf8.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BLOB (16ull << 30) /* a worker's replies' cap (KS_WORKER_DEFAULT_MAX_REPLY): a claim up to it
				* must cost no more memory than what arrives (-malloc_limit_mb=1024) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void read_stream(const uint8_t *data, size_t size)
{
	int sv[2], i, rc = 0;
	size_t off = 0;
	FZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %s", strerror(errno));
	{
		int big = 1 << 20;
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	}
	while (off < size) {
		ssize_t n = write(sv[1], data + off, size - off);
		FZ_CHECK(n > 0, "writing the stream: %s", strerror(errno));
		off += (size_t)n;
	}
	close(sv[1]);
	for (i = 0; i < 64 && rc == 0; i++) {
		ks_msg m;
		rc = ks_proto_recv(sv[0], &m, 5.0, MAX_BLOB);
		if (rc == 0) {
			FZ_CHECK(m.json != NULL, "a message without JSON");
			FZ_CHECK(m.blob_len <= MAX_BLOB, "a blob of %llu bytes past the cap", (unsigned long long)m.blob_len);
			FZ_CHECK((m.blob == NULL) == (m.blob_len == 0), "blob %p of %llu bytes", (void *)m.blob,
				 (unsigned long long)m.blob_len);
			ks_msg_clear(&m);
			continue;
		}
		FZ_CHECK(rc == KS_ECHILD || rc == KS_EINVALID || rc == KS_ELIMIT || rc == KS_EIO,
			 "an undocumented error %d (%s)", rc, ks_error_msg());
		FZ_CHECK(*ks_error_msg(), "error %d without a message", rc);
		FZ_CHECK(m.json == NULL && m.blob == NULL, "a failed read left a message");
		ks_error_clear();
	}
	close(sv[0]);
}

static void console_text(const uint8_t *data, size_t size)
{
	char *t = ks_proto_output_text((const char *)data, size);
	size_t i, n = strlen(t);
	FZ_CHECK(ks_utf8_valid(t, n, NULL), "console text that is not UTF-8");
	for (i = 0; i < n; i++)
		FZ_CHECK(((unsigned char)t[i] >= 0x20 && t[i] != 0x7f) || t[i] == '\n' || t[i] == '\t',
			 "control byte 0x%02x at %zu", (unsigned char)t[i], i);
	FZ_CHECK(n <= 4 * size, "%zu bytes of text from %zu", n, size);
	ks_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_stream(data, size);
	console_text(data, size);
	return 0;
}
