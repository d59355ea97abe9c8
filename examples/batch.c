/* SPDX-License-Identifier: MIT */
/* Queues 32 reads at once, hands them to the device in the same system call
 * as the wait (HIO_SUBMIT_DEFER), and matches completions to commands by
 * tag, under hybrid polling: sleep half the device's latency, then poll. */
#include <hybridio/hio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 32
#define BS 4096

static int fail(const char *what) {
  fprintf(stderr, "batch: %s: %s\n", what, hio_last_error());
  return 1;
}

int main(void) {
  if (hio_version_check(HIO_VERSION_MAJOR, HIO_VERSION_MINOR) < 0) return fail("version");
  hio_engine *e;
  hio_queue *q;
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof(qo));
  qo.depth = N;
  if (hio_engine_create(&e) < 0) return fail("engine");
  if (hio_queue_create(e, &qo, &q) < 0) return fail("queue");
  hio_strategy s;
  hio_strategy_init(&s, sizeof(s));
  s.mode = HIO_WAIT_HYBRID;
  if (hio_queue_strategy_set(q, &s) < 0) return fail("strategy");
  int t = hio_queue_open(q, "emu:pcie4,size=1m", NULL);
  if (t < 0) return fail("open");

  char *buf = aligned_alloc(BS, (size_t)N * BS);
  for (int i = 0; i < N; i++) {
    memset(buf + (size_t)i * BS, 'a' + i % 26, BS);
    if (hio_write(q, t, buf + (size_t)i * BS, BS, (uint64_t)i * BS) < 0) return fail("write");
  }
  memset(buf, 0, (size_t)N * BS);

  hio_io ios[N];
  for (int i = 0; i < N; i++)
    ios[i] = (hio_io){.op = HIO_OP_READ,
                      .target = t,
                      .buf = buf + (size_t)i * BS,
                      .len = BS,
                      .offset = (uint64_t)i * BS,
                      .tag = (uint64_t)i};
  if (hio_submit(q, ios, N, HIO_SUBMIT_DEFER) != N) return fail("submit");
  int seen[N] = {0}, done = 0;
  while (done < N) {
    hio_completion c[N];
    int n = hio_reap(q, c, N, 1);
    if (n < 0) return fail("reap");
    for (int k = 0; k < n; k++) {
      if (c[k].res != BS || c[k].tag >= N || seen[c[k].tag]++) return fail("completion");
      const char *p = buf + c[k].tag * BS;
      if (p[0] != 'a' + (int)c[k].tag % 26 || p[BS - 1] != p[0]) return fail("data");
    }
    done += n;
  }
  printf("%d reads completed under %s, each once, intact\n", N, hio_wait_mode_name(s.mode));
  free(buf);
  hio_queue_destroy(q);
  hio_engine_destroy(e);
  return 0;
}
