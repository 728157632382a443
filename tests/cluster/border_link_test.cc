// Ghost batches on the cluster wire (cluster/border_link.h): a lossless round trip, each refusal
// named, and two links on a real nats-server carrying batches between the cells' nodes.
#include "cluster/border_link.h"

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "cluster/cluster_protocol.h"
#include "cluster/nats_test_env.h"
#include "support/nats_server.h"
#include "zone/test_world.h"

namespace zs::cluster {
namespace {

using host::BorderRefusal;
using std::chrono::milliseconds;

// The east's batch to the west, and where the client of its player migrant is.
host::BorderBatch EastBatch() {
  zone::GhostBatch b{.zone = 1,
                     .from_cell = 1,
                     .to_cell = 0,
                     .epoch = 0,
                     .tick = 77,
                     .ghosts = {},
                     .hits = {},
                     .says = {},
                     .migrants = {},
                     .hits_applied = 75};
  b.ghosts.push_back({.id = MakeEntityId(3, 2),
                      .kind = zone::EntityKind::kPlayer,
                      .template_id = 0,
                      .position = {52.5f, 20.25f},
                      .velocity = {0.25f, -0.125f},
                      .facing = 1.5f,
                      .radius = 0.5f,
                      .hp = 80,
                      .max_hp = 100,
                      .alive = true,
                      .name = "Eve"});
  b.ghosts.push_back({.id = MakeEntityId(5, 0),
                      .kind = zone::EntityKind::kMonster,
                      .template_id = zone::testing::kWolf,
                      .position = {60, 30},
                      .velocity = {},
                      .facing = -2,
                      .radius = 0.5f,
                      .hp = 0,
                      .max_hp = 30,
                      .alive = false,
                      .name = {}});
  b.hits.push_back(
      {.attacker = MakeEntityId(3, 2), .target = MakeEntityId(4, 1), .skill = 1, .damage = 12});
  b.says.push_back({.speaker = MakeEntityId(3, 2), .text = "héllo across"});
  b.migrants.push_back({.body = {.id = MakeEntityId(6, 3),
                                 .kind = zone::EntityKind::kMonster,
                                 .template_id = zone::testing::kWolf,
                                 .position = {49.25f, 20},
                                 .velocity = {-0.2f, 0},
                                 .facing = 3,
                                 .radius = 0.5f,
                                 .hp = 18,
                                 .max_hp = 30,
                                 .alive = true,
                                 .name = {}},
                        .player = {},
                        .spawn_group = 1,
                        .ai = zone::MonsterState::kChase,
                        .target = MakeEntityId(3, 2),
                        .home = {53, 20},
                        .wander_goal = {54.5f, 21},
                        .think_in = 4,
                        .respawn_in = 0,
                        .ready_in = {9, 0, 0, 1}});
  zone::Migrant player;
  player.body = b.ghosts[0];
  player.body.id = MakeEntityId(8, 1);
  player.body.position = {49, 21};
  player.player = {.move_direction = {-1, 0},
                   .last_input_seq = 4000000000u,
                   .input_seq_seen = true,
                   .view_radius = 35,
                   .last_target = MakeEntityId(6, 3),
                   .known = {MakeEntityId(3, 2), MakeEntityId(6, 3)}};
  player.ready_in = {0, 4, 0, 0};
  b.migrants.push_back(player);
  return {.batch = std::move(b),
          .clients = {{.entity = player.body.id,
                       .home = "east",
                       .session = 77,
                       .account = 12345,
                       .last_frame_tick = 9876,
                       .protocol_version = 9}},
          .sent_at_us = 0};
}

std::string Encoded(const host::BorderBatch& b, const std::string& node, uint64_t epoch) {
  v1::GhostBatch scratch;
  std::string bytes;
  EncodeGhostBatch(b.batch, b.clients, node, epoch, &scratch, &bytes);
  return bytes;
}

void ExpectSameClients(const std::vector<host::MigrantClient>& a,
                       const std::vector<host::MigrantClient>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].entity, b[i].entity);
    EXPECT_EQ(a[i].home, b[i].home);
    EXPECT_EQ(a[i].session, b[i].session);
    EXPECT_EQ(a[i].account, b[i].account);
    EXPECT_EQ(a[i].last_frame_tick, b[i].last_frame_tick);
    EXPECT_EQ(a[i].protocol_version, b[i].protocol_version);
  }
}

