// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "util/parse.hpp"

namespace hiobench {
namespace {

using Setter = std::function<void(JobOptions&, const std::string&)>;

[[noreturn]] void invalid(const std::string& key, const std::string& v, const std::string& why) {
  throw UsageError("invalid value '" + v + "' for --" + key + ": " + why);
}

uint64_t size_value(const std::string& key, const std::string& v, uint64_t lo, uint64_t hi) {
  uint64_t u = 0;
  if (!hio::parse_size(v, &u)) invalid(key, v, "expected a size such as 4096, 4k, 1m or 1g");
  if (u < lo || u > hi) invalid(key, v, "must be from " + std::to_string(lo) + " to " + std::to_string(hi) + " bytes");
  return u;
}

long long int_value(const std::string& key, const std::string& v, long long lo, long long hi) {
  long long x = 0;
  if (!hio::parse_int(v, &x) || x < lo || x > hi)
    invalid(key, v, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return x;
}

bool bool_value(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  invalid(key, v, "expected 0 or 1");
}

// fio time values: seconds by default, or with a unit (us, ms, s, m, h).
double seconds_value(const std::string& key, const std::string& v) {
  static const std::pair<const char*, double> units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
  for (const auto& [suf, mult] : units) {
    std::string s(suf);
    if (v.size() > s.size() && v.compare(v.size() - s.size(), s.size(), s) == 0) {
      double d;
      if (hio::parse_double(v.substr(0, v.size() - s.size()), &d) && d >= 0) return d * mult;
      invalid(key, v, "expected a time such as 10, 10s, 500ms or 2m");
    }
  }
  double d;
  if (!hio::parse_double(v, &d) || d < 0) invalid(key, v, "expected a time such as 10, 10s, 500ms or 2m");
  return d;
}

std::vector<int> cpu_list(const std::string& key, const std::string& v) {
  std::vector<int> out;
  std::stringstream ss(v);
  std::string part;
  while (std::getline(ss, part, ',')) {
    size_t dash = part.find('-');
    long long a, b;
    if (dash == std::string::npos) {
      a = b = int_value(key, part.empty() ? v : part, 0, 1023);
    } else {
      a = int_value(key, part.substr(0, dash), 0, 1023);
      b = int_value(key, part.substr(dash + 1), 0, 1023);
    }
    if (a > b) invalid(key, v, "range " + part + " is reversed");
    for (long long c = a; c <= b; c++) out.push_back(int(c));
  }
  if (out.empty()) invalid(key, v, "expected CPUs such as 0, 0-1 or 0,2");
  return out;
}

// What each job does: its file, the I/O it issues and for how long.
std::map<std::string, Setter> job_options() {
  return {
      {"name", [](JobOptions& o, const std::string& v) { o.name = v; }},
      {"filename",
       [](JobOptions& o, const std::string& v) {
         if (v.empty()) invalid("filename", v, "must not be empty");
         o.filename = v;
       }},
      {"size", [](JobOptions& o, const std::string& v) { o.size = size_value("size", v, 1, UINT64_MAX >> 1); }},
      {"rw",
       [](JobOptions& o, const std::string& v) {
         static const std::map<std::string, Rw> m = {{"read", Rw::Read},         {"write", Rw::Write},
                                                     {"randread", Rw::RandRead}, {"randwrite", Rw::RandWrite},
                                                     {"rw", Rw::ReadWrite},      {"readwrite", Rw::ReadWrite},
                                                     {"randrw", Rw::RandRw}};
         auto it = m.find(v);
         if (it == m.end()) invalid("rw", v, "expected read, write, randread, randwrite, rw or randrw");
         o.rw = it->second;
       }},
      {"rwmixread",
       [](JobOptions& o, const std::string& v) { o.rwmixread = unsigned(int_value("rwmixread", v, 0, 100)); }},
      {"bs", [](JobOptions& o, const std::string& v) { o.bs = uint32_t(size_value("bs", v, 1, 64ull << 20)); }},
      {"iodepth", [](JobOptions& o, const std::string& v) { o.iodepth = unsigned(int_value("iodepth", v, 1, 4096)); }},
      {"numjobs", [](JobOptions& o, const std::string& v) { o.numjobs = unsigned(int_value("numjobs", v, 1, 256)); }},
      {"runtime", [](JobOptions& o, const std::string& v) { o.runtime_s = seconds_value("runtime", v); }},
      {"time_based", [](JobOptions& o, const std::string& v) { o.time_based = bool_value("time_based", v); }},
      {"norandommap", [](JobOptions& o, const std::string& v) { o.norandommap = bool_value("norandommap", v); }},
      {"ramp_time", [](JobOptions& o, const std::string& v) { o.ramp_time_s = seconds_value("ramp_time", v); }},
      {"direct", [](JobOptions& o, const std::string& v) { o.direct = bool_value("direct", v); }},
      {"cpus_allowed", [](JobOptions& o, const std::string& v) { o.cpus = cpu_list("cpus_allowed", v); }},
      {"rate_iops",
       [](JobOptions& o, const std::string& v) { o.rate_iops = uint64_t(int_value("rate_iops", v, 0, 100000000)); }},
      {"verify",
       [](JobOptions& o, const std::string& v) {
         if (v == "crc32c")
           o.verify = true;
         else if (v == "0" || v == "none")
           o.verify = false;
         else
           invalid("verify", v, "expected crc32c or none");
       }},
  };
}

// How a job waits for its completions, and who reaps them.
std::map<std::string, Setter> wait_options() {
  return {
      {"completion",
       [](JobOptions& o, const std::string& v) {
         hio_wait_mode m;
         if (hio_wait_mode_parse(v.c_str(), &m) < 0)
           invalid("completion", v, "expected interrupt, poll, hybrid, iopoll, hybrid_iopoll, sqpoll or adaptive");
         o.completion = m;
       }},
      {"adaptive_log",
       [](JobOptions& o, const std::string& v) {
         // A bare --adaptive_log (value "1") keeps its old meaning: every 100 ms.
         if (v == "1")
           o.adaptive_log_ns = 100'000'000;
         else if (v == "0")
           o.adaptive_log_ns = 0;
         else {
           double s = seconds_value("adaptive_log", v);
           if (s < 1e-3 || s > 10) invalid("adaptive_log", v, "expected an interval from 1ms to 10s, or 0 for none");
           o.adaptive_log_ns = uint64_t(std::llround(s * 1e9));
         }
       }},
      {"adaptive_objective",
       [](JobOptions& o, const std::string& v) {
         if (hio_objective_parse(v.c_str(), &o.objective) < 0)
           invalid("adaptive_objective", v, "expected shared or own");
       }},
      {"hybrid_sleep_us",
       [](JobOptions& o, const std::string& v) {
         double d;
         if (!hio::parse_double(v, &d) || d < 0 || d > 1e6)
           invalid("hybrid_sleep_us", v, "expected microseconds from 0 (auto: half the mean latency) to 1000000");
         o.hybrid_sleep_us = d;
       }},
      {"reaper",
       [](JobOptions& o, const std::string& v) {
         if (v == "self")
           o.reaper_thread = false;
         else if (v == "thread")
           o.reaper_thread = true;
         else
           invalid("reaper", v, "expected self or thread");
       }},
      {"poll_period_us",
       [](JobOptions& o, const std::string& v) {
         if (v == "auto") {
           o.poll_period_ns = HIO_POLL_PERIOD_AUTO;
           return;
         }
         double d;
         if (!hio::parse_double(v, &d) || d < 0 || d > 1e6)
           invalid("poll_period_us", v, "expected auto or microseconds from 0 (spin) to 1000000");
         o.poll_period_ns = uint64_t(d * 1000.0);
       }},
      {"reaper_cpu",
       [](JobOptions& o, const std::string& v) { o.reaper_cpu = int(int_value("reaper_cpu", v, 0, 1023)); }},
  };
}

// The device and handle a job opens: emulation, queues and the block cache.
std::map<std::string, Setter> handle_options() {
  return {
      {"emulate",
       [](JobOptions& o, const std::string& v) {
         // Checked here, so that a bad spec stops before any job starts.
         hio_engine* e = nullptr;
         if (hio_engine_create(&e) < 0) throw UsageError(hio_last_error());
         int r = hio_engine_emulate(e, v.c_str());
         std::string why = r < 0 ? hio_last_error() : "";
         hio_engine_destroy(e);
         if (v.empty()) invalid("emulate", v, "expected an emulated device, e.g. pcie4 or lat_us=10,iops=400000");
         if (r < 0) invalid("emulate", v, why);
         o.emulate = v;
       }},
      {"queue",
       [](JobOptions& o, const std::string& v) {
         if (v == "dedicated")
           o.queue = QueueMode::Dedicated;
         else if (v == "shared")
           o.queue = QueueMode::Shared;
         else if (v == "split_rw")
           o.queue = QueueMode::SplitRw;
         else
           invalid("queue", v, "expected dedicated, shared or split_rw");
       }},
      {"handle_priority",
       [](JobOptions& o, const std::string& v) {
         if (v == "high")
           o.high_priority = true;
         else if (v == "normal")
           o.high_priority = false;
         else
           invalid("handle_priority", v, "expected high or normal");
       }},
      {"cache_mb",
       [](JobOptions& o, const std::string& v) { o.cache_mb = uint64_t(int_value("cache_mb", v, 0, 1 << 20)); }},
      {"cache_policy",
       [](JobOptions& o, const std::string& v) {
         if (v == "writethrough")
           o.cache_policy = HIO_CACHE_WRITE_THROUGH;
         else if (v == "writeback")
           o.cache_policy = HIO_CACHE_WRITE_BACK;
         else
           invalid("cache_policy", v, "expected writethrough or writeback");
       }},
      {"readahead",
       [](JobOptions& o, const std::string& v) {
         if (v == "auto")
           o.readahead = HIO_READAHEAD_AUTO;
         else if (v == "off")
           o.readahead = HIO_READAHEAD_OFF;
         else if (v == "on")
           o.readahead = HIO_READAHEAD_ON;
         else
           invalid("readahead", v, "expected auto, off or on");
       }},
  };
}

const std::map<std::string, Setter>& table() {
  static const std::map<std::string, Setter> t = [] {
    std::map<std::string, Setter> all;
    for (auto group : {job_options, wait_options, handle_options}) all.merge(group());
    return all;
  }();
  return t;
}

// Options that take no value when written bare.
bool is_flag(const std::string& k) { return k == "time_based" || k == "adaptive_log" || k == "norandommap"; }

void apply(JobOptions& o, std::string key, const std::string& value, const std::string& where) {
  if (key == "readwrite") key = "rw";
  auto it = table().find(key);
  if (it == table().end())
    throw UsageError(where + "unknown option '" + (where.empty() ? "--" : "") + key +
                     "' (see hio-bench --help for the supported options)");
  try {
    it->second(o, value);
  } catch (const UsageError& e) {
    throw UsageError(where + e.what());
  }
  o.given[key] = value;
}

// A job file: [global] and job sections of key=value lines, as fio's.
void read_job_file(const std::string& path, std::vector<JobOptions>& jobs) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot open job file '" + path + "'");
  JobOptions global;
  JobOptions* cur = nullptr;
  bool in_global = false;
  std::vector<JobOptions> mine;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos || line[a] == '#' || line[a] == ';') continue;
    size_t b = line.find_last_not_of(" \t\r");
    line = line.substr(a, b - a + 1);
    std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) throw UsageError(where + "malformed section header '" + line + "'");
      std::string sec = line.substr(1, line.size() - 2);
      in_global = sec == "global";
      if (!in_global) {
        mine.push_back(global);
        mine.back().name = sec;
        cur = &mine.back();
      }
      continue;
    }
    if (!in_global && !cur) throw UsageError(where + "option outside a section: '" + line + "'");
    size_t eq = line.find('=');
    std::string k = line.substr(0, eq), v;
    k = k.substr(0, k.find_last_not_of(" \t") + 1);
    if (eq == std::string::npos) {
      if (!is_flag(k) && table().count(k)) throw UsageError(where + "option '" + k + "' needs a value");
      v = "1";
    } else {
      size_t vs = line.find_first_not_of(" \t", eq + 1);
      v = vs == std::string::npos ? "" : line.substr(vs);
    }
    // Each job copies [global] when its section starts, so a later [global]
    // applies to the jobs after it only, as in fio.
    apply(in_global ? global : *cur, k, v, where);
  }
  if (mine.empty()) throw UsageError("job file '" + path + "' defines no job");
  for (auto& j : mine) jobs.push_back(j);
}

