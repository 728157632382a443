// Random server messages for the client_sim tests: every field a TickUpdate can carry, the ones
// WireScan reads with and without presence, at the extremes of their types as well as at random.
// Deterministic: mt19937_64 is fully specified, so a seed gives the same messages everywhere.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "zone.pb.h"

namespace zs::sim {

class MessageGen {
 public:
  explicit MessageGen(uint64_t seed) : rng_(seed) {}

  uint64_t Bits() { return rng_(); }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool Coin() { return (rng_() & 1) != 0; }
  bool OneIn(uint32_t n) { return Below(n) == 0; }

  // Values of every magnitude (so every varint length), the extremes included.
  uint64_t U64() {
    switch (Below(6)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<uint64_t>::max();
      default:
        return rng_() >> Below(64);
    }
  }
  uint32_t U32() {
    switch (Below(6)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<uint32_t>::max();
      default:
        return static_cast<uint32_t>(rng_()) >> Below(32);
    }
  }
  int32_t I32() {
    switch (Below(8)) {
      case 0:
        return std::numeric_limits<int32_t>::min();
      case 1:
        return std::numeric_limits<int32_t>::max();
      case 2:
        return 0;
      default: {
        const uint32_t magnitude = (static_cast<uint32_t>(rng_()) >> 1) >> Below(32);  // < 2^31
        return Coin() ? static_cast<int32_t>(magnitude) : -static_cast<int32_t>(magnitude);
      }
    }
  }
  std::string Bytes(uint32_t max_len) {
    std::string s(Below(max_len + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng_());
    return s;
  }
  // For proto3 `string` fields, which must be UTF-8.
  std::string Text(uint32_t max_len) {
    std::string s(Below(max_len + 1), ' ');
    for (char& c : s) c = static_cast<char>(' ' + Below(95));
    return s;
  }

  void FillUpdate(zone::v1::EntityUpdate* u) {
    u->set_id(U32());
    if (Coin()) u->set_x(I32());
    if (Coin()) u->set_y(I32());
    if (OneIn(3)) u->set_facing(U32());
    if (OneIn(3)) u->set_hp(I32());
    if (OneIn(3)) u->set_alive(Coin());
  }

  zone::v1::TickUpdate Tick() {
    zone::v1::TickUpdate t;
    if (Coin()) t.set_tick(U64());
    if (Coin()) t.set_last_input_seq(U32());
    if (Coin()) {
      zone::v1::EntityUpdate* self = t.mutable_self();  // present even when all fields are absent
      if (Coin()) self->set_id(U32());
      if (Coin()) self->set_x(I32());
      if (Coin()) self->set_y(I32());
      if (OneIn(3)) self->set_hp(I32());
      if (OneIn(4)) self->set_alive(Coin());
    }
    for (uint32_t i = Below(5); i > 0; --i) {
      zone::v1::EntityEnter* e = t.add_entered();
      e->set_id(U32());
      e->set_kind(Coin() ? zone::v1::ENTITY_KIND_MONSTER : zone::v1::ENTITY_KIND_PLAYER);
      e->set_template_id(U32());
      e->set_x(I32());
      e->set_y(I32());
      e->set_facing(U32());
      e->set_radius(U32());
      e->set_hp(I32());
      e->set_max_hp(I32());
      e->set_alive(Coin());
    }
    for (uint32_t i = Below(5); i > 0; --i) FillUpdate(t.add_updated());
    for (uint32_t i = Below(5); i > 0; --i) t.add_left(U32());
    for (uint32_t i = Below(3); i > 0; --i) {
      zone::v1::HitEvent* h = t.add_hits();
      h->set_attacker(U32());
      h->set_skill_id(U32());
      h->set_origin_x(I32());
      h->set_origin_y(I32());
      for (uint32_t j = Below(4); j > 0; --j) {
        zone::v1::HitTarget* target = h->add_targets();
        target->set_id(U32());
        target->set_damage(I32());
        target->set_killed(Coin());
      }
    }
    if (Coin()) t.set_resync(true);
    for (uint32_t i = Below(6); i > 0; --i) {
      t.add_moved_ids(U32());
      t.add_moved_deltas(I32());
      t.add_moved_deltas(I32());
    }
    for (uint32_t i = Below(6); i > 0; --i) {
      t.add_turned_ids(U32());
      t.add_turned_deltas(I32());
      t.add_turned_deltas(I32());
      t.add_turned_facings(U32());
    }
    if (Coin()) {
      zone::v1::CrowdSummary* c = t.mutable_crowd();
      if (Coin()) c->set_center_x(I32());
      if (Coin()) c->set_center_y(I32());
      c->set_cell_size(U32());
      const uint32_t grid = Below(5);
      c->set_grid(grid);
      for (uint32_t i = 0; i < grid * grid; ++i) c->add_counts(Below(10));
      if (Coin()) c->set_total(U32());
    }
    return t;
  }

  zone::v1::ServerMessage TickMessage() {
    zone::v1::ServerMessage m;
    *m.mutable_tick() = Tick();
    return m;
  }

  // Any of the other kinds (sometimes present but empty), or none.
  zone::v1::ServerMessage OtherMessage() {
    zone::v1::ServerMessage m;
    const bool empty = OneIn(4);
    switch (Below(6)) {
      case 0: {
        zone::v1::Welcome* w = m.mutable_welcome();
        if (empty) break;
        w->set_protocol_version(2);
        w->set_entity_id(U32());
        w->set_zone_id(U32());
        w->set_zone_name(Text(12));
        w->set_zone_min_x(I32());
        w->set_zone_max_y(I32());
        w->set_server_tick(U64());
        w->set_x(I32());
        break;
      }
      case 1:
        m.mutable_zone_changed();
        if (!empty) m.mutable_zone_changed()->set_zone_id(U32());
        break;
      case 2:
        m.mutable_pong();
        if (!empty) m.mutable_pong()->set_client_time(U64());
        break;
      case 3:
        m.mutable_error();
        if (!empty) m.mutable_error()->set_message(Text(20));
        break;
      case 4:
        m.mutable_kick();
        if (!empty) m.mutable_kick()->set_reason(Text(20));
        break;
      default:
        break;  // no kind at all
    }
    return m;
  }

  // Three ticks to one other message, like a live connection.
  zone::v1::ServerMessage Message() { return OneIn(4) ? OtherMessage() : TickMessage(); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace zs::sim
