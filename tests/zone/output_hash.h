// Hashing a tick's outputs for the determinism tests: FNV-1a over every field of ZoneTickOutput
// that can reach a client (states, change bits, each view's full content, events, transfers).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "zone/zone_types.h"

namespace zs::zone::testing {

class Hasher {
 public:
  template <typename T>
  void Add(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>,
                  "hash fields one by one: padding bytes are not deterministic");
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (const unsigned char b : bytes) Mix(b);
  }
  void Add(float v) { Add(std::bit_cast<uint32_t>(v)); }
  void Add(bool v) { Add(static_cast<uint8_t>(v ? 1 : 0)); }
  void Add(const Vec2& v) {
    Add(v.x);
    Add(v.y);
  }
  void Add(std::string_view bytes) {
    Add(bytes.size());
    for (const char c : bytes) Mix(static_cast<unsigned char>(c));
  }
  [[nodiscard]] uint64_t value() const { return h_; }

 private:
  void Mix(unsigned char b) { h_ = (h_ ^ b) * 1099511628211ull; }
  uint64_t h_ = 14695981039346656037ull;
};

inline void HashView(const ZoneTickOutput& o, const PlayerView& v, Hasher* h) {
  h->Add(v.player);
  h->Add(v.self);
  h->Add(v.last_input_seq);
  h->Add(v.entered.size());
  for (const uint32_t s : v.entered) {
    h->Add(s);
    h->Add(o.states[s].id);
  }
  h->Add(v.updated.size());
  for (const interest::UpdateRef& u : v.updated) {
    h->Add(u.slot);
    h->Add(u.fields);
  }
  h->Add(v.moved.size());
  for (const uint32_t s : v.moved) h->Add(s);
  h->Add(v.turned.size());
  for (const uint32_t s : v.turned) h->Add(s);
  h->Add(v.left.size());
  for (const EntityId id : v.left) h->Add(id);
  h->Add(v.hits.size());
  for (const uint32_t e : v.hits) h->Add(e);
  h->Add(v.near_count);
  h->Add(v.known_count);
  h->Add(v.zone_changed);
  h->Add(v.has_crowd);
  if (v.has_crowd) {
    h->Add(v.crowd.center);
    h->Add(v.crowd.cell_size);
    h->Add(v.crowd.grid);
    h->Add(v.crowd.total);
    for (const uint32_t c : v.crowd.counts) h->Add(c);
  }
}

inline void HashOutput(const ZoneTickOutput& o, Hasher* h) {
  h->Add(o.tick);
  h->Add(o.zone);
  h->Add(o.states.size());
  for (size_t s = 0; s < o.states.size(); ++s) {
    const EntityState& e = o.states[s];
    h->Add(e.id);
    h->Add(static_cast<uint8_t>(e.kind));
    h->Add(e.template_id);
    h->Add(e.position);
    h->Add(e.prev_position);
    h->Add(e.facing);
    h->Add(e.radius);
    h->Add(e.hp);
    h->Add(e.max_hp);
    h->Add(e.alive);
    h->Add(o.changed[s]);
  }
  h->Add(o.views.size());
  for (const PlayerView& v : o.views) HashView(o, v, h);
  h->Add(o.events.size());
  for (const HitEvent& ev : o.events) {
    h->Add(ev.attacker);
    h->Add(ev.skill);
    h->Add(ev.origin);
    h->Add(ev.facing);
    h->Add(ev.num_targets);
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const HitTarget& ht = o.targets[ev.first_target + t];
      h->Add(ht.target);
      h->Add(ht.damage);
      h->Add(ht.killed);
    }
  }
  h->Add(o.transfers.size());
  for (const Transfer& t : o.transfers) {
    h->Add(t.player);
    h->Add(t.target_zone);
    h->Add(t.target_position);
  }
  for (const uint32_t r : o.rejected) h->Add(r);
}

}  // namespace zs::zone::testing
