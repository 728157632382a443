// ZoneDirectory against a real nats-server with JetStream: claims, refusals, restarts within
// the ttl, heartbeats past the ttl, expiry after a crash, release, a lost claim, NATS going down.
#include "cluster/zone_directory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>

#include "cluster.pb.h"
#include "cluster/nats_test_env.h"
#include "support/nats_server.h"

namespace zs::cluster {
namespace {

using std::chrono::milliseconds;
using test::kReconnectTimeout;
using test::SecondsSince;
using test::WaitFor;

// Short enough for the test, long enough that a heartbeat every ttl/3 is not racing it.
constexpr int kTtlSeconds = 2;

DirectoryOptions Short() {
  return DirectoryOptions{
      .ttl_seconds = kTtlSeconds, .storage = KvStorage::kFile, .bucket = kZoneBucket};
}

ZoneOwner Owner(const std::string& node, const std::string& address, int64_t started_ms = 1000) {
  return ZoneOwner{.node = node, .address = address, .zone_id = 0, .started_ms = started_ms};
}

const std::vector<ZoneClaim> kTownAndField = {{.zone_id = 1, .name = "town"},
                                              {.zone_id = 2, .name = "field"}};

class ZoneDirectoryTest : public ::testing::Test {
 protected:
  test::NatsServer server_;
  NatsBus bus_a_{test::FastBusOptions(server_, "field-a")};
  NatsBus bus_b_{test::FastBusOptions(server_, "field-b")};
};

TEST_F(ZoneDirectoryTest, ClaimThenLookup) {
  ZoneDirectory a(bus_a_, Short());
  const ClaimResult claimed = a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777"));
  ASSERT_TRUE(claimed.ok) << claimed.error;
  ZoneDirectory b(bus_b_, Short());
  const LookupResult found = b.Lookup(2);
  ASSERT_EQ(found.status, LookupStatus::kFound) << found.error;
  EXPECT_EQ(
      found.owner,
      (ZoneOwner{.node = "field-a", .address = "10.0.0.5:7777", .zone_id = 2, .started_ms = 1000}));
  EXPECT_EQ(b.Lookup(3).status, LookupStatus::kNone);
  EXPECT_EQ(a.claimed(), (std::vector<uint32_t>{1, 2}));
}

TEST_F(ZoneDirectoryTest, ASecondNodeIsRefusedWithAClearMessage) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  ZoneDirectory b(bus_b_, Short());
  const ClaimResult refused = b.Claim({{.zone_id = 3, .name = "cave"}, kTownAndField[1]},
                                      Owner("field-b", "10.0.0.6:7777"));
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.error, "zone 2 (field) is already hosted by node 'field-a' at 10.0.0.5:7777");
  // All or nothing: zone 3, claimed before the refusal, was given back.
  EXPECT_EQ(b.Lookup(3).status, LookupStatus::kNone);
  EXPECT_TRUE(b.claimed().empty());
  EXPECT_EQ(a.Lookup(2).owner.node, "field-a");
}

// A split zone's cells (docs/seamless.md): each its own key, one owner each.
TEST_F(ZoneDirectoryTest, EachCellOfASplitZoneHasOneOwner) {
  ZoneDirectory a(bus_a_, Short());
  ZoneDirectory b(bus_b_, Short());
  const ZoneClaim east{.zone_id = 2, .name = "field", .cell = 1};
  const ClaimResult claimed = a.Claim({east}, Owner("field-a", "10.0.0.5:7777"));
  ASSERT_TRUE(claimed.ok) << claimed.error;
  const ClaimResult refused = b.Claim({east}, Owner("field-b", "10.0.0.6:7777"));
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("zone 2 (field) cell 1 is already hosted by node 'field-a'"),
            std::string::npos)
      << refused.error;
  const ClaimResult west =
      b.Claim({{.zone_id = 2, .name = "field", .cell = 0}}, Owner("field-b", "10.0.0.6:7777"));
  ASSERT_TRUE(west.ok) << west.error << " (another cell of the same zone)";
  EXPECT_EQ(a.Lookup(2, 1).owner.node, "field-a");
  EXPECT_EQ(a.Lookup(2, 0).owner.node, "field-b");
  EXPECT_EQ(a.Lookup(2).status, LookupStatus::kNone) << "the zone's own key is nobody's";
  a.Release();
  EXPECT_EQ(b.Lookup(2, 1).status, LookupStatus::kNone) << "released at once";
}

