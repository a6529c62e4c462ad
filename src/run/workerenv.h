/* workerenv: the environment a GPU worker process starts with. Nothing of the scorer's own
 * environment reaches a worker unless named: the CUDA_VISIBLE_DEVICES of the run, narrowed to the
 * worker's own GPU when it asks for that, CUDA_DEVICE_MAX_CONNECTIONS=1, and what KSCORE_WORKER_ENV
 * names. */
#ifndef KS_WORKERENV_H
#define KS_WORKERENV_H

/* Entry `device` of a CUDA_VISIBLE_DEVICES list (comma-separated indices, UUIDs or MIG names), or
 * NULL when the list is shorter; with no list (cvd NULL), the ordinal itself. Caller frees. */
char *ks_workerenv_visible_entry(const char *cvd, int device);

/* The NULL-terminated "NAME=value" list for a worker of GPU `device` (ks_worker_options): its
 * CUDA_VISIBLE_DEVICES (the run's own, or with own_device the one entry for its GPU, empty when
 * the run's list has no such entry), CUDA_DEVICE_MAX_CONNECTIONS=1 unless a passed variable sets
 * it, then the variables KSCORE_WORKER_ENV names (comma-separated, or "*" for all of them: for a
 * profiler that injects itself through the environment), never a second CUDA_VISIBLE_DEVICES nor a
 * second CUDA_DEVICE_MAX_CONNECTIONS. Caller frees with ks_workerenv_free. */
char **ks_workerenv_new(int device, int own_device);
void ks_workerenv_free(char **env);

#endif