void ExpectSame(const host::BorderBatch& sent, const host::BorderBatch& got) {
  ExpectSameClients(sent.clients, got.clients);
  const zone::GhostBatch& a = sent.batch;
  const zone::GhostBatch& b = got.batch;
  EXPECT_EQ(a.zone, b.zone);
  EXPECT_EQ(a.from_cell, b.from_cell);
  EXPECT_EQ(a.to_cell, b.to_cell);
  EXPECT_EQ(a.tick, b.tick);
  EXPECT_EQ(a.hits_applied, b.hits_applied);
  ASSERT_EQ(a.ghosts.size(), b.ghosts.size());
  for (size_t i = 0; i < a.ghosts.size(); ++i) {
    const zone::GhostState& x = a.ghosts[i];
    const zone::GhostState& y = b.ghosts[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.template_id, y.template_id);
    EXPECT_EQ(x.position, y.position);
    EXPECT_EQ(x.velocity, y.velocity);
    EXPECT_EQ(x.facing, y.facing);
    EXPECT_EQ(x.radius, y.radius);
    EXPECT_EQ(x.hp, y.hp);
    EXPECT_EQ(x.max_hp, y.max_hp);
    EXPECT_EQ(x.alive, y.alive);
    EXPECT_EQ(x.name, y.name);
  }
  ASSERT_EQ(a.hits.size(), b.hits.size());
  for (size_t i = 0; i < a.hits.size(); ++i) {
    EXPECT_EQ(a.hits[i].attacker, b.hits[i].attacker);
    EXPECT_EQ(a.hits[i].target, b.hits[i].target);
    EXPECT_EQ(a.hits[i].skill, b.hits[i].skill);
    EXPECT_EQ(a.hits[i].damage, b.hits[i].damage);
  }
  ASSERT_EQ(a.says.size(), b.says.size());
  for (size_t i = 0; i < a.says.size(); ++i) {
    EXPECT_EQ(a.says[i].speaker, b.says[i].speaker);
    EXPECT_EQ(a.says[i].text, b.says[i].text);
  }
  ASSERT_EQ(a.migrants.size(), b.migrants.size());
  for (size_t i = 0; i < a.migrants.size(); ++i) {
    const zone::Migrant& x = a.migrants[i];
    const zone::Migrant& y = b.migrants[i];
    EXPECT_EQ(x.body.id, y.body.id);
    EXPECT_EQ(x.body.position, y.body.position);
    EXPECT_EQ(x.body.hp, y.body.hp);
    EXPECT_EQ(x.spawn_group, y.spawn_group);
    EXPECT_EQ(x.ai, y.ai);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.home, y.home);
    EXPECT_EQ(x.wander_goal, y.wander_goal);
    EXPECT_EQ(x.think_in, y.think_in);
    EXPECT_EQ(x.respawn_in, y.respawn_in);
    EXPECT_EQ(x.ready_in, y.ready_in);
    EXPECT_EQ(x.body.name, y.body.name);
    EXPECT_EQ(x.player.move_direction, y.player.move_direction);
    EXPECT_EQ(x.player.last_input_seq, y.player.last_input_seq);
    EXPECT_EQ(x.player.input_seq_seen, y.player.input_seq_seen);
    EXPECT_EQ(x.player.view_radius, y.player.view_radius);
    EXPECT_EQ(x.player.last_target, y.player.last_target);
    EXPECT_EQ(x.player.known, y.player.known);
  }
}