void check(const JobOptions& o) {
  if (o.filename.empty())
    throw UsageError("job '" + o.name + "': no --filename (a file, a block device or emu:PROFILE)");
  if (o.time_based && o.runtime_s <= 0) throw UsageError("job '" + o.name + "': --time_based needs --runtime");
  if (o.size && o.size < o.bs)
    throw UsageError("job '" + o.name + "': --size=" + std::to_string(o.size) +
                     " is smaller than --bs=" + std::to_string(o.bs));
  if (o.verify && o.bs < 32)
    throw UsageError("job '" + o.name + "': --verify=crc32c needs --bs of at least 32 bytes (its header)");
  auto given = [&](const char* k) { return o.given.count(k) > 0; };
  if (!o.cache_mb && (given("cache_policy") || given("readahead")))
    throw UsageError("job '" + o.name + "': --" + (given("readahead") ? "readahead" : "cache_policy") +
                     " applies with a block cache only (give --cache_mb)");
  if (o.cache_mb && o.bs % 4096)
    throw UsageError("job '" + o.name + "': --cache_mb needs --bs in whole 4096-byte pages (got " +
                     std::to_string(o.bs) + ")");
  for (const char* k : {"poll_period_us", "reaper_cpu"})
    if (!o.reaper_thread && given(k))
      throw UsageError("job '" + o.name + "': --" + k + " applies to --reaper=thread only");
  if (!o.emulate.empty() && o.filename.rfind("emu:", 0) == 0)
    throw UsageError("job '" + o.name + "': --emulate gives a file an emulated SSD's timing; " + o.filename +
                     " is an emulated SSD already (give a file, or drop --emulate)");
  if (o.objective != HIO_OBJECTIVE_SHARED && o.completion != HIO_WAIT_ADAPTIVE)
    throw UsageError("job '" + o.name + "': --adaptive_objective applies to --completion=adaptive only");
  if (o.hybrid_sleep_us > 0 && o.completion != HIO_WAIT_HYBRID)
    throw UsageError("job '" + o.name + "': --hybrid_sleep_us applies to --completion=hybrid only");
}

