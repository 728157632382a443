// Client-message parsing (every rejection reason) and the tick encoder, checked by parsing its
// frames back with the real protobuf library.
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <limits>
#include <set>
#include <variant>

#include "core/rng.h"
#include "wire/encoder.h"
#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::wire {
namespace {

namespace pb = ::zs::zone::v1;

std::string Bytes(const pb::ClientMessage& m) { return m.SerializeAsString(); }

TEST(ParseClientMessage, ValidMessages) {
  ClientIntent in;
  pb::ClientMessage m;
  m.mutable_hello()->set_protocol_version(kProtocolVersion);
  m.mutable_hello()->set_player_name("ada");
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.kind, ClientKind::kHello);
  EXPECT_EQ(in.player_name, "ada");

  m.Clear();
  m.mutable_move()->set_seq(9);
  m.mutable_move()->set_direction_x(0.5f);
  m.mutable_move()->set_direction_y(-1.0f);
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.kind, ClientKind::kMove);
  ASSERT_TRUE(std::holds_alternative<zone::MoveInput>(in.input));
  const auto& move = std::get<zone::MoveInput>(in.input);
  EXPECT_EQ(move.seq, 9u);
  EXPECT_EQ(move.direction, (Vec2{0.5f, -1.0f}));
  EXPECT_EQ(move.entity, kInvalidEntity) << "who moves is the host's to say";

  m.Clear();
  m.mutable_skill()->set_skill_id(3);
  m.mutable_skill()->set_facing(16384);  // a quarter turn
  m.mutable_skill()->set_target_x(-150);
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  ASSERT_TRUE(std::holds_alternative<zone::SkillInput>(in.input));
  const auto& skill = std::get<zone::SkillInput>(in.input);
  EXPECT_EQ(skill.skill, 3u);
  EXPECT_NEAR(skill.facing, kPi / 2, 1e-4);
  EXPECT_FLOAT_EQ(skill.target.x, -1.5f);

  m.Clear();
  m.mutable_chat()->set_seq(4);
  m.mutable_chat()->set_channel(pb::CHAT_CHANNEL_WHISPER);
  m.mutable_chat()->set_text("hello");
  m.mutable_chat()->set_to("Bea");
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.kind, ClientKind::kChat);
  ASSERT_TRUE(std::holds_alternative<zone::ChatInput>(in.input));
  const auto& chat = std::get<zone::ChatInput>(in.input);
  EXPECT_EQ(chat.seq, 4u);
  EXPECT_EQ(chat.channel, zone::ChatChannel::kWhisper);
  EXPECT_EQ(chat.text, "hello");
  EXPECT_TRUE(chat.text_ok);
  EXPECT_EQ(chat.to_name, "Bea");
  EXPECT_EQ(chat.to, kInvalidEntity) << "the name is the host's to resolve";
  m.mutable_chat()->set_text(std::string("bell\x07"));
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone) << "a refusal, not an error";
  EXPECT_FALSE(std::get<zone::ChatInput>(in.input).text_ok);

  m.Clear();
  m.mutable_ping()->set_client_time(123456789);
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.client_time, 123456789u);
  m.Clear();
  m.mutable_logout();
  ASSERT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.kind, ClientKind::kLogout);
}

