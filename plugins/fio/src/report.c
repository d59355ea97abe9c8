/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void hio_fio_figures_add(struct hio_fio_figures *f, hio_queue *q) {
  hio_queue_stats s = {.struct_size = sizeof(s)};
  if (hio_queue_stats_get(q, &s) < 0) return;
  hio_queue_stats *t = &f->total;
  if (f->queues++ == 0) {
    hio_strategy_init(&f->strategy, sizeof(f->strategy));
    hio_queue_strategy_get(q, &f->strategy);
  }
  t->submitted += s.submitted;
  t->completed += s.completed;
  t->errors += s.errors;
  t->read_ios += s.read_ios;
  t->read_bytes += s.read_bytes;
  t->write_ios += s.write_ios;
  t->write_bytes += s.write_bytes;
  t->flush_ios += s.flush_ios;
  t->sleep_ns += s.sleep_ns;
  t->spin_ns += s.spin_ns;
  t->waits += s.waits;
  t->mode_changes += s.mode_changes;
  /* The job's queues share its thread: its time is counted once. */
  if (s.wall_ns > t->wall_ns) t->wall_ns = s.wall_ns;
  if (s.cpu_ns > t->cpu_ns) t->cpu_ns = s.cpu_ns;
  t->cpu_us_per_io = t->completed ? (double)t->cpu_ns / 1e3 / (double)t->completed : 0;
  for (int m = 0; m < 3; m++) t->adaptive_ns[m] += s.adaptive_ns[m];
  t->adaptive_switches += s.adaptive_switches;
  t->adaptive_probes += s.adaptive_probes;
  f->view.struct_size = sizeof(f->view);
  if (!f->have_view && hio_queue_adaptive_view_get(q, &f->view) == 0) f->have_view = 1;
}

static double mode_pct(const struct hio_fio_figures *f, int m) {
  const uint64_t *a = f->total.adaptive_ns;
  uint64_t sum = a[0] + a[1] + a[2];
  return sum ? 100.0 * (double)a[m] / (double)sum : 0;
}

static const char *strategy_name(const struct hio_fio_figures *f, char *buf, size_t len) {
  if (f->strategy.mode == HIO_WAIT_ADAPTIVE)
    snprintf(buf, len, "adaptive (objective %s)", hio_objective_name(f->strategy.objective));
  else
    snprintf(buf, len, "%s", hio_wait_mode_name(f->strategy.mode));
  return buf;
}

void hio_fio_report_line(const char *job, const struct hio_fio_figures *f, char *buf, size_t len) {
  const hio_queue_stats *t = &f->total;
  char name[64];
  int n = snprintf(buf, len, "hybridio %s: %s, %llu I/Os, CPU %.2f us/IO, slept %.1f ms, spun %.1f ms", job,
                   strategy_name(f, name, sizeof(name)), (unsigned long long)t->completed, t->cpu_us_per_io,
                   (double)t->sleep_ns / 1e6, (double)t->spin_ns / 1e6);
  if (n < 0 || (size_t)n >= len || f->strategy.mode != HIO_WAIT_ADAPTIVE) return;
  snprintf(buf + n, len - (size_t)n,
           "; interrupt %.1f%% poll %.1f%% hybrid %.1f%%, %llu switches, %llu probes, others on core %d %.2f",
           mode_pct(f, HIO_WAIT_INTERRUPT), mode_pct(f, HIO_WAIT_POLL), mode_pct(f, HIO_WAIT_HYBRID),
           (unsigned long long)t->adaptive_switches, (unsigned long long)t->adaptive_probes,
           f->have_view ? f->view.cpu : -1, f->have_view ? f->view.others_cores : 0.0);
}

/* A job name as a JSON string's contents. */
static void json_escape(const char *s, char *out, size_t len) {
  size_t k = 0;
  for (; *s && k + 7 < len; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[k++] = '\\';
      out[k++] = (char)c;
    } else if (c < 0x20) {
      k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
    } else {
      out[k++] = (char)c;
    }
  }
  out[k] = '\0';
}

int hio_fio_report_json(const char *path, const char *job, const struct hio_fio_figures *f) {
  const hio_queue_stats *t = &f->total;
  char name[256], line[2048];
  json_escape(job, name, sizeof(name));
  int n = snprintf(line, sizeof(line),
                   "{\"job\": \"%s\", \"completion\": \"%s\", \"objective\": \"%s\", \"queues\": %u, "
                   "\"ios\": %llu, \"errors\": %llu, \"read_ios\": %llu, \"write_ios\": %llu, \"flush_ios\": %llu, "
                   "\"wall_ns\": %llu, \"cpu_ns\": %llu, \"cpu_us_per_io\": %.4f, \"sleep_ns\": %llu, "
                   "\"spin_ns\": %llu, \"waits\": %llu",
                   name, hio_wait_mode_name(f->strategy.mode), hio_objective_name(f->strategy.objective), f->queues,
                   (unsigned long long)t->completed, (unsigned long long)t->errors, (unsigned long long)t->read_ios,
                   (unsigned long long)t->write_ios, (unsigned long long)t->flush_ios, (unsigned long long)t->wall_ns,
                   (unsigned long long)t->cpu_ns, t->cpu_us_per_io, (unsigned long long)t->sleep_ns,
                   (unsigned long long)t->spin_ns, (unsigned long long)t->waits);
  if (f->strategy.mode == HIO_WAIT_ADAPTIVE && f->have_view) {
    const hio_adaptive_view *v = &f->view;
    n += snprintf(line + n, sizeof(line) - (size_t)n,
                  ", \"adaptive\": {\"mode_pct\": {\"interrupt\": %.3f, \"poll\": %.3f, \"hybrid\": %.3f}, "
                  "\"switches\": %llu, \"probes\": %llu, \"mode\": \"%s\", \"settled\": \"%s\", \"cpu\": %d, "
                  "\"others_cores\": %.4f, \"demand_cores\": %.4f, \"idle_share\": %.4f, \"latency_ns\": %.0f, "
                  "\"wake_cpu_ns\": %.0f, \"ticks\": %llu, \"monitor\": {\"samples\": %llu, \"ns\": %llu, "
                  "\"source\": \"%s\"}}",
                  mode_pct(f, HIO_WAIT_INTERRUPT), mode_pct(f, HIO_WAIT_POLL), mode_pct(f, HIO_WAIT_HYBRID),
                  (unsigned long long)t->adaptive_switches, (unsigned long long)t->adaptive_probes,
                  hio_wait_mode_name(v->mode), hio_wait_mode_name(v->settled), v->cpu, v->others_cores, v->demand_cores,
                  v->idle_share, v->latency_ns, v->wake_cpu_ns, (unsigned long long)v->ticks,
                  (unsigned long long)v->monitor_samples, (unsigned long long)v->monitor_ns, v->monitor_source);
  }
  if (n < 0 || (size_t)n + 3 > sizeof(line)) return -ENAMETOOLONG;
  n += snprintf(line + n, sizeof(line) - (size_t)n, "}\n");
  /* Jobs run as processes of their own: one write each keeps lines whole. */
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  ssize_t w = write(fd, line, (size_t)n);
  int err = w == n ? 0 : (w < 0 ? -errno : -EIO);
  if (close(fd) < 0 && !err) err = -errno;
  return err;
}
