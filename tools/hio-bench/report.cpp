// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace hiobench {
namespace {

using nlohmann::json;

std::string pct_key(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "%f", p);
  return b;
}

json lat_json(const DirResult& d, bool with_pct) {
  json j = {{"min", d.lat.min_ns},
            {"max", d.lat.max_ns},
            {"mean", d.lat.mean_ns},
            {"stddev", d.lat.stddev_ns},
            {"N", d.lat.count}};
  if (with_pct && d.lat.count) {
    json p = json::object();
    for (const auto& [pc, ns] : d.pct) p[pct_key(pc)] = ns;
    j["percentile"] = p;
  }
  return j;
}

const char* const kModes[] = {"interrupt", "poll", "hybrid"};

json view_json(const hio_adaptive_view& v) {
  return {{"mode", hio_wait_mode_name(v.mode)},
          {"settled", hio_wait_mode_name(v.settled)},
          {"probing", bool(v.probing)},
          {"objective", hio_objective_name(v.objective)},
          {"cpu", v.cpu},
          {"contention", v.contention},
          {"cpu_available", v.cpu_available},
          {"others_cores", v.others_cores},
          {"demand_cores", v.demand_cores},
          {"idle_share", v.idle_share},
          {"latency_us", v.latency_ns / 1e3},
          {"latency_stddev_us", v.latency_stddev_ns / 1e3},
          {"hybrid_sleep_us", double(v.hybrid_sleep_ns) / 1e3},
          {"score", {{kModes[0], v.score[0]}, {kModes[1], v.score[1]}, {kModes[2], v.score[2]}}},
          {"switches", v.switches},
          {"probes", v.probes},
          {"spin_denied", v.spin_denied}};
}

// Time share per mode, switches, probes, the monitor's own cost and its
// last view.
json adaptive_json(const hio_queue_stats& q, const JobResult& r) {
  uint64_t total = q.adaptive_ns[0] + q.adaptive_ns[1] + q.adaptive_ns[2];
  json share = json::object();
  for (int i = 0; i < 3; i++) share[kModes[i]] = total ? 100.0 * double(q.adaptive_ns[i]) / double(total) : 0.0;
  json a = {{"mode_pct", share}, {"switches", q.adaptive_switches}, {"probes", q.adaptive_probes}};
  if (r.has_view) {
    const hio_adaptive_view& v = r.view;
    a["monitor"] = {{"samples", v.monitor_samples},
                    {"ns_per_sample", v.monitor_samples ? double(v.monitor_ns) / double(v.monitor_samples) : 0.0},
                    {"cpu_pct", q.wall_ns ? 100.0 * double(v.monitor_ns) / double(q.wall_ns) : 0.0},
                    {"source", v.monitor_source}};
    a["wake_cpu_us"] = v.wake_cpu_ns / 1e3;
    a["wake_late_us"] = v.wake_late_ns / 1e3;
    a["last"] = view_json(v);
  }
  return a;
}

// The handle: its queues, its lock waits, its cache and its completion thread.
json handle_json(const JobOptions& o, const JobResult& r) {
  const hio_handle_stats& hs = r.hs;
  json h = {{"queue", o.high_priority ? "dedicated" : queue_mode_name(o.queue)},
            {"priority", o.high_priority ? "high" : "normal"},
            {"queues", hs.queues},
            {"lock_wait_ns", hs.lock_wait_ns},
            {"lock_waits", hs.lock_waits},
            {"lock_wait_pct", r.runtime_ms > 0 ? double(hs.lock_wait_ns) / (r.runtime_ms * 1e4) : 0.0},
            {"reaper", o.reaper_thread ? "thread" : "self"}};
  if (o.cache_mb) {
    uint64_t looked = hs.cache_hits + hs.cache_misses;
    h["cache"] = {{"mb", o.cache_mb},
                  {"policy", o.cache_policy == HIO_CACHE_WRITE_BACK ? "writeback" : "writethrough"},
                  {"readahead", readahead_name(o.readahead)},
                  {"hits", hs.cache_hits},
                  {"misses", hs.cache_misses},
                  {"hit_ratio", looked ? double(hs.cache_hits) / double(looked) : 0.0},
                  {"readahead_ios", hs.readahead_ios},
                  {"readahead_pages", hs.readahead_pages},
                  {"evictions", r.cs.evictions},
                  {"writebacks", r.cs.writebacks},
                  {"pages", r.cs.pages}};
  }
  if (o.reaper_thread) {
    h["completion_thread"] = {
        {"poll_period_us",
         o.poll_period_ns == HIO_POLL_PERIOD_AUTO ? json("auto") : json(double(o.poll_period_ns) / 1e3)},
        {"period_us_mean", r.reaper_period_us},
        {"period_us_last", r.reaper_period_now_us},
        {"rounds", r.reaper_rounds},
        {"contention", r.reaper_contention},
        {"cpu_pct", r.reaper_cpu_pct}};
  }
  return h;
}