TEST(GhostCodec, ABatchCrossesTheWireUnchanged) {
  const zone::WorldConfig world = zone::testing::SplitInTwo();
  const host::BorderBatch sent = EastBatch();
  host::BorderBatch got;
  ASSERT_FALSE(DecodeGhostBatch(Encoded(sent, "east", 1234), world, &got).has_value());
  ExpectSame(sent, got);
  EXPECT_EQ(got.batch.epoch, 1234u) << "the sender's epoch, not the batch's";
  EXPECT_EQ(got.sent_at_us, 0u) << "not stamped";
  {
    v1::GhostBatch stamped_scratch;
    std::string stamped;
    EncodeGhostBatch(sent.batch, sent.clients, "east", 1234, &stamped_scratch, &stamped,
                     1'700'000'000'123'456);
    ASSERT_FALSE(DecodeGhostBatch(stamped, world, &got).has_value());
    EXPECT_EQ(got.sent_at_us, 1'700'000'000'123'456u) << "when the sender published it";
  }
  // A player migrant whose client is not listed (it left in the tick it crossed) goes with
  // none: the receiver lets it go.
  host::BorderBatch unlisted = sent;
  unlisted.clients.clear();
  ASSERT_FALSE(DecodeGhostBatch(Encoded(unlisted, "east", 1), world, &got).has_value());
  ASSERT_EQ(got.clients.size(), 1u) << "one per player migrant";
  EXPECT_EQ(got.clients[0].entity, sent.clients[0].entity);
  EXPECT_EQ(got.clients[0].home, "");
  EXPECT_EQ(got.clients[0].session, 0u);
  // The scratch message is reused: a shorter batch after a longer one leaves nothing behind.
  v1::GhostBatch scratch;
  std::string bytes;
  EncodeGhostBatch(sent.batch, sent.clients, "east", 1, &scratch, &bytes);
  host::BorderBatch shorter = sent;
  shorter.batch.ghosts.pop_back();
  shorter.batch.hits.clear();
  shorter.batch.says.clear();
  shorter.batch.migrants.front().target = kInvalidEntity;  // a monster hunting no one
  EncodeGhostBatch(shorter.batch, shorter.clients, "east", 1, &scratch, &bytes);
  ASSERT_FALSE(DecodeGhostBatch(bytes, world, &got).has_value());
  ExpectSame(shorter, got);
}

TEST(GhostCodec, EachRefusalIsNamed) {
  const zone::WorldConfig world = zone::testing::SplitInTwo();
  host::BorderBatch got;
  const auto refusal = [&](const std::string& bytes) {
    return DecodeGhostBatch(bytes, world, &got);
  };
  EXPECT_EQ(refusal("\xff\xff\xff not protobuf"), BorderRefusal::kUnparsable);
  EXPECT_EQ(refusal(Encoded(EastBatch(), "mallory", 1)), BorderRefusal::kWrongSender);
  EXPECT_EQ(refusal(Encoded(EastBatch(), "west", 1)), BorderRefusal::kWrongSender)
      << "a node speaking for a cell it does not own";
  host::BorderBatch other = EastBatch();
  other.batch.zone = 9;
  EXPECT_EQ(refusal(Encoded(other, "east", 1)), BorderRefusal::kNotSplit);
  other = EastBatch();
  other.batch.from_cell = 2;
  EXPECT_EQ(refusal(Encoded(other, "east", 1)), BorderRefusal::kNotSplit);
  zone::WorldConfig whole = world;
  whole.zones[0].cells = {};
  EXPECT_EQ(DecodeGhostBatch(Encoded(EastBatch(), "east", 1), whole, &got),
            BorderRefusal::kNotSplit);

  v1::GhostBatch m;
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  m.set_version(kClusterProtocolVersion + 1);
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kVersion);
  m.set_version(kClusterProtocolVersion);
  m.mutable_ghosts(0)->set_kind(v1::GHOST_KIND_UNSPECIFIED);
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable);
  m.mutable_ghosts(0)->set_kind(static_cast<v1::GhostKind>(7));
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable);
  // Text a client would choke on (protobuf strings are UTF-8) never gets through.
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  m.mutable_ghosts(0)->set_name("Ev\xff");
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "a name not UTF-8";
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  m.mutable_says(0)->set_text("line\nbreak");
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "a control character";
  m.mutable_says(0)->set_text("\xc3");
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "a say not UTF-8";
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  m.mutable_migrants(0)->set_ai(static_cast<v1::MonsterAi>(9));
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "no such AI state";
  m.mutable_migrants(0)->set_ai(v1::MONSTER_AI_IDLE);
  m.mutable_migrants(0)->add_ready_in(0);
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "five skill slots";
  m.mutable_migrants(0)->clear_body();
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "no body";
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  m.mutable_migrants(1)->clear_player();
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable) << "a player, no part";
  ASSERT_TRUE(m.ParseFromString(Encoded(EastBatch(), "east", 1)));
  *m.mutable_migrants(0)->mutable_player() = m.migrants(1).player();
  EXPECT_EQ(refusal(m.SerializeAsString()), BorderRefusal::kUnparsable)
      << "a monster, a player part";
}

