// SPDX-License-Identifier: MIT
#include "workload/trace.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

namespace hio::sim {
namespace {

struct GzClose {
  void operator()(gzFile f) const { gzclose(f); }
};

}  // namespace

Trace Trace::load(const std::string& path) {
  // gzopen reads plain files as they are.
  std::unique_ptr<gzFile_s, GzClose> f(gzopen(path.c_str(), "rb"));
  if (!f) throw std::invalid_argument("cannot open trace " + path + ": " + std::strerror(errno));
  Trace t;
  t.name = path.substr(path.find_last_of('/') + 1);
  t.name = t.name.substr(0, t.name.find('.'));
  char line[256];
  int n = 0;
  bool queues = false;  // HIO_IO_TRACE's form: queue,len,gap_ns
  std::map<unsigned long, std::vector<TraceRecord>> by_queue;
  while (gzgets(f.get(), line, sizeof line)) {
    n++;
    if (n == 1) {
      queues = std::strncmp(line, "queue,len,gap_ns", 16) == 0;
      if (!queues && std::strncmp(line, "len,gap_ns", 10) != 0)
        throw std::invalid_argument(path + ":1: expected the header 'len,gap_ns' or 'queue,len,gap_ns'");
      continue;
    }
    if (line[0] == '\n' || line[0] == 0) continue;
    auto bad = [&] {
      return std::invalid_argument(path + ":" + std::to_string(n) + ": expected " +
                                   (queues ? "queue,len,gap_ns" : "len,gap_ns"));
    };
    char* p = line;
    char* end;
    unsigned long q = 0;
    if (queues) {
      q = std::strtoul(p, &end, 10);
      if (*end != ',') throw bad();
      p = end + 1;
    }
    unsigned long len = std::strtoul(p, &end, 10);
    if (*end != ',') throw bad();
    unsigned long gap = std::strtoul(end + 1, &end, 10);
    if (len == 0 || len > (1u << 30) || gap > 4'000'000'000ul)
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": a size of 1 B..1 GiB and a gap under 4 s");
    by_queue[q].push_back({uint32_t(len), uint32_t(gap)});
  }
  // Of several queues (an application's threads), the one with the most reads.
  for (auto& [q, recs] : by_queue)
    if (recs.size() > t.records.size()) t.records = std::move(recs);
  if (t.records.empty()) throw std::invalid_argument(path + ": no records");
  return t;
}

double Trace::mean_gap_ns() const {
  double s = 0;
  for (const auto& r : records) s += r.gap_ns;
  return records.empty() ? 0 : s / double(records.size());
}

}  // namespace hio::sim
