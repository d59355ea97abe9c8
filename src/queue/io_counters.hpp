// SPDX-License-Identifier: MIT
// What a queue or a handle counts of its I/O: commands submitted and
// completed, errors, bytes and latency histograms per direction, flushes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "hybridio/hio.h"
#include "queue/histogram.hpp"

namespace hio {

struct IoCounters {
  uint64_t submitted = 0, completed = 0, errors = 0, rbytes = 0, wbytes = 0, flushes = 0;
  Histogram rlat, wlat;

  void record(const hio_completion& c) {
    completed++;
    if (c.res < 0) {
      errors++;
    } else if (c.op == HIO_OP_READ) {
      rlat.add(c.lat_ns);
      rbytes += uint64_t(c.res);
    } else if (c.op == HIO_OP_WRITE) {
      wlat.add(c.lat_ns);
      wbytes += uint64_t(c.res);
    } else {
      flushes++;
    }
  }
  void reset() { *this = IoCounters{}; }
  // Fills the fields hio_queue_stats and hio_handle_stats share.
  template <class Stats>
  void fill(Stats* o) const {
    o->submitted = submitted;
    o->completed = completed;
    o->errors = errors;
    o->read_ios = rlat.count();
    o->read_bytes = rbytes;
    o->write_ios = wlat.count();
    o->write_bytes = wbytes;
    o->flush_ios = flushes;
    o->read_lat = hio_lat_summary{rlat.count(), rlat.min(), rlat.max(), rlat.mean(), rlat.stddev()};
    o->write_lat = hio_lat_summary{wlat.count(), wlat.min(), wlat.max(), wlat.mean(), wlat.stddev()};
  }
  int percentiles(int op, const double* pcts, size_t n, uint64_t* out) const {
    return Histogram::percentiles(rlat, wlat, op, pcts, n, out);
  }
};

}  // namespace hio