TEST_F(ZoneDirectoryTest, TheSameNodeRestartingWithinTheTtlTakesItsZonesBack) {
  {
    ZoneDirectory crashed(bus_a_, Short());
    ASSERT_TRUE(crashed.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777", 1000)).ok);
  }  // no Release: a crash
  ZoneDirectory restarted(bus_a_, Short());
  const ClaimResult again = restarted.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7778", 2000));
  ASSERT_TRUE(again.ok) << again.error;
  const LookupResult found = restarted.Lookup(1);
  ASSERT_EQ(found.status, LookupStatus::kFound) << found.error;
  EXPECT_EQ(found.owner.started_ms, 2000);
  EXPECT_EQ(found.owner.address, "10.0.0.5:7778");
}

TEST_F(ZoneDirectoryTest, HeartbeatKeepsTheEntryAliveWellPastTheTtl) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  std::this_thread::sleep_for(std::chrono::seconds(kTtlSeconds * 5 / 2));
  ZoneDirectory b(bus_b_, Short());
  EXPECT_EQ(b.Lookup(1).status, LookupStatus::kFound);
  EXPECT_EQ(b.Lookup(2).status, LookupStatus::kFound);
  EXPECT_FALSE(b.Claim(kTownAndField, Owner("field-b", "10.0.0.6:7777")).ok);
}

TEST_F(ZoneDirectoryTest, ACrashedOwnersEntriesExpireAndAnotherNodeClaimsThem) {
  auto a = std::make_unique<ZoneDirectory>(bus_a_, Short());
  ASSERT_TRUE(a->Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  a.reset();  // heartbeat stops, nothing released: a crash as the others see it
  const auto crashed_at = std::chrono::steady_clock::now();
  ZoneDirectory b(bus_b_, Short());
  ASSERT_TRUE(WaitFor([&] { return b.Lookup(2).status == LookupStatus::kNone; },
                      milliseconds((kTtlSeconds + 1) * 1000)))
      << "still owned a second after the ttl";
  std::printf("[ expiry   ] entry gone %.2f s after the owner crashed (ttl %d s)\n",
              SecondsSince(crashed_at), kTtlSeconds);
  const ClaimResult claimed = b.Claim(kTownAndField, Owner("field-b", "10.0.0.6:7777"));
  ASSERT_TRUE(claimed.ok) << claimed.error;
  EXPECT_EQ(b.Lookup(2).owner.node, "field-b");
}

TEST_F(ZoneDirectoryTest, ReleaseRemovesTheEntriesAtOnce) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  a.Release();
  EXPECT_TRUE(a.claimed().empty());
  ZoneDirectory b(bus_b_, Short());
  EXPECT_EQ(b.Lookup(1).status, LookupStatus::kNone);
  EXPECT_EQ(b.Lookup(2).status, LookupStatus::kNone);
  const ClaimResult claimed = b.Claim(kTownAndField, Owner("field-b", "10.0.0.6:7777"));
  EXPECT_TRUE(claimed.ok) << claimed.error;
}