// What a node's runners would get: the batches, in order, on libnats' thread.
// What a listener took, guarded: batches or zone chat.
template <class T>
struct Received {
  std::mutex mu;
  std::vector<T> got;
  void Take(T t) {
    const std::lock_guard lock(mu);
    got.push_back(std::move(t));
  }
  size_t size() {
    const std::lock_guard lock(mu);
    return got.size();
  }
};

// The west (cell 0) and the east (cell 1) of TestWorld's split zone on a real nats-server; each
// test makes the west listen with the sinks it needs (they fill at_west_ and heard_).
class BorderLinks : public ::testing::Test {
 protected:
  ~BorderLinks() override {
    east_bus_.Close();  // before the links and receivers their handlers use
    west_bus_.Close();
  }

  Received<host::BorderBatch> at_west_;
  Received<zone::ZoneChat> heard_;
  test::NatsServer server_;
  const zone::WorldConfig world_ = zone::testing::SplitInTwo();
  NatsBus west_bus_{test::FastBusOptions(server_, "west")};
  NatsBus east_bus_{test::FastBusOptions(server_, "east")};
  host::BorderCounters west_counters_, east_counters_;
  host::CellChatCounters west_chat_, east_chat_;
  BorderLink west_{west_bus_, world_, {.node = "west", .epoch = 10}, west_counters_, west_chat_};
  BorderLink east_{east_bus_, world_, {.node = "east", .epoch = 20}, east_counters_, east_chat_};
};

TEST_F(BorderLinks, CarriesBatchesBetweenTheCellsNodesAndCountsWhatItRefuses) {
  west_.Listen(1, 0, [this](host::BorderBatch b) { at_west_.Take(std::move(b)); });

  const host::BorderBatch sent = EastBatch();
  east_.Send(sent.batch, sent.clients);
  zone::GhostBatch to_nowhere = sent.batch;  // cell 1's own subject: nobody listens there here
  to_nowhere.to_cell = 1;
  east_.Send(to_nowhere, {});
  ASSERT_TRUE(test::WaitFor([&] { return at_west_.size() == 1; }, milliseconds(5000)));
  {
    const std::lock_guard lock(at_west_.mu);
    ExpectSame(sent, at_west_.got[0]);
    EXPECT_EQ(at_west_.got[0].batch.epoch, 20u);
    EXPECT_GT(at_west_.got[0].sent_at_us, 0u) << "stamped by the link as it sends";
  }
  EXPECT_EQ(east_counters_.batches_sent.value(), 2u);
  EXPECT_GT(east_counters_.bytes_sent.value(), 0u);

  // Bytes from a node that does not own cell 1, and bytes that are no batch.
  NatsBus mallory(test::FastBusOptions(server_, "mallory"));
  ASSERT_EQ(mallory.Publish(GhostSubject(1, 0), Encoded(sent, "mallory", 30)), BusStatus::kOk);
  ASSERT_EQ(mallory.Publish(GhostSubject(1, 0), "garbage"), BusStatus::kOk);
  const auto refused = [&](BorderRefusal r) {
    return west_counters_.refusals[static_cast<size_t>(r)].value();
  };
  ASSERT_TRUE(test::WaitFor(
      [&] {
        return refused(BorderRefusal::kWrongSender) == 1 &&
               refused(BorderRefusal::kUnparsable) == 1;
      },
      milliseconds(5000)));
  EXPECT_EQ(at_west_.size(), 1u) << "neither reached the runners";
  EXPECT_GT(west_counters_.bytes_received.value(), 0u);
}

zone::ZoneChat EastChat() {
  return {.zone = 1,
          .from_cell = 1,
          .epoch = 0,
          .tick = 88,
          .lines = {{.speaker = MakeEntityId(3, 2), .name = "Eve", .text = "anyone?"},
                    {.speaker = MakeEntityId(5, 0), .name = "Ézé", .text = "oui 🙂"}}};
}

std::string EncodedChat(const zone::ZoneChat& chat, uint32_t to_cell, const std::string& node) {
  std::string bytes;
  EncodeZoneChat(chat, to_cell, node, 42, &bytes);
  return bytes;
}

