#include "ktest.h"
#include "errors.h"
#include "proto.h"

#include <sys/socket.h>

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

static const kt_test tests[] = { KT(test_roundtrip_with_blob), KT(test_timeout_eof_and_caps), { 0 } };
KT_MAIN("proto", tests)