TEST_F(ZoneDirectoryTest, AClaimTakenByAnotherNodeIsReportedLost) {
  std::atomic<uint32_t> lost_zone{0};
  std::string lost_to;
  std::mutex mu;
  ZoneDirectory a(bus_a_, Short(), [&](uint32_t zone, const ZoneOwner& now) {
    const std::lock_guard lock(mu);
    lost_to = now.node;
    lost_zone = zone;
  });
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  // Someone overwrites zone 2 behind the directory's back (as after an outage beyond the ttl).
  kvStore* kv = nullptr;
  ASSERT_EQ(js_KeyValue(&kv, bus_b_.jetstream(), kZoneBucket), NATS_OK);
  v1::ZoneOwner intruder;
  intruder.set_node("intruder");
  intruder.set_address("10.0.0.9:7777");
  intruder.set_zone_id(2);
  const std::string value = intruder.SerializeAsString();
  ASSERT_EQ(kvStore_Put(nullptr, kv, "2", value.data(), static_cast<int>(value.size())), NATS_OK);
  kvStore_Destroy(kv);
  ASSERT_TRUE(WaitFor([&] { return lost_zone.load() == 2; }, milliseconds(kTtlSeconds * 1000)));
  {
    const std::lock_guard lock(mu);
    EXPECT_EQ(lost_to, "intruder");
  }
  EXPECT_EQ(a.claimed(), std::vector<uint32_t>{1});
  EXPECT_EQ(a.Lookup(2).owner.node, "intruder");  // not overwritten by the heartbeat
}

TEST_F(ZoneDirectoryTest, ALookupWhileNatsIsDownFailsCleanlyThenWorksAgain) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  ZoneDirectory b(bus_b_, Short());
  ASSERT_EQ(b.Lookup(1).status, LookupStatus::kFound);

  server_.Stop();
  ASSERT_TRUE(WaitFor([&] { return !bus_b_.connected(); }, kReconnectTimeout));
  const auto start = std::chrono::steady_clock::now();
  const LookupResult down = b.Lookup(1);
  EXPECT_EQ(down.status, LookupStatus::kError);
  EXPECT_LT(SecondsSince(start), 1.5);  // the JetStream timeout at most; here: at once
  EXPECT_NE(down.error.find("not connected"), std::string::npos) << down.error;

  server_.Start();
  ASSERT_TRUE(WaitFor([&] { return bus_a_.connected() && bus_b_.connected(); }, kReconnectTimeout));
  // File storage: the bucket and the entry survived the restart; the heartbeat goes on.
  LookupResult up;
  ASSERT_TRUE(WaitFor(
      [&] {
        up = b.Lookup(1);
        return up.status == LookupStatus::kFound;
      },
      kReconnectTimeout))
      << up.error;
  EXPECT_EQ(up.owner.node, "field-a");
  std::this_thread::sleep_for(milliseconds(kTtlSeconds * 1000 + 500));
  EXPECT_EQ(b.Lookup(2).status, LookupStatus::kFound) << "heartbeat resumed after the restart";
  EXPECT_EQ(a.claimed(), (std::vector<uint32_t>{1, 2}));
}

TEST_F(ZoneDirectoryTest, ALookupAgainstAHungServerFailsWithinItsTimeout) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  server_.Pause();  // connected, but nothing answers
  const auto start = std::chrono::steady_clock::now();
  const LookupResult hung = a.Lookup(1);
  const double seconds = SecondsSince(start);
  server_.Resume();
  EXPECT_EQ(hung.status, LookupStatus::kError);
  // jetstream_timeout_ms is 1000: it gives up then (not a speed goal: a hang would be minutes;
  // the margin is for a loaded CI machine).
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(hung.error.empty());
  LookupResult up;
  EXPECT_TRUE(WaitFor(
      [&] {
        up = a.Lookup(1);
        return up.status == LookupStatus::kFound;
      },
      kReconnectTimeout))
      << up.error;
}

// Not a check: the cost of one uncached Lookup on loopback, printed for the report.
TEST_F(ZoneDirectoryTest, LookupCostOnLoopback) {
  ZoneDirectory a(bus_a_, Short());
  ASSERT_TRUE(a.Claim(kTownAndField, Owner("field-a", "10.0.0.5:7777")).ok);
  constexpr int kLookups = 2000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kLookups; ++i) {
    ASSERT_EQ(a.Lookup(static_cast<uint32_t>(1 + i % 2)).status, LookupStatus::kFound);
  }
  const double micros = SecondsSince(start) * 1e6 / kLookups;
  std::printf("[ lookup   ] %.1f us per uncached Lookup (%d, loopback, file storage)\n", micros,
              kLookups);
  RecordProperty("lookup_us", static_cast<int>(micros));
}

}  // namespace
}  // namespace zs::cluster