TEST(ParseClientMessage, Rejections) {
  ClientIntent in;
  EXPECT_EQ(ParseClientMessage(std::string("\xff\xff\xff\xff\xff\xff", 6), 16, &in),
            ParseError::kUnparsable);
  EXPECT_EQ(ParseClientMessage("", 16, &in), ParseError::kEmpty);  // no message set
  pb::ClientMessage m;
  m.mutable_move()->set_direction_x(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kBadValue);
  m.Clear();
  m.mutable_move()->set_direction_y(std::numeric_limits<float>::infinity());
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kBadValue);
  m.Clear();
  m.mutable_hello()->set_player_name(std::string(33, 'x'));
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kBadName);
  EXPECT_EQ(in.name_problem, names::NameProblem::kLength);
  m.Clear();
  m.mutable_hello()->set_player_name("evil\nERROR fake log line");
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kBadName);
  EXPECT_EQ(in.name_problem, names::NameProblem::kControl);
  // With a token (protocol 4, token mode) the name is not the parser's to refuse: the token
  // names the character, and the session decides by the server's auth mode.
  m.mutable_hello()->set_auth_token("zs1.abc.def");
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.auth_token, "zs1.abc.def");
  EXPECT_EQ(in.name_problem, names::NameProblem::kControl);
  m.Clear();
  m.mutable_skill()->set_facing(70000);
  EXPECT_EQ(ParseClientMessage(Bytes(m), 16, &in), ParseError::kBadValue);
  // Nesting beyond the recursion limit: 100 unknown groups inside each other.
  std::string deep;
  for (int i = 0; i < 100; ++i) deep.push_back(static_cast<char>((15 << 3) | 3));  // start group
  for (int i = 0; i < 100; ++i) deep.push_back(static_cast<char>((15 << 3) | 4));  // end group
  EXPECT_EQ(ParseClientMessage(deep, 16, &in), ParseError::kUnparsable);
}

// proto3 refuses a message whole when a string field is not UTF-8. A Hello or a Chat is still
// read, and what is not UTF-8 is judged by our own rules: a chat line's text is not ok (BAD_TEXT,
// the connection kept), a token is passed on (AUTH_FAILED), a name is BAD_NAME.
TEST(ParseClientMessage, StringsThatAreNotUtf8AreJudgedByOurRules) {
  const std::string bad = "\xff\xfe\xfd\xfc";
  const auto with_bad = [&bad](const pb::ClientMessage& m, const std::string& placeholder) {
    std::string b = Bytes(m);
    b.replace(b.find(placeholder), placeholder.size(), bad);
    return b;
  };
  ClientIntent in;
  pb::ClientMessage chat;
  chat.mutable_chat()->set_seq(5);
  chat.mutable_chat()->set_channel(pb::CHAT_CHANNEL_WHISPER);
  chat.mutable_chat()->set_text("TEXT");
  chat.mutable_chat()->set_to("Aria");
  ASSERT_EQ(ParseClientMessage(with_bad(chat, "TEXT"), 16, &in), ParseError::kNone);
  const auto& line = std::get<zone::ChatInput>(in.input);
  EXPECT_EQ(line.seq, 5u);
  EXPECT_EQ(line.channel, zone::ChatChannel::kWhisper);
  EXPECT_EQ(line.to_name, "Aria");
  EXPECT_FALSE(line.text_ok);
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  hello.mutable_hello()->set_auth_token("TOKN");
  in = {};
  ASSERT_EQ(ParseClientMessage(with_bad(hello, "TOKN"), 16, &in), ParseError::kNone);
  EXPECT_EQ(in.kind, ClientKind::kHello);
  EXPECT_EQ(in.protocol_version, kProtocolVersion);
  EXPECT_EQ(in.auth_token, bad) << "the token check refuses it: AUTH_FAILED";
  hello.mutable_hello()->clear_auth_token();
  hello.mutable_hello()->set_player_name("NAME");
  in = {};
  ASSERT_EQ(ParseClientMessage(with_bad(hello, "NAME"), 16, &in), ParseError::kBadName);
  EXPECT_EQ(in.name_problem, names::NameProblem::kInvalidUtf8);
  // Anything else that protobuf cannot read stays unreadable.
  EXPECT_EQ(ParseClientMessage(with_bad(chat, "TEXT") + "\x08", 16, &in), ParseError::kUnparsable);
}

TEST(WireUnits, RoundTrip) {
  EXPECT_EQ(ToCentimetres(1.234f), 123);
  EXPECT_EQ(ToCentimetres(-1.234f), -123);
  EXPECT_FLOAT_EQ(FromCentimetres(250), 2.5f);
  EXPECT_EQ(ToTurn16(0), 0u);
  EXPECT_EQ(ToTurn16(kPi / 2), 16384u);
  EXPECT_EQ(ToTurn16(-kPi / 2), 49152u);
  EXPECT_NEAR(FromTurn16(ToTurn16(1.0f)), 1.0f, 1e-4);
}