json timeline_json(const std::vector<TimelinePoint>& tl) {
  json arr = json::array();
  for (const TimelinePoint& p : tl) {
    json e = {{"t_ms", p.t_ms}, {"iops", p.iops}};
    if (p.adaptive) e.update(view_json(p.view));
    arr.push_back(e);
  }
  return arr;
}

json dir_json(const DirResult& d, double runtime_ms) {
  double secs = runtime_ms / 1e3;
  double bw_bytes = secs > 0 ? double(d.bytes) / secs : 0;
  double iops = secs > 0 ? double(d.ios) / secs : 0;
  json zero = {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}};
  return {{"io_bytes", d.bytes},
          {"io_kbytes", d.bytes / 1024},
          {"bw_bytes", uint64_t(bw_bytes)},
          {"bw", uint64_t(bw_bytes / 1024)},
          {"iops", iops},
          {"runtime", uint64_t(runtime_ms)},
          {"total_ios", d.ios},
          {"short_ios", 0},
          {"drop_ios", 0},
          {"slat_ns", zero},
          {"clat_ns", lat_json(d, true)},
          {"lat_ns", lat_json(d, false)}};
}

}  // namespace

std::string report_json(const std::vector<JobOptions>& jobs, const std::vector<JobResult>& results) {
  json out;
  out["fio version"] = std::string("hio-bench-") + hio_version();
  out["timestamp"] = uint64_t(std::time(nullptr));
  out["time"] = [] {
    char b[64];
    std::time_t t = std::time(nullptr);
    std::strftime(b, sizeof b, "%a %b %e %H:%M:%S %Y", std::localtime(&t));
    return std::string(b);
  }();
  out["global options"] = json::object();
  json arr = json::array();
  for (size_t i = 0; i < results.size(); i++) {
    const JobResult& r = results[i];
    const JobOptions& o = jobs[i];
    json opts = json::object();
    for (const auto& [k, v] : o.given) opts[k] = v;
    const hio_queue_stats& q = r.qs;
    double wall = double(q.wall_ns ? q.wall_ns : 1);
    double pacing_us = q.completed ? double(r.pacing_cpu_ns) / 1e3 / double(q.completed) : 0;
    json h = {{"strategy", hio_wait_mode_name(o.completion)},
              {"backend", r.backend},
              {"target", r.target},
              {"emulated", r.emulated},
              {"cpu_us_per_io", q.cpu_us_per_io},
              {"pacing_cpu_us_per_io", pacing_us},
              {"waiting_cpu_us_per_io", std::max(0.0, q.cpu_us_per_io - pacing_us)},
              {"sleep_ns", q.sleep_ns},
              {"spin_ns", q.spin_ns},
              {"sleep_pct", 100.0 * double(q.sleep_ns) / wall},
              {"spin_pct", 100.0 * double(q.spin_ns) / wall},
              {"waits", q.waits},
              {"mode_changes", q.mode_changes},
              {"hybrid_sleep_us", o.hybrid_sleep_us},
              {"emulate", o.emulate}};
    if (o.completion == HIO_WAIT_ADAPTIVE) h["adaptive"] = adaptive_json(q, r);
    h["handle"] = handle_json(o, r);
    if (o.adaptive_log_ns) h["timeline"] = timeline_json(r.timeline);
    h["start_unix_ms"] = r.start_unix_ms;
    if (o.verify) h["verify"] = {{"blocks_verified", r.verified}, {"mismatches", r.mismatches}};
    if (r.error) h["error_message"] = r.error_msg;
    arr.push_back({{"jobname", r.name},
                   {"groupid", 0},
                   {"error", r.error},
                   {"eta", 0},
                   {"elapsed", uint64_t(std::llround(r.runtime_ms / 1e3))},
                   {"job options", opts},
                   {"read", dir_json(r.read, r.runtime_ms)},
                   {"write", dir_json(r.write, r.runtime_ms)},
                   {"trim", dir_json(DirResult{}, r.runtime_ms)},
                   {"job_runtime", uint64_t(r.runtime_ms)},
                   {"usr_cpu", r.usr_pct},
                   {"sys_cpu", r.sys_pct},
                   {"ctx", r.ctx},
                   {"majf", r.majf},
                   {"minf", r.minf},
                   {"hybridio", h}});
  }
  out["jobs"] = arr;
  return out.dump(2) + "\n";
}