using OptionList = std::vector<std::pair<std::string, std::string>>;

// The arguments that ask for something other than running jobs.
bool set_action(const std::string& a, Invocation& inv) {
  if (a == "--help" || a == "-h")
    inv.help = true;
  else if (a == "--version")
    inv.version = true;
  else if (a == "--list-strategies")
    inv.list_strategies = true;
  else
    return false;
  return true;
}

// The options of hio-bench's output rather than of a job.
bool set_output(const std::string& k, const std::string& v, Invocation& inv) {
  if (k == "output-format") {
    if (v != "normal" && v != "json") invalid(k, v, "expected normal or json");
    inv.output_format = v;
  } else if (k == "output") {
    if (v.empty()) invalid(k, v, "expected a file name");
    inv.output = v;
  } else {
    return false;
  }
  return true;
}

// The job files' jobs, then the command line's. Command-line options before
// the first --name apply to every job, the job files' included; with no job
// named, they make one.
std::vector<JobOptions> gather_jobs(std::vector<JobOptions>& file_jobs, const std::vector<JobOptions>& cli_jobs,
                                    const OptionList& cli_global) {
  for (auto& j : file_jobs)
    for (auto& [gk, gv] : cli_global) apply(j, gk, gv, "");
  std::vector<JobOptions> all = file_jobs;
  all.insert(all.end(), cli_jobs.begin(), cli_jobs.end());
  if (all.empty()) {
    if (cli_global.empty()) throw UsageError("no job given (see hio-bench --help)");
    JobOptions j;
    j.name = "hio-bench";
    for (auto& [gk, gv] : cli_global) apply(j, gk, gv, "");
    all.push_back(j);
  }
  return all;
}