// Strips the varint prefix of a frame and parses the ServerMessage.
pb::ServerMessage ParseFrame(std::string_view frame) {
  FrameDecoder d(1 << 24);
  d.Feed(frame);
  std::string body;
  EXPECT_EQ(d.Next(&body), FrameDecoder::Result::kFrame);
  EXPECT_EQ(d.buffered(), 0u);
  pb::ServerMessage m;
  EXPECT_TRUE(m.ParseFromString(body));
  return m;
}

// A delta list (moved or turned) of a frame against the view's slots: as many ids, each the gap
// from the previous, and dx, dy per id from the entity's previous position.
void ExpectDeltas(const zone::ZoneTickOutput& o, const std::vector<uint32_t>& slots,
                  const google::protobuf::RepeatedField<uint32_t>& ids,
                  const google::protobuf::RepeatedField<int32_t>& deltas) {
  ASSERT_EQ(static_cast<size_t>(ids.size()), slots.size());
  ASSERT_EQ(static_cast<size_t>(deltas.size()), 2 * slots.size());
  uint32_t id = 0;
  for (int k = 0; k < ids.size(); ++k) {
    const zone::EntityState& e = o.states[slots[static_cast<size_t>(k)]];
    id += ids.Get(k);
    EXPECT_EQ(id, ToRaw(e.id));
    EXPECT_EQ(deltas.Get(2 * k), ToCentimetres(e.position.x) - ToCentimetres(e.prev_position.x));
    EXPECT_EQ(deltas.Get(2 * k + 1),
              ToCentimetres(e.position.y) - ToCentimetres(e.prev_position.y));
  }
}

TEST(TickEncoder, FramesParseBackToTheViews) {
  zone::WorldConfig c = zone::testing::TestWorld();
  c.zones[0].spawns = {{2, 30, {{30, 30}, {70, 70}}, 40}};
  c.monsters[1].wander_radius = 10;
  zone::World w(c);
  std::vector<EntityId> players(3);
  for (EntityId& p : players) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  TickEncoder enc;
  size_t update_bytes = 0, updates = 0;
  for (int tick = 0; tick < 60; ++tick) {
    const zone::MoveInput m{players[0], static_cast<uint32_t>(tick + 1), {1, 0.3f}};
    const zone::SkillInput s{players[1], 7, zone::testing::kWhirl, 0, {}};
    w.Tick({&m, 1}, {&s, 1});
    const zone::ZoneTickOutput& o = w.output(0);
    enc.Encode(o);
    for (size_t i = 0; i < o.views.size(); ++i) {
      const zone::PlayerView& v = o.views[i];
      const pb::ServerMessage msg = ParseFrame(enc.Frame(i));
      ASSERT_TRUE(msg.has_tick());
      const pb::TickUpdate& t = msg.tick();
      EXPECT_EQ(t.tick(), o.tick);
      EXPECT_EQ(t.last_input_seq(), v.last_input_seq);
      EXPECT_EQ(t.self().id(), ToRaw(v.player));
      ASSERT_EQ(static_cast<uint32_t>(t.entered_size()), v.entered.size());
      for (int k = 0; k < t.entered_size(); ++k) {
        const zone::EntityState& e = o.states[v.entered[static_cast<size_t>(k)]];
        EXPECT_EQ(t.entered(k).id(), ToRaw(e.id));
        EXPECT_EQ(t.entered(k).x(), ToCentimetres(e.position.x));
        EXPECT_EQ(t.entered(k).hp(), e.hp);
        EXPECT_EQ(t.entered(k).alive(), e.alive);
      }
      ASSERT_EQ(static_cast<uint32_t>(t.updated_size()), v.updated.size());
      for (int k = 0; k < t.updated_size(); ++k) {
        const interest::UpdateRef& ref = v.updated[static_cast<size_t>(k)];
        const pb::EntityUpdate& u = t.updated(k);
        EXPECT_EQ(u.id(), ToRaw(o.states[ref.slot].id));
        EXPECT_EQ(u.has_x(), (ref.fields & zone::kChangedPosition) != 0);
        if (u.has_x()) {
          EXPECT_EQ(u.x(), ToCentimetres(o.states[ref.slot].position.x));
        }
        EXPECT_EQ(u.has_hp(), (ref.fields & zone::kChangedHp) != 0);
        if (u.has_hp()) {
          EXPECT_EQ(u.hp(), o.states[ref.slot].hp);
        }
        update_bytes += enc.UpdateBytes(ref.slot, ref.fields);
        ++updates;
      }
      // Moves: ids as gaps from the previous id, then dx, dy per id.
      ExpectDeltas(o, v.moved, t.moved_ids(), t.moved_deltas());
      ASSERT_EQ(static_cast<uint32_t>(t.left_size()), v.left.size());
      ASSERT_EQ(static_cast<uint32_t>(t.hits_size()), v.hits.size());
    }
  }
  ASSERT_GT(updates, 20u);
  const double per_update = static_cast<double>(update_bytes) / static_cast<double>(updates);
  std::printf("bytes per absolute entity update (in the frame): %.1f\n", per_update);
  EXPECT_LT(per_update, 20.0);
}

