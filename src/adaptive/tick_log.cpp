// SPDX-License-Identifier: MIT
#include "adaptive/tick_log.hpp"

#include "util/clock.hpp"
#include "util/env_file.hpp"

namespace hio {
namespace {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::interrupt: return "interrupt";
    case Mode::poll: return "poll";
    case Mode::hybrid: return "hybrid";
  }
  return "?";
}

}  // namespace

TickLog* TickLog::get() {
  static TickLog* log = [] {
    std::FILE* f = open_env_file("HIO_ADAPTIVE_TICKS", "tick log");
    return f ? new TickLog(f, now_ns()) : nullptr;
  }();
  return log;
}

TickLog::TickLog(std::FILE* f, uint64_t t0_ns) : f_(f), t0_(t0_ns) {
  std::fprintf(f_,
               "t_us,queue,ran,learned,level,others,others_level,idle,sleeps_per_s,completions,wall_us,wait_us,cpu_us,"
               "iops_interrupt,iops_poll,iops_hybrid,next,probe\n");
  std::fflush(f_);
}

unsigned TickLog::next_queue() { return ++queues_; }

void TickLog::write(const TickLine& l) {
  // One fprintf per line: stdio locks the stream, so lines of queues on
  // different threads do not mix. Flushed per line: a killed run keeps its log.
  std::fprintf(f_, "%.1f,%u,%s,%d,%d,%.4f,%.4f,%.3f,%.0f,%llu,%.1f,%.1f,%.1f,%.0f,%.0f,%.0f,%s,%d\n",
               double(l.now_ns > t0_ ? l.now_ns - t0_ : 0) / 1e3, l.queue, mode_name(l.ran), int(l.learned), l.level,
               l.others, l.others_level, l.idle, l.sleeps_per_s, static_cast<unsigned long long>(l.completions),
               double(l.wall_ns) / 1e3, double(l.wait_ns) / 1e3, double(l.cpu_ns) / 1e3, l.iops[0], l.iops[1],
               l.iops[2], mode_name(l.next), int(l.probe));
  std::fflush(f_);
}

}  // namespace hio
