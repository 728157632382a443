// NatsBus against a real nats-server (tests/support/nats_server.h): request-reply, no
// responders, connect failures, and a server restart under a live bus.
#include "cluster/nats_bus.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/nats_test_env.h"
#include "support/nats_server.h"

namespace zs::cluster {
namespace {

using std::chrono::milliseconds;
using test::kReconnectTimeout;
using test::SecondsSince;
using test::WaitFor;

constexpr milliseconds kReplyTimeout{2000};

BusOptions Options(const test::NatsServer& server, std::string name) {
  return BusOptions{.url = server.url(),
                    .name = std::move(name),
                    .connect_timeout_ms = 1000,
                    .reconnect_wait_ms = 100,
                    .jetstream_timeout_ms = 1000,
                    .drain_timeout_ms = 1000};
}

std::string Echo(std::string_view request) { return "re:" + std::string(request); }

TEST(NatsBus, RequestReplyRoundTrip) {
  test::NatsServer server;
  NatsBus responder(Options(server, "node-a"));
  NatsBus requester(Options(server, "node-b"));
  responder.Serve("zs.test.echo", Echo);
  const std::string body("binary\0bytes", 12);
  const BusReply reply = requester.Request("zs.test.echo", body, kReplyTimeout);
  ASSERT_EQ(reply.status, BusStatus::kOk) << reply.error;
  EXPECT_EQ(reply.bytes, "re:" + body);
}

TEST(NatsBus, NoResponderAnswersQuickly) {
  test::NatsServer server;
  NatsBus bus(Options(server, "node-a"));
  const auto start = std::chrono::steady_clock::now();
  const BusReply reply = bus.Request("zs.test.nobody", "hello", kReplyTimeout);
  EXPECT_TRUE(reply.status == BusStatus::kNoResponders || reply.status == BusStatus::kTimeout)
      << BusStatusName(reply.status);
  EXPECT_EQ(reply.status, BusStatus::kNoResponders) << "nats-server 2.9 reports no responders";
  EXPECT_LT(SecondsSince(start), 0.5);
  EXPECT_NE(reply.error.find("zs.test.nobody"), std::string::npos) << reply.error;
}

TEST(NatsBus, AThrowingHandlerDoesNotTakeTheProcessDown) {
  test::NatsServer server;
  NatsBus bus(Options(server, "node-a"));
  bus.Serve("zs.test.throws",
            [](std::string_view) -> std::string { throw std::runtime_error("boom"); });
  const BusReply reply = bus.Request("zs.test.throws", "x", milliseconds(300));
  EXPECT_EQ(reply.status, BusStatus::kTimeout);
  bus.Serve("zs.test.echo", Echo);
  EXPECT_EQ(bus.Request("zs.test.echo", "y", kReplyTimeout).bytes, "re:y");
}

TEST(NatsBus, ConnectFailureThrowsAClearError) {
  std::string url;
  {
    test::NatsServer server;
    url = server.url();
  }  // nobody listens there now
  try {
    NatsBus bus(BusOptions{.url = url,
                           .name = "node-a",
                           .connect_timeout_ms = 500,
                           .reconnect_wait_ms = 100,
                           .jetstream_timeout_ms = 500,
                           .drain_timeout_ms = 500});
    FAIL() << "connected to nothing";
  } catch (const BusError& e) {
    EXPECT_NE(std::string(e.what()).find(url), std::string::npos) << e.what();
  }
}

TEST(NatsBus, SurvivesANatsServerRestart) {
  test::NatsServer server;
  NatsBus responder(Options(server, "node-a"));
  NatsBus requester(Options(server, "node-b"));
  responder.Serve("zs.test.echo", Echo);
  ASSERT_EQ(requester.Request("zs.test.echo", "1", kReplyTimeout).status, BusStatus::kOk);

  server.Stop();
  ASSERT_TRUE(WaitFor([&] { return !requester.connected(); }, kReconnectTimeout));
  const auto start = std::chrono::steady_clock::now();
  const BusReply down = requester.Request("zs.test.echo", "2", kReplyTimeout);
  EXPECT_EQ(down.status, BusStatus::kDisconnected) << down.error;
  EXPECT_LT(SecondsSince(start), 0.1);

  server.Start();
  ASSERT_TRUE(
      WaitFor([&] { return requester.connected() && responder.connected(); }, kReconnectTimeout));
  // The responder's subscription is renewed by libnats on reconnect.
  BusReply again;
  ASSERT_TRUE(WaitFor(
      [&] {
        again = requester.Request("zs.test.echo", "3", kReplyTimeout);
        return again.status == BusStatus::kOk;
      },
      kReconnectTimeout))
      << again.error;
  EXPECT_EQ(again.bytes, "re:3");
}

TEST(NatsBus, KillWithoutGoodbyeIsAlsoSurvived) {
  test::NatsServer server;
  NatsBus bus(Options(server, "node-a"));
  bus.Serve("zs.test.echo", Echo);
  server.Kill();
  ASSERT_TRUE(WaitFor([&] { return !bus.connected(); }, kReconnectTimeout));
  server.Start();
  ASSERT_TRUE(WaitFor([&] { return bus.connected(); }, kReconnectTimeout));
  EXPECT_TRUE(
      WaitFor([&] { return bus.Request("zs.test.echo", "k", kReplyTimeout).bytes == "re:k"; },
              kReconnectTimeout));
}

TEST(NatsBus, CloseIsIdempotentAndRequestsAfterItFailCleanly) {
  test::NatsServer server;
  NatsBus bus(Options(server, "node-a"));
  bus.Serve("zs.test.echo", Echo);
  bus.Close();
  bus.Close();
  EXPECT_EQ(bus.Request("zs.test.echo", "x", kReplyTimeout).status, BusStatus::kDisconnected);
}

}  // namespace
}  // namespace zs::cluster