// v9: a walker that changes direction is sent as a turn (delta and facing) to a client that
// speaks kTurnedVersion, and as an absolute update of x, y and facing to an older one; both land
// on the entity's true position and facing.
TEST(TickEncoder, TurnsAreDeltasWithTheFacingOrUpdatesForOlderClients) {
  zone::WorldConfig c = zone::testing::TestWorld();
  zone::World w(c);
  std::vector<EntityId> players(8);
  for (EntityId& p : players) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  TickEncoder enc;
  Rng rng(3);
  size_t turned = 0, as_updates = 0;
  std::vector<ViewFraming> framing;
  for (uint32_t tick = 1; tick <= 80; ++tick) {
    std::vector<zone::MoveInput> moves;
    for (const EntityId p : players) {
      if (tick % 3 == 0) moves.push_back({p, tick, FromAngle(rng.Range(-kPi, kPi))});
    }
    w.Tick(moves, {});
    const zone::ZoneTickOutput& o = w.output(0);
    framing.assign(o.views.size(), {});
    for (size_t i = 0; i < framing.size(); ++i) framing[i].turned = i % 2 == 0;
    enc.Encode(o, framing);
    for (size_t i = 0; i < o.views.size(); ++i) {
      const zone::PlayerView& v = o.views[i];
      const pb::TickUpdate t = ParseFrame(enc.Frame(i)).tick();
      if (framing[i].turned) {
        ASSERT_EQ(static_cast<size_t>(t.updated_size()), v.updated.size());
        ExpectDeltas(o, v.turned, t.turned_ids(), t.turned_deltas());
        ASSERT_EQ(static_cast<size_t>(t.turned_facings_size()), v.turned.size());
        for (int k = 0; k < t.turned_facings_size(); ++k) {
          const uint32_t slot = v.turned[static_cast<size_t>(k)];
          const zone::EntityState& e = o.states[slot];
          EXPECT_EQ(t.turned_facings(k), ToTurn16(e.facing));
          const size_t facing_bytes = ToTurn16(e.facing) < 128     ? 1
                                      : ToTurn16(e.facing) < 16384 ? 2
                                                                   : 3;
          EXPECT_EQ(enc.TurnedBytes(slot, 0), enc.MovedBytes(slot, 0) + facing_bytes);
          ++turned;
        }
        continue;
      }
      EXPECT_EQ(t.turned_ids_size() + t.turned_deltas_size() + t.turned_facings_size(), 0);
      ASSERT_EQ(static_cast<size_t>(t.updated_size()), v.updated.size() + v.turned.size());
      for (size_t k = 0; k < v.turned.size(); ++k) {  // after the view's own updates
        const pb::EntityUpdate& u = t.updated(static_cast<int>(v.updated.size() + k));
        const zone::EntityState& e = o.states[v.turned[k]];
        EXPECT_EQ(u.id(), ToRaw(e.id));
        ASSERT_TRUE(u.has_x() && u.has_y() && u.has_facing());
        EXPECT_FALSE(u.has_hp() || u.has_alive());
        EXPECT_EQ(u.x(), ToCentimetres(e.position.x));
        EXPECT_EQ(u.y(), ToCentimetres(e.position.y));
        EXPECT_EQ(u.facing(), ToTurn16(e.facing));
        ++as_updates;
      }
    }
  }
  EXPECT_GT(turned, 50u);
  EXPECT_GT(as_updates, 50u);
}