// Each job checked, and repeated numjobs times into inv.
void add_jobs(const std::vector<JobOptions>& all, Invocation& inv) {
  for (auto& j : all) {
    check(j);
    if (j.emulate != all.front().emulate) {
      auto said = [](const JobOptions& x) {
        return x.emulate.empty() ? std::string("no --emulate") : "--emulate=" + x.emulate;
      };
      throw UsageError("job '" + j.name + "' has " + said(j) + ", job '" + all.front().name + "' " + said(all.front()) +
                       ": one emulated device serves every job (give all the same --emulate)");
    }
    for (unsigned c = 0; c < j.numjobs; c++) inv.jobs.push_back(j);
  }
}

}  // namespace

Invocation parse_invocation(int argc, char** argv) {
  Invocation inv;
  OptionList cli_global;
  std::vector<JobOptions> cli_jobs, file_jobs;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (set_action(a, inv)) continue;
    if (a.rfind("--", 0) != 0) {
      if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' (see hio-bench --help)");
      read_job_file(a, file_jobs);
      continue;
    }
    size_t eq = a.find('=');
    std::string k = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string v = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (set_output(k, v, inv)) continue;
    if (eq == std::string::npos) {
      if (!is_flag(k)) {
        if (table().count(k)) throw UsageError("option --" + k + " needs a value (--" + k + "=VALUE)");
        throw UsageError("unknown option '--" + k + "' (see hio-bench --help)");
      }
      v = "1";
    }
    if (k == "name") {
      JobOptions j;
      for (auto& [gk, gv] : cli_global) apply(j, gk, gv, "");
      cli_jobs.push_back(j);
    }
    if (cli_jobs.empty()) {
      JobOptions probe;  // checks the value now, so the error names it
      apply(probe, k, v, "");
      cli_global.emplace_back(k, v);
    } else {
      apply(cli_jobs.back(), k, v, "");
    }
  }
  if (inv.help || inv.version || inv.list_strategies) return inv;
  add_jobs(gather_jobs(file_jobs, cli_jobs, cli_global), inv);
  return inv;
}