TEST(GhostCodec, ZoneChatCrossesTheWireUnchangedAndEachRefusalIsNamed) {
  const zone::WorldConfig world_ = zone::testing::SplitInTwo();
  zone::ZoneChat got;
  uint32_t to_cell = 9;
  ASSERT_EQ(DecodeZoneChat(EncodedChat(EastChat(), 0, "east"), world_, &got, &to_cell),
            std::nullopt);
  EXPECT_EQ(to_cell, 0u);
  EXPECT_EQ(got.zone, 1u);
  EXPECT_EQ(got.from_cell, 1u);
  EXPECT_EQ(got.epoch, 42u) << "the sender's epoch";
  EXPECT_EQ(got.tick, 88u);
  ASSERT_EQ(got.lines.size(), 2u);
  EXPECT_EQ(got.lines[1].speaker, MakeEntityId(5, 0));
  EXPECT_EQ(got.lines[1].name, "Ézé");
  EXPECT_EQ(got.lines[1].text, "oui 🙂");

  const auto refusal = [&](const zone::ZoneChat& chat, uint32_t to, const std::string& node) {
    return DecodeZoneChat(EncodedChat(chat, to, node), world_, &got, &to_cell);
  };
  EXPECT_EQ(DecodeZoneChat("\xff not protobuf", world_, &got, &to_cell),
            BorderRefusal::kUnparsable);
  EXPECT_EQ(refusal(EastChat(), 0, "mallory"), BorderRefusal::kWrongSender);
  EXPECT_EQ(refusal(EastChat(), 0, "west"), BorderRefusal::kWrongSender);
  EXPECT_EQ(refusal(EastChat(), 1, "east"), BorderRefusal::kNotSplit) << "to its own cell";
  EXPECT_EQ(refusal(EastChat(), 2, "east"), BorderRefusal::kNotSplit) << "beyond the cells";
  zone::ZoneChat bad = EastChat();
  bad.zone = 9;
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kNotSplit);
  bad = EastChat();
  bad.lines.clear();
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "no lines";
  bad.lines.assign(zone::kMaxZoneLines + 1, EastChat().lines[0]);
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "too many";
  bad = EastChat();
  bad.lines[0].speaker = kInvalidEntity;
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "no speaker";
  bad.lines[0].speaker = static_cast<EntityId>(0);
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "id 0";
  bad = EastChat();
  bad.lines[0].text = "bell\a";
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "not text";
  bad = EastChat();
  bad.lines[0].text.clear();
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "nothing said";
  bad = EastChat();
  bad.lines[0].name = std::string(kMaxZoneName + 1, 'a');
  EXPECT_EQ(refusal(bad, 0, "east"), BorderRefusal::kUnparsable) << "a name too long";
  v1::ZoneChat m;
  ASSERT_TRUE(m.ParseFromString(EncodedChat(EastChat(), 0, "east")));
  m.set_version(kClusterProtocolVersion + 1);
  EXPECT_EQ(DecodeZoneChat(m.SerializeAsString(), world_, &got, &to_cell), BorderRefusal::kVersion);
}

TEST_F(BorderLinks, CarriesZoneChatToEveryOtherCell) {
  west_.Listen(
      1, 0, [](const host::BorderBatch&) {}, nullptr,
      [this](zone::ZoneChat c) { heard_.Take(std::move(c)); });
  east_.SendChat(EastChat());
  ASSERT_TRUE(test::WaitFor([&] { return heard_.size() == 1; }, milliseconds(5000)));
  {
    const std::lock_guard lock(heard_.mu);
    EXPECT_EQ(heard_.got[0].epoch, 20u) << "the east's";
    EXPECT_EQ(heard_.got[0].lines.size(), 2u);
  }
  EXPECT_EQ(east_chat_.lines_out.value(), 2u) << "one other cell, two lines";
  EXPECT_EQ(west_chat_.lines_in.value(), 2u);

  NatsBus mallory(test::FastBusOptions(server_, "mallory"));
  ASSERT_EQ(mallory.Publish(ChatSubject(1, 0), EncodedChat(EastChat(), 0, "mallory")),
            BusStatus::kOk);
  ASSERT_EQ(mallory.Publish(ChatSubject(1, 0), EncodedChat(EastChat(), 1, "east")),
            BusStatus::kOk);  // addressed to cell 1, on cell 0's subject: refused as well
  ASSERT_TRUE(test::WaitFor(
      [&] {
        return west_chat_.refusals[static_cast<size_t>(BorderRefusal::kWrongSender)].value() == 1 &&
               west_chat_.refusals[static_cast<size_t>(BorderRefusal::kNotSplit)].value() == 1;
      },
      milliseconds(5000)));
  EXPECT_EQ(heard_.size(), 1u) << "neither reached the runners";
}

}  // namespace
}  // namespace zs::cluster
