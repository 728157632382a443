// wire::kWireCost, the figures the interest budget counts, against what the TickEncoder really
// writes: a town-sized zone (256 m, the default world's town) with a thousand players walking
// and fighting and two hundred wolves, every entity's update and a crowded viewer's moves
// measured in the encoder's own pieces, and the entries of the first tick's frames as parsed. Each
// figure must be the rounded mean of what it stands for.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "wire/encoder.h"
#include "wire/wire_cost.h"
#include "zone.pb.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::wire {
namespace {

namespace pb = ::zs::zone::v1;

struct Means {
  double moved = 0;   // bytes of a move as a delta, its id gap included
  double turned = 0;  // bytes of a move as a delta with the facing (a turn), its id gap included
  double update = 0;  // bytes of an update with the position
  double field = 0;   // bytes each further field adds to it
  double enter = 0;   // bytes of an entity's entry, with its tag and length, but its name's
};

// Bytes of an entry in TickUpdate.entered: tag, length, body.
double EntryBytes(const pb::EntityEnter& e) {
  const auto size = static_cast<double>(e.ByteSizeLong());
  return 1 + (size < 128 ? 1 : 2) + size;
}

// The `entered` items of a tick frame (length prefix, then a ServerMessage): their bytes but
// their names' and count, added to *bytes and *count; *named counts those with a name. Each name
// adds exactly kWireCost.name_bytes beyond its own bytes (WireCost::EnterBytes).
void AddEntries(const std::string& frame, double* bytes, size_t* count, size_t* named) {
  size_t prefix = 0;
  while (prefix < frame.size() && (static_cast<uint8_t>(frame[prefix]) & 0x80) != 0) ++prefix;
  ++prefix;
  pb::ServerMessage m;
  ASSERT_TRUE(m.ParseFromArray(frame.data() + prefix, static_cast<int>(frame.size() - prefix)));
  for (const pb::EntityEnter& e : m.tick().entered()) {
    pb::EntityEnter nameless = e;
    nameless.clear_name();
    if (!e.name().empty()) {
      ++*named;
      EXPECT_EQ(EntryBytes(e) - EntryBytes(nameless),
                static_cast<double>(kWireCost.EnterBytes(static_cast<uint32_t>(e.name().size())) -
                                    kWireCost.EnterBytes(0)))
          << e.name();
    }
    *bytes += EntryBytes(nameless);
    ++*count;
  }
}

Means MeasureCrowd() {
  const zone::testing::Crowd town{.monsters = 200, .side = 256, .square_side = 64};
  zone::World w(zone::testing::CrowdWorld(town));
  std::vector<EntityId> crowd(1000);
  Rng place(5);
  for (size_t i = 0; i < crowd.size(); ++i) {
    const Aabb a = i % 2 == 0 ? town.square() : town.all();
    const zone::PlayerSnapshot at{
        .zone = 1,
        .position = {place.Range(a.min.x, a.max.x), place.Range(a.min.y, a.max.y)},
        .hp = 100};
    EXPECT_TRUE(w.RestorePlayer(at, &crowd[i], "p" + std::to_string(i)).ok());
  }
  TickEncoder enc;
  Rng rng(11);
  double moved = 0, turned = 0, updates = 0, fields = 0, enters = 0;
  size_t n_turned = 0, n_moved = 0, n_updates = 0, n_fields = 0, n_enters = 0, n_named = 0;
  for (uint32_t tick = 1; tick <= 60; ++tick) {
    std::vector<zone::MoveInput> moves;
    std::vector<zone::SkillInput> skills;
    for (const EntityId p : crowd) {
      if (tick % 20 == 1) moves.push_back({p, tick, FromAngle(rng.Range(-kPi, kPi))});
      if (tick % 10 == 0) skills.push_back({p, tick, 1, 0.5f, {}});  // a sword swing
    }
    w.Tick(moves, skills);
    const zone::ZoneTickOutput& out = w.output(0);
    enc.Encode(out);
    if (tick == 1) {  // everyone enters everyone's view: the first 50 viewers' entries
      for (size_t i = 0; i < 50; ++i) AddEntries(enc.Frame(i), &enters, &n_enters, &n_named);
    }
    if (tick < 10) continue;  // everyone has entered
    const zone::PlayerView& v = out.views[0];
    uint32_t prev = 0;
    for (const uint32_t slot : v.moved) {
      moved += static_cast<double>(enc.MovedBytes(slot, prev));
      prev = ToRaw(out.states[slot].id);
      ++n_moved;
    }
    prev = 0;
    for (const uint32_t slot : v.turned) {
      turned += static_cast<double>(enc.TurnedBytes(slot, prev));
      prev = ToRaw(out.states[slot].id);
      ++n_turned;
    }
    for (uint32_t slot = 0; slot < out.states.size(); ++slot) {
      const size_t with_position = enc.UpdateBytes(slot, zone::kChangedPosition);
      updates += static_cast<double>(with_position);
      ++n_updates;
      for (const uint8_t field : {zone::kChangedFacing, zone::kChangedHp, zone::kChangedAlive}) {
        const auto bits = static_cast<uint8_t>(zone::kChangedPosition | field);
        fields += static_cast<double>(enc.UpdateBytes(slot, bits) - with_position);
        ++n_fields;
      }
    }
  }
  EXPECT_GT(n_moved, 1000u) << "the crowd really moves, and moves go out as deltas";
  EXPECT_GT(n_turned, 50u) << "walkers that change direction go out as turns";
  EXPECT_GT(n_enters, 1000u);
  EXPECT_GT(n_named, 500u) << "players' entries carry their names";
  return {.moved = moved / static_cast<double>(n_moved),
          .turned = turned / static_cast<double>(n_turned),
          .update = updates / static_cast<double>(n_updates),
          .field = fields / static_cast<double>(n_fields),
          .enter = enters / static_cast<double>(n_enters)};
}

TEST(WireCost, EachFigureIsWhatTheEncoderWritesOnAverage) {
  const Means m = MeasureCrowd();
  std::printf("mean bytes: move %.2f, turn %.2f, update %.2f, further field %.2f, entry %.2f\n",
              m.moved, m.turned, m.update, m.field, m.enter);
  EXPECT_EQ(kWireCost.moved_bytes, std::lround(m.moved));
  EXPECT_EQ(kWireCost.turned_bytes, std::lround(m.turned));
  EXPECT_EQ(kWireCost.update_bytes, std::lround(m.update));
  EXPECT_EQ(kWireCost.field_bytes, std::lround(m.field));
  EXPECT_EQ(kWireCost.enter_bytes, std::lround(m.enter));
}

}  // namespace
}  // namespace zs::wire