namespace {

std::string human(double v) {
  char b[32];
  if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
  else
    std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

void dir_text(std::string& s, const char* name, const DirResult& d, double runtime_ms) {
  if (d.ios == 0) return;
  char b[512];
  double secs = runtime_ms / 1e3;
  double mib = double(d.bytes) / secs / 1048576.0;
  std::snprintf(b, sizeof b, "  %s: IOPS=%s, BW=%.1fMiB/s (%.1fMB/s)(%.0fMiB/%.0fmsec)\n", name,
                human(double(d.ios) / secs).c_str(), mib, double(d.bytes) / secs / 1e6, double(d.bytes) / 1048576.0,
                runtime_ms);
  s += b;
  std::snprintf(b, sizeof b, "    clat (usec): min=%.2f, max=%.2f, avg=%.2f, stdev=%.2f\n", double(d.lat.min_ns) / 1e3,
                double(d.lat.max_ns) / 1e3, d.lat.mean_ns / 1e3, d.lat.stddev_ns / 1e3);
  s += b;
  s += "     clat percentiles (usec):\n";
  for (size_t i = 0; i < d.pct.size(); i++) {
    if (i % 4 == 0) s += "     |";
    std::snprintf(b, sizeof b, " %6.2fth=[%.1f]%s", d.pct[i].first, double(d.pct[i].second) / 1e3,
                  i + 1 == d.pct.size() ? "\n" : (i % 4 == 3 ? ",\n" : ","));
    s += b;
  }
}

}  // namespace

std::string report_normal(const std::vector<JobOptions>& jobs, const std::vector<JobResult>& results) {
  std::string s;
  char b[512];
  for (size_t i = 0; i < results.size(); i++) {
    const JobResult& r = results[i];
    const JobOptions& o = jobs[i];
    std::snprintf(b, sizeof b, "%s: (rw=%s, bs=%u, iodepth=%u, completion=%s): err=%2d\n", r.name.c_str(),
                  rw_name(o.rw), o.bs, o.iodepth, hio_wait_mode_name(o.completion), r.error);
    s += b;
    std::string timing = o.emulate.empty() ? "" : ", emulated timing " + o.emulate;
    std::snprintf(b, sizeof b, "  target: %s (%s%s%s)\n", r.target.c_str(), r.backend.c_str(),
                  r.emulated ? ", emulated SSD" : "", timing.c_str());
    s += b;
    dir_text(s, "read", r.read, r.runtime_ms);
    dir_text(s, "write", r.write, r.runtime_ms);
    std::snprintf(b, sizeof b, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n", r.usr_pct,
                  r.sys_pct, (unsigned long long)r.ctx, (unsigned long long)r.majf, (unsigned long long)r.minf);
    s += b;
    double wall = double(r.qs.wall_ns ? r.qs.wall_ns : 1);
    std::snprintf(b, sizeof b,
                  "  hybridio     : cpu/io=%.2fus, asleep=%.1f%%, spinning=%.1f%%, waits=%llu, mode changes=%llu\n",
                  r.qs.cpu_us_per_io, 100.0 * double(r.qs.sleep_ns) / wall, 100.0 * double(r.qs.spin_ns) / wall,
                  (unsigned long long)r.qs.waits, (unsigned long long)r.qs.mode_changes);
    s += b;
    if (o.verify) {
      std::snprintf(b, sizeof b, "  verify       : %llu blocks checked, %llu mismatches\n",
                    (unsigned long long)r.verified, (unsigned long long)r.mismatches);
      s += b;
    }
    if (r.error) s += "  error        : " + r.error_msg + "\n";
  }
  return s;
}

}  // namespace hiobench
