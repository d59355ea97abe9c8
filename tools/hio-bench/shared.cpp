// SPDX-License-Identifier: MIT
#include "shared.hpp"

namespace hiobench {
namespace {

std::string backend_of(const JobOptions& o) { return hio_spec_backend(o.filename.c_str()); }

bool shares(const JobOptions& o) { return !o.high_priority && o.queue != QueueMode::Dedicated; }

}  // namespace

SharedResources::SharedResources(hio_engine* e, const std::vector<JobOptions>& jobs) {
  // Queues: as deep as the iodepths of the jobs they serve together; the
  // wait strategy of the first such job (the others must agree).
  std::map<std::string, std::pair<unsigned, const JobOptions*>> want;
  for (const auto& j : jobs) {
    if (!shares(j)) continue;
    std::vector<std::string> keys;
    if (j.queue == QueueMode::Shared)
      keys = {"shared:" + backend_of(j)};
    else
      keys = {"read:" + backend_of(j), "write:" + backend_of(j)};
    for (const auto& k : keys) {
      auto& w = want[k];
      if (w.second && w.second->completion != j.completion)
        throw UsageError("jobs '" + w.second->name + "' and '" + j.name +
                         "' share a queue (--queue=" + queue_mode_name(j.queue) + ") but not --completion");
      if (!w.second) w.second = &j;
      w.first += j.iodepth;
    }
  }
  for (const auto& [k, w] : want) {
    hio_queue_opts qo{};
    qo.struct_size = sizeof qo;
    qo.depth = std::min(4096u, w.first);
    qo.flags = HIO_QUEUE_SHARED;
    qo.strategy.mode = w.second->completion;
    qo.strategy.hybrid_sleep_ns = uint64_t(w.second->hybrid_sleep_us * 1000.0);
    hio_queue* q = nullptr;
    if (hio_queue_create(e, &qo, &q) < 0) throw UsageError("job '" + w.second->name + "': " + hio_last_error());
    queues_[k] = q;
  }
  for (const auto& j : jobs) {
    if (!j.reaper_thread || reapers_.count({j.poll_period_ns, j.reaper_cpu})) continue;
    hio_reaper_opts ro{sizeof(hio_reaper_opts), j.poll_period_ns, j.reaper_cpu};
    hio_reaper* r = nullptr;
    if (hio_reaper_create(&ro, &r) < 0)
      throw UsageError("job '" + j.name + "': " +
                       (j.reaper_cpu >= 0 ? "--reaper_cpu=" + std::to_string(j.reaper_cpu) + ": " : std::string()) +
                       hio_last_error());
    reapers_[{j.poll_period_ns, j.reaper_cpu}] = r;
  }
}

SharedResources::~SharedResources() {
  for (auto& [p, r] : reapers_) hio_reaper_destroy(r);
  for (auto& [k, q] : queues_) hio_queue_destroy(q);
}

std::pair<hio_queue*, hio_queue*> SharedResources::queues_for(const JobOptions& o) const {
  if (!shares(o)) return {nullptr, nullptr};
  if (o.queue == QueueMode::Shared) return {queues_.at("shared:" + backend_of(o)), nullptr};
  return {queues_.at("read:" + backend_of(o)), queues_.at("write:" + backend_of(o))};
}

hio_reaper* SharedResources::reaper_for(const JobOptions& o) const {
  return o.reaper_thread ? reapers_.at({o.poll_period_ns, o.reaper_cpu}) : nullptr;
}

hio_reaper_stats SharedResources::reaper_stats(const JobOptions& o) const {
  hio_reaper_stats s{};
  s.struct_size = sizeof s;
  if (hio_reaper* r = reaper_for(o)) hio_reaper_stats_get(r, &s);
  return s;
}

}  // namespace hiobench
