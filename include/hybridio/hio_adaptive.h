/* SPDX-License-Identifier: MIT */
/* What the adaptive strategy sees and decides, for tools and research: the
 * governor's view of a queue's core, the device's latency as it measures it,
 * each mode's predicted score. Programs that only do I/O need <hybridio/hio.h>
 * alone; this view's fields may change between minor versions, and its
 * struct_size keeps older programs working as in hio.h. */
#ifndef HYBRIDIO_HIO_ADAPTIVE_H
#define HYBRIDIO_HIO_ADAPTIVE_H

#include <hybridio/hio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the adaptive strategy sees and decides, now. */
typedef struct hio_adaptive_view {
  size_t struct_size;    /* sizeof(hio_adaptive_view) as compiled */
  hio_wait_mode mode;    /* this tick's: interrupt, poll or hybrid */
  hio_wait_mode settled; /* the choice between probes */
  int probing;           /* this tick visits another mode to measure it */
  hio_objective objective;
  int cpu;                              /* the core the queue's thread waited on last */
  double contention;                    /* the level decisions follow: others_cores */
  double cpu_available;                 /* 1 - contention */
  double others_cores;                  /* CPU the other tenants used on that core, last 8 ms (our threads excluded) */
  double demand_cores;                  /* what they wanted: their use while we slept (-1: not known) */
  double idle_share;                    /* share of that time the core was idle */
  double latency_ns, latency_stddev_ns; /* device latency, last I/O size */
  uint64_t hybrid_sleep_ns;             /* a hybrid wait's sleep for a new command */
  double wake_cpu_ns, wake_late_ns;     /* one sleep's CPU cost and lateness (of its hybrid sleeps, once measured) */
  double score[HIO_ADAPTIVE_MODES_MAX]; /* predicted progress under the objective, by mode */
  uint64_t ticks, switches, probes;
  uint64_t spin_denied;                 /* ticks poll was chosen while another of our queues spun on the core */
  uint64_t monitor_samples, monitor_ns; /* the governor's sampling, process-wide, since the queue started */
  const char *monitor_source;           /* where core busy time comes from: "cpuidle", "proc_stat" or "none" */
} hio_adaptive_view;
/* -EINVAL unless the queue's strategy is ADAPTIVE. */
HIO_API int hio_queue_adaptive_view_get(hio_queue *q, hio_adaptive_view *out);

#ifdef __cplusplus
}
#endif
#endif