bool rw_reads(Rw rw) { return rw == Rw::Read || rw == Rw::RandRead || rw == Rw::ReadWrite || rw == Rw::RandRw; }
bool rw_writes(Rw rw) { return rw == Rw::Write || rw == Rw::RandWrite || rw == Rw::ReadWrite || rw == Rw::RandRw; }
bool rw_random(Rw rw) { return rw == Rw::RandRead || rw == Rw::RandWrite || rw == Rw::RandRw; }
const char* rw_name(Rw rw) {
  switch (rw) {
    case Rw::Read: return "read";
    case Rw::Write: return "write";
    case Rw::RandRead: return "randread";
    case Rw::RandWrite: return "randwrite";
    case Rw::ReadWrite: return "rw";
    case Rw::RandRw: return "randrw";
  }
  return "?";
}

const char* queue_mode_name(QueueMode m) {
  switch (m) {
    case QueueMode::Dedicated: return "dedicated";
    case QueueMode::Shared: return "shared";
    case QueueMode::SplitRw: return "split_rw";
  }
  return "?";
}

const char* readahead_name(hio_readahead r) {
  switch (r) {
    case HIO_READAHEAD_AUTO: return "auto";
    case HIO_READAHEAD_OFF: return "off";
    case HIO_READAHEAD_ON: return "on";
  }
  return "?";
}