// Bytes per client per second in a crowd: a player who sees 100 entities that all move, with
// an interest budget large enough to send all of them every tick (protocol 2: moves as deltas).
TEST(TickEncoder, BytesPerClientInACrowdOfOneHundredMovingEntities) {
  zone::WorldConfig c = zone::testing::TestWorld();
  c.zones[0].view_radius = 60;  // the whole 100 x 100 zone is in view
  c.zones[0].interest.near_max = 128;
  zone::World w(c);
  std::vector<EntityId> crowd(101);
  for (EntityId& p : crowd) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  TickEncoder enc;
  Rng rng(3);
  size_t bytes = 0, ticks = 0, moved = 0, moved_bytes = 0;
  std::map<size_t, size_t> histogram;  // bytes of one moved or turned entry -> count
  for (int tick = 0; tick < 300; ++tick) {
    std::vector<zone::MoveInput> moves;  // everyone but the viewer (crowd[0]) keeps walking
    for (size_t i = 1; i < crowd.size(); ++i) {
      if (tick % 20 == 0) {
        moves.push_back(
            {crowd[i], static_cast<uint32_t>(tick + 1), FromAngle(rng.Range(-kPi, kPi))});
      }
    }
    w.Tick(moves, {});
    enc.Encode(w.output(0));
    if (tick < 10) continue;  // everyone has entered
    size_t viewer = 0;
    while (w.output(0).views[viewer].player != crowd[0]) ++viewer;
    const zone::PlayerView& v = w.output(0).views[viewer];
    bytes += enc.Frame(viewer).size();
    uint32_t prev = 0;
    for (const uint32_t slot : v.moved) {
      const size_t b = enc.MovedBytes(slot, prev);
      prev = ToRaw(w.output(0).states[slot].id);
      ++histogram[b];
      moved_bytes += b;
    }
    moved_bytes += v.moved.empty() ? 0 : 6;  // two tags and two lengths, shared by the tick
    moved += v.moved.size();
    prev = 0;
    for (const uint32_t slot : v.turned) {  // v9: those that changed direction, with the facing
      const size_t b = enc.TurnedBytes(slot, prev);
      prev = ToRaw(w.output(0).states[slot].id);
      ++histogram[b];
      moved_bytes += b;
    }
    moved_bytes += v.turned.empty() ? 0 : 9;  // three tags and three lengths
    moved += v.turned.size();
    ++ticks;
  }
  const double per_tick = static_cast<double>(bytes) / static_cast<double>(ticks);
  const double per_move = static_cast<double>(moved_bytes) / static_cast<double>(moved);
  std::printf(
      "crowd of 100: %.0f moving per tick, %.0f bytes per tick, %.1f KB/s at 20 Hz, "
      "%.2f bytes per moving entity\n",
      static_cast<double>(moved) / static_cast<double>(ticks), per_tick, per_tick * 20 / 1024,
      per_move);
  for (const auto& [b, n] : histogram) std::printf("  %zu bytes: %zu moves\n", b, n);
  EXPECT_GT(moved, ticks * 90) << "the crowd really moves, and moves go out as deltas";
  EXPECT_LE(per_move, 6.0) << "protocol 2 goal: at most 6 bytes per moving entity";
  EXPECT_LT(per_tick, 100 * 8.0);
}

