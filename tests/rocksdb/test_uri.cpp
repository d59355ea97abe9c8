// SPDX-License-Identifier: MIT
// The URI: defaults, every key, and a message naming each bad key or value.
#include <gtest/gtest.h>

#include "config.hpp"

using hybridio::rocksdb::Config;
using hybridio::rocksdb::ParseUri;

TEST(Uri, DefaultsWithNoQuery) {
  for (const char* u : {"hybridio://", "hybridio:///", "hybridio://?"}) {
    Config c;
    ASSERT_EQ(ParseUri(u, &c), "") << u;
    EXPECT_EQ(c.wait, HIO_WAIT_ADAPTIVE);
    EXPECT_EQ(c.background, HIO_WAIT_INTERRUPT);
    EXPECT_EQ(c.objective, HIO_OBJECTIVE_SHARED);
    EXPECT_EQ(c.cache_mb, 0u);
    EXPECT_TRUE(c.direct);
    EXPECT_EQ(c.depth, 64u);
    EXPECT_EQ(c.readahead, HIO_READAHEAD_AUTO);
    EXPECT_FALSE(c.hybridio_writes);
    EXPECT_EQ(c.emulate, "");
    EXPECT_EQ(c.uri, u);
  }
}

TEST(Uri, EveryKey) {
  Config c;
  ASSERT_EQ(ParseUri("hybridio://"
                     "?completion=poll&adaptive_objective=own&background_completion=hybrid&cache_mb=256&cache_policy="
                     "writeback&direct=0&depth=8&readahead=off&"
                     "writes=hybridio&emulate=lat_us=10,iops=400000&stats=/tmp/s.json",
                     &c),
            "");
  EXPECT_EQ(c.wait, HIO_WAIT_POLL);
  EXPECT_EQ(c.background, HIO_WAIT_HYBRID);
  EXPECT_EQ(c.objective, HIO_OBJECTIVE_OWN);
  EXPECT_EQ(c.cache_mb, 256u);
  EXPECT_EQ(c.cache_policy, HIO_CACHE_WRITE_BACK);
  EXPECT_FALSE(c.direct);
  EXPECT_EQ(c.depth, 8u);
  EXPECT_EQ(c.readahead, HIO_READAHEAD_OFF);
  EXPECT_TRUE(c.hybridio_writes);
  EXPECT_EQ(c.emulate, "lat_us=10,iops=400000");
  EXPECT_EQ(c.stats, "/tmp/s.json");
  ASSERT_EQ(ParseUri("hybridio://?writes=posix", &c), "");
  EXPECT_FALSE(c.hybridio_writes);
  for (auto [v, m] :
       {std::pair{"interrupt", HIO_WAIT_INTERRUPT}, {"hybrid", HIO_WAIT_HYBRID}, {"adaptive", HIO_WAIT_ADAPTIVE}}) {
    ASSERT_EQ(ParseUri(std::string("hybridio://?completion=") + v, &c), "");
    EXPECT_EQ(c.wait, m);
  }
}

TEST(Uri, BadInputIsNamed) {
  struct Bad {
    const char* uri;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"posix://", "not a hybridio URI"},
        Bad{"hybridio://completion=poll", "expected '?'"},
        Bad{"hybridio://?wait", "'wait' is not key=value"},
        Bad{"hybridio://?speed=1", "unknown key 'speed'"},
        Bad{"hybridio://?completion=spin", "bad value 'spin' for completion"},
        Bad{"hybridio://?completion=iopoll", "bad value 'iopoll' for completion"},
        Bad{"hybridio://?background_completion=spin", "bad value 'spin' for background_completion"},
        Bad{"hybridio://?adaptive_objective=both", "bad value 'both' for adaptive_objective (expected shared or own)"},
        Bad{"hybridio://?wait=poll", "unknown key 'wait': it is spelled 'completion'"},
        Bad{"hybridio://?objective=own", "it is spelled 'adaptive_objective'"},
        Bad{"hybridio://?background=poll", "it is spelled 'background_completion'"},
        Bad{"hybridio://?cache_mb=8&writes=hybridio&cache_policy=write_back",
            "bad value 'write_back' for cache_policy (expected writethrough or writeback)"},
        Bad{"hybridio://?cache_mb=-1", "bad value '-1' for cache_mb"},
        Bad{"hybridio://?cache_mb=12k", "bad value '12k' for cache_mb"},
        Bad{"hybridio://?cache_mb=99999999999999999999", "for cache_mb"},
        Bad{"hybridio://?cache_policy=later", "bad value 'later' for cache_policy"},
        Bad{"hybridio://?direct=yes", "bad value 'yes' for direct"},
        Bad{"hybridio://?depth=0", "bad value '0' for depth"},
        Bad{"hybridio://?depth=5000", "bad value '5000' for depth"},
        Bad{"hybridio://?readahead=max", "bad value 'max' for readahead"},
        Bad{"hybridio://?stats=", "bad value '' for stats"},
        Bad{"hybridio://?writes=sideways", "bad value 'sideways' for writes (expected posix or hybridio)"},
        Bad{"hybridio://?emulate=", "bad value '' for emulate"},
        Bad{"hybridio://?cache_mb=8", "cache_mb needs writes=hybridio"},
        Bad{"hybridio://?cache_policy=writeback", "needs a cache"}}) {
    Config c;
    std::string e = ParseUri(b.uri, &c);
    EXPECT_NE(e.find(b.says), std::string::npos) << b.uri << " -> " << e;
  }
}