const char* usage_text() {
  return R"(usage: hio-bench [OPTIONS] [JOBFILE...]

A fio-compatible benchmark on the hybridio engine. Options take fio's names
and --key=value form; options before the first --name apply to every job,
each --name starts a job. Job files hold [global] and job sections of
key=value lines.

Job options:
  --name=NAME            start a job
  --filename=TARGET      a file, a block device, or an emulated SSD:
                         emu:pcie3 | emu:pcie4 | emu:optane | emu:nand
                         [,lat_us=N,iops=N,channels=N,size=N,...] (docs/emulated-ssd.md)
  --emulate=SPEC         give a file target an emulated SSD's timing (SPEC as
                         after emu:, e.g. pcie4): the I/O is done on the file and
                         each completion held until that SSD would have finished
                         it; one device serves every job (the same SPEC for all)
  --size=SIZE            bytes to cover (4k, 1m, 1g; default: the target's size);
                         a missing file is created and laid out at this size
  --rw=MODE              read, write, randread, randwrite, rw, randrw (default read)
  --rwmixread=PCT        share of reads in rw/randrw (default 50)
  --bs=SIZE              block size (default 4k)
  --iodepth=N            commands in flight per job (default 1)
  --numjobs=N            copies of the job, each with its own thread and queue
  --runtime=TIME         stop after TIME (10, 10s, 500ms, 2m)
  --time_based           keep going over the range until --runtime
  --norandommap          random offsets drawn independently (blocks repeat within
                         a pass), instead of each block once per pass
  --ramp_time=TIME       run this long before measuring
  --direct=0|1           O_DIRECT (default 0)
  --cpus_allowed=LIST    pin the job's thread to these CPUs (0-1, 0,2)
  --rate_iops=N          cap the job at N I/O per second (0: no cap)
  --verify=crc32c|none   write blocks with a crc32c header and check them on read
                         (written blocks are read back after the run)
  --completion=MODE      how to wait for completions: interrupt (default), poll,
                         hybrid, iopoll, hybrid_iopoll, sqpoll (docs/strategies.md),
                         adaptive (docs/adaptive.md)
  --adaptive_log[=TIME]  add a timeline to the JSON: every TIME (1ms to 10s;
                         bare: 100ms), the IOPS and (adaptive) the mode and the
                         other tenants it saw on its core
  --adaptive_objective=shared|own
                         adaptive: what to maximise beside other tenants:
                         shared (default), both tenants' combined progress;
                         own, this job's throughput (alone: always polls)
  --hybrid_sleep_us=N    hybrid: sleep N us before polling (default: half the
                         moving-average latency)

Handle options (docs/handles.md): each job opens its target through a handle.
  --queue=MODE           dedicated (default): a queue of the job's own; shared:
                         one locked queue for every such job; split_rw: one
                         queue for their reads, another for their writes
  --handle_priority=high|normal
                         high: a queue of the job's own whatever --queue says,
                         reaped first by a completion thread
  --cache_mb=N           a block cache of N MiB for the job (0: none; --bs in
                         whole 4 KiB pages)
  --cache_policy=writethrough|writeback
                         writeback: writes complete in the cache, flushed at
                         the end of the job
  --readahead=auto|off|on
                         with a cache: auto reads ahead on sequential streams
  --reaper=self|thread   thread: a completion thread reaps the job's queues
                         (one thread per poll period, shared by such jobs)
  --poll_period_us=auto|N
                         the completion thread's period between reaps (0: spin;
                         auto: tuned to the I/O size, latency and contention)
  --reaper_cpu=N         pin the completion thread to CPU N (default: any)

Global options:
  --output-format=normal|json   json has fio's layout plus a "hybridio" key per job
  --output=FILE                 write the report to FILE
  --list-strategies             print the wait strategies, one a line
  --help, --version

Exit status: 0 success, 1 an I/O error or verify mismatch, 2 bad input.
)";
}

}  // namespace hiobench
