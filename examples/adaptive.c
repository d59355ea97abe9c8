/* SPDX-License-Identifier: MIT */
/* The adaptive strategy on an emulated SSD: 20,000 reads at depth 1, then
 * what it chose and the share of time it spent in each way of waiting. */
#include <hybridio/hio.h>
#include <hybridio/hio_adaptive.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what) {
  fprintf(stderr, "adaptive: %s: %s\n", what, hio_last_error());
  return 1;
}

int main(void) {
  if (hio_version_check(HIO_VERSION_MAJOR, HIO_VERSION_MINOR) < 0) return fail("version");
  hio_engine *e;
  hio_queue *q;
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof(qo));
  qo.strategy.mode = HIO_WAIT_ADAPTIVE;
  qo.strategy.objective = HIO_OBJECTIVE_OWN;
  if (hio_engine_create(&e) < 0) return fail("engine");
  if (hio_queue_create(e, &qo, &q) < 0) return fail("queue");
  int t = hio_queue_open(q, "emu:pcie4,size=64m", NULL);
  if (t < 0) return fail("open");
  char *buf = aligned_alloc(4096, 4096);
  for (uint64_t i = 0; i < 20000; i++)
    if (hio_read(q, t, buf, 4096, (i * 7919 % 16384) * 4096) < 0) return fail("read");

  hio_queue_stats st = {.struct_size = sizeof(st)};
  hio_adaptive_view v = {.struct_size = sizeof(v)};
  if (hio_queue_stats_get(q, &st) < 0 || hio_queue_adaptive_view_get(q, &v) < 0) return fail("stats");
  double total = 0;
  for (int m = HIO_WAIT_INTERRUPT; m <= HIO_WAIT_HYBRID; m++) total += (double)st.adaptive_ns[m];
  printf("%llu reads; adaptive now waits by %s;", (unsigned long long)st.completed, hio_wait_mode_name(v.mode));
  for (int m = HIO_WAIT_INTERRUPT; m <= HIO_WAIT_HYBRID; m++)
    printf(" %s %.0f%%", hio_wait_mode_name((hio_wait_mode)m),
           total > 0 ? 100.0 * (double)st.adaptive_ns[m] / total : 0);
  printf("\n");
  free(buf);
  hio_queue_destroy(q);
  hio_engine_destroy(e);
  return 0;
}
