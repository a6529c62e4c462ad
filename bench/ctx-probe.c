/* bench/ctx-probe.c: what starting and ending a CUDA process costs when several start at once
 * (bench/ctx-probe.sh runs N of them over the host's GPUs). Loads the driver, cuInit, retains the
 * primary context of device 0 and makes a small allocation, prints when each step ended, waits for
 * GOFILE to exist, releases the context and prints the release's start and end. Times are
 * CLOCK_MONOTONIC milliseconds, comparable across processes. Needs only libc and the driver. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_retain_fn)(void **, int);
typedef int (*cu_set_fn)(void *);
typedef int (*cu_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_release_fn)(int);

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double t0 = now_ms(), t_init, t_ctx, t_rel;
	unsigned long long p = 0;
	void *ctx = NULL, *h;
	int dev = 0;
	cu_init_fn init;
	cu_get_fn get;
	cu_retain_fn retain;
	cu_set_fn set;
	cu_alloc_fn alloc;
	cu_release_fn release;

	if (argc != 2) {
		fprintf(stderr, "usage: ctx-probe GOFILE\n");
		return 2;
	}
	if (!(h = dlopen("libcuda.so.1", RTLD_NOW))) {
		fprintf(stderr, "ctx-probe: no CUDA driver: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&get = dlsym(h, "cuDeviceGet");
	*(void **)&retain = dlsym(h, "cuDevicePrimaryCtxRetain");
	*(void **)&set = dlsym(h, "cuCtxSetCurrent");
	*(void **)&alloc = dlsym(h, "cuMemAlloc_v2");
	*(void **)&release = dlsym(h, "cuDevicePrimaryCtxRelease_v2");
	if (!init || !get || !retain || !set || !alloc || !release || init(0) || get(&dev, 0)) {
		fprintf(stderr, "ctx-probe: the driver did not initialise\n");
		return 1;
	}
	t_init = now_ms();
	if (retain(&ctx, dev) || set(ctx) || alloc(&p, 8)) {
		fprintf(stderr, "ctx-probe: no context\n");
		return 1;
	}
	t_ctx = now_ms();
	printf("ready %.3f %.3f %.3f\n", t0, t_init, t_ctx);
	fflush(stdout);
	while (access(argv[1], F_OK)) {
		struct timespec nap = { 0, 1000000 };
		nanosleep(&nap, NULL);
	}
	t_rel = now_ms();
	release(dev);
	printf("released %.3f %.3f\n", t_rel, now_ms());
	return 0;
}
