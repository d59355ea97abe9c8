/* SPDX-License-Identifier: MIT */
/* hybridio's own figures for a fio job: a line at the job's end beside
 * fio's report, and a JSON object for tools. */
#ifndef HYBRIDIO_FIO_REPORT_H
#define HYBRIDIO_FIO_REPORT_H

#include <stddef.h>

#include <hybridio/hio_adaptive.h>

struct hio_fio_figures {
  hio_strategy strategy;
  unsigned queues;
  hio_queue_stats total; /* summed over the job's queues; CPU and wall time are the job thread's */
  int have_view;         /* adaptive: what its first queue saw last */
  hio_adaptive_view view;
};

/* Adds one of the job's queues. */
void hio_fio_figures_add(struct hio_fio_figures *f, hio_queue *q);

/* One line, without a newline. */
void hio_fio_report_line(const char *job, const struct hio_fio_figures *f, char *buf, size_t len);

/* Appends one JSON object and a newline to path; 0 or -errno. */
int hio_fio_report_json(const char *path, const char *job, const struct hio_fio_figures *f);

#endif