TEST(ServerFrames, ControlMessages) {
  // A 1 km "bench" zone, view radius 100; players: radius 0.5, 100 hp, 6 m/s, sword and whirl.
  zone::WorldConfig world = zone::testing::CrowdWorld({.side = 1024});
  world.player.skills.push_back(9);  // no such skill: left out of the welcome
  const zone::ZoneConfig& z = world.zones[0];
  const zone::PlayerSnapshot state{.zone = 1,
                                   .position = {12.5f, 3},
                                   .facing = kPi / 2,
                                   .hp = 80,
                                   .cooldowns = {{{.skill = 1, .remaining_ms = 350}}},
                                   .num_cooldowns = 1};
  const pb::ServerMessage w = ParseFrame(WelcomeFrame({.player = MakeEntityId(5, 1),
                                                       .name = "Aria",
                                                       .state = &state,
                                                       .zone = &z,
                                                       .world = &world,
                                                       .server_tick = 77,
                                                       .server_time_ms = 1'700'000'000'000}));
  EXPECT_EQ(w.welcome().x(), 1250);
  EXPECT_EQ(w.welcome().entity_id(), ToRaw(MakeEntityId(5, 1)));
  EXPECT_EQ(w.welcome().zone_max_x(), 102400);
  EXPECT_EQ(w.welcome().tick_rate(), 20u);
  EXPECT_EQ(w.welcome().player_name(), "Aria");
  EXPECT_EQ(w.welcome().server_time_ms(), 1'700'000'000'000u);
  const pb::CharacterInfo& you = w.welcome().you();
  EXPECT_EQ(you.hp(), 80);
  EXPECT_EQ(you.max_hp(), 100);
  EXPECT_EQ(you.radius(), 50u);
  EXPECT_EQ(you.speed(), 600u);
  EXPECT_EQ(you.view_radius(), 10000u);
  EXPECT_EQ(you.respawn_ms(), 5000u);
  ASSERT_EQ(you.skills_size(), 2) << "an unknown skill id in the template is left out";
  EXPECT_EQ(you.skills(1).name(), "whirl");
  EXPECT_EQ(you.skills(0).name(), "sword");
  EXPECT_EQ(you.skills(0).shape(), pb::SKILL_SHAPE_ARC);
  EXPECT_EQ(you.skills(0).range(), 250u);
  EXPECT_EQ(you.skills(0).half_angle(), ToTurn16(kPi / 3));
  EXPECT_EQ(you.skills(0).cooldown_ms(), 500u);
  EXPECT_EQ(you.skills(0).damage(), 12);
  EXPECT_EQ(you.skills(0).max_targets(), 5u);
  EXPECT_EQ(you.skills(0).ready_in_ms(), 350u) << "a character saved mid-cooldown";
  EXPECT_EQ(w.welcome().facing(), 16384u);
  EXPECT_FALSE(you.dead());
  ASSERT_EQ(w.welcome().monster_templates_size(), 1);
  EXPECT_EQ(w.welcome().monster_templates(0).name(), "wolf");
  EXPECT_EQ(w.welcome().monster_templates(0).radius(), 60u);
  const pb::ServerMessage pong = ParseFrame(PongFrame(42, 9, 1234567));
  EXPECT_EQ(pong.pong().client_time(), 42u);
  EXPECT_EQ(pong.pong().server_tick(), 9u);
  EXPECT_EQ(pong.pong().server_time_ms(), 1234567u);
  const pb::ServerMessage e = ParseFrame(ErrorFrame(ErrorCode::kProtocolVersion, "want 1"));
  EXPECT_EQ(e.error().code(), pb::ERROR_CODE_PROTOCOL_VERSION);
  EXPECT_EQ(ParseFrame(KickFrame("shutdown")).kick().reason(), "shutdown");
  EXPECT_EQ(ParseFrame(ErrorFrame(ErrorCode::kAuthFailed, "")).error().code(),
            pb::ERROR_CODE_AUTH_FAILED);
  EXPECT_EQ(ParseFrame(ErrorFrame(ErrorCode::kStorageUnavailable, "")).error().code(),
            pb::ERROR_CODE_STORAGE_UNAVAILABLE);
  EXPECT_EQ(ParseFrame(ZoneChangedFrame(z, {20, 512})).zone_changed().zone_name(), "bench");
  EXPECT_EQ(ParseFrame(ZoneChangedFrame(z, {20, 512})).zone_changed().y(), 51200);
}

}  // namespace
}  // namespace zs::wire
