// A client model for the interest tests: what one client knows, built only from the views it
// is sent (PlayerView after World::Tick), positions in integer centimetres exactly as the wire
// carries them, with the protocol's own rules checked on every view (Client::Apply).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "interest/interest.h"
#include "zone/interest_oracle.h"
#include "zone/zone_types.h"

namespace zs::zone::testing {

// What one client knows, from its views alone.
struct ClientEntity {
  int32_t x = 0;  // centimetres
  int32_t y = 0;
  float facing = 0;
  int32_t hp = 0;
  bool alive = false;
};

struct ClientStats {
  size_t entered = 0, updated = 0, moved = 0, turned = 0, left = 0, hits = 0, zone_changes = 0;
  size_t positions_checked = 0;
  size_t near_checked = 0;  // near-tier entities found exactly up to date
};

class Client {
 public:
  // The client lost its state (resync): the next view's `entered` is everything it knows.
  void Reset() { known_.clear(); }
  [[nodiscard]] const std::map<uint32_t, ClientEntity>& known() const { return known_; }
  [[nodiscard]] std::set<uint32_t> KnownIds() const {
    std::set<uint32_t> ids;
    for (const auto& [raw, e] : known_) ids.insert(raw);
    return ids;
  }

  // Applies one view, checking the protocol: left/updated/moved/turned name known entities,
  // entered names unknown ones, nothing twice, moved and turned each ascending and disjoint from
  // each other and from updated, a zone change leaves everything, hits are exactly the events by or
  // on the viewer or an entity of its near tier (what happens among the mid tier reaches it as hp
  // and alive fields), and every position sent (absolute or as a delta from the previous position)
  // lands on the entity's true position in centimetres. `policy_known` (the policy's record after
  // the view) must match, and its near tier must be exactly up to date on the client.
  ::testing::AssertionResult Apply(const ZoneTickOutput& o, const PlayerView& v,
                                   const std::vector<interest::KnownEntity>& policy_known,
                                   ClientStats* st) {
    using ::testing::AssertionFailure;
    if (v.self >= o.states.size() || o.states[v.self].id != v.player) {
      return AssertionFailure() << "self slot is not the viewer";
    }
    const std::set<uint32_t> before = KnownIds();
    std::set<uint32_t> left, touched, positioned;
    for (const EntityId id : v.left) {
      if (known_.erase(ToRaw(id)) != 1) return AssertionFailure() << "left unknown " << Raw(id);
      left.insert(ToRaw(id));
      ++st->left;
    }
    if (v.zone_changed) {
      ++st->zone_changes;
      if (!known_.empty()) return AssertionFailure() << "zone changed without leaving everything";
    }
    for (const interest::UpdateRef& u : v.updated) {
      const EntityState& e = o.states[u.slot];
      const uint32_t raw = ToRaw(e.id);
      if (before.count(raw) == 0 || left.count(raw) != 0) {
        return AssertionFailure() << "update for unknown " << raw;
      }
      if (!touched.insert(raw).second) return AssertionFailure() << "updated twice " << raw;
      if (u.fields == 0 || u.fields >= 16) return AssertionFailure() << "bad fields " << raw;
      ClientEntity& c = known_[raw];
      if (u.fields & kChangedPosition) {
        c.x = Cm(e.position.x);
        c.y = Cm(e.position.y);
        positioned.insert(raw);
      }
      if (u.fields & kChangedFacing) c.facing = e.facing;
      if (u.fields & kChangedHp) c.hp = e.hp;
      if (u.fields & kChangedAlive) c.alive = e.alive;
      ++st->updated;
    }
    // The delta lists: `moved` (a move only) and `turned` (a move and the new facing).
    const auto apply_deltas = [&](const std::vector<uint32_t>& slots,
                                  bool turned) -> ::testing::AssertionResult {
      const char* what = turned ? "turned" : "moved";
      uint32_t prev = 0;
      for (size_t i = 0; i < slots.size(); ++i) {
        const EntityState& e = o.states[slots[i]];
        const uint32_t raw = ToRaw(e.id);
        if (i > 0 && raw <= prev) return AssertionFailure() << what << " not ascending at " << raw;
        prev = raw;
        if (before.count(raw) == 0 || left.count(raw) != 0) {
          return AssertionFailure() << what << " for unknown " << raw;
        }
        if (!touched.insert(raw).second) return AssertionFailure() << what << " twice " << raw;
        if ((o.changed[slots[i]] & kChangedPosition) == 0) {
          return AssertionFailure() << what << " " << raw << " did not move this tick";
        }
        ClientEntity& c = known_[raw];
        c.x += Cm(e.position.x) - Cm(e.prev_position.x);  // the wire's delta
        c.y += Cm(e.position.y) - Cm(e.prev_position.y);
        if (turned) c.facing = e.facing;
        positioned.insert(raw);
        ++(turned ? st->turned : st->moved);
      }
      return ::testing::AssertionSuccess();
    };
    if (auto r = apply_deltas(v.moved, false); !r) return r;
    if (auto r = apply_deltas(v.turned, true); !r) return r;
    for (const uint32_t s : v.entered) {
      const EntityState& e = o.states[s];
      const uint32_t raw = ToRaw(e.id);
      if (s == v.self) return AssertionFailure() << "the viewer entered its own view";
      if (before.count(raw) != 0 || known_.count(raw) != 0) {
        return AssertionFailure() << "entered while known " << raw;
      }
      known_[raw] = {Cm(e.position.x), Cm(e.position.y), e.facing, e.hp, e.alive};
      positioned.insert(raw);
      ++st->entered;
    }
    const std::unordered_map<uint32_t, uint32_t> slot_of = SlotsOf(o);
    for (const uint32_t raw : positioned) {
      const EntityState& e = o.states[slot_of.at(raw)];
      const ClientEntity& c = known_.at(raw);
      if (c.x != Cm(e.position.x) || c.y != Cm(e.position.y)) {
        return AssertionFailure() << "client has " << raw << " at (" << c.x << ", " << c.y
                                  << ") cm, the server at (" << Cm(e.position.x) << ", "
                                  << Cm(e.position.y) << ")";
      }
      ++st->positions_checked;
    }
    // The policy's record agrees, and the near tier is exactly up to date.
    if (policy_known.size() != known_.size()) {
      return AssertionFailure() << "policy knows " << policy_known.size() << ", client "
                                << known_.size();
    }
    for (const interest::KnownEntity& k : policy_known) {
      const auto it = known_.find(ToRaw(k.id));
      if (it == known_.end()) return AssertionFailure() << "policy knows " << Raw(k.id);
      if (k.tier != interest::Tier::kNear) continue;
      const EntityState& e = o.states[slot_of.at(ToRaw(k.id))];
      const ClientEntity& c = it->second;
      if (c.x != Cm(e.position.x) || c.y != Cm(e.position.y) || c.facing != e.facing ||
          c.hp != e.hp || c.alive != e.alive) {
        return AssertionFailure() << "near-tier " << Raw(k.id) << " is stale on the client";
      }
      ++st->near_checked;
    }
    // Hits: the viewer's own events and those of every entity in its near tier after this view
    // (never of an entity it does not know).
    std::set<uint32_t> near{ToRaw(v.player)};
    for (const interest::KnownEntity& k : policy_known) {
      if (k.tier == interest::Tier::kNear) near.insert(ToRaw(k.id));
    }
    std::vector<uint32_t> want;
    for (uint32_t ev = 0; ev < o.events.size(); ++ev) {
      const HitEvent& h = o.events[ev];
      bool visible = near.count(ToRaw(h.attacker)) != 0;
      for (uint32_t t = 0; t < h.num_targets; ++t) {
        visible = visible || near.count(ToRaw(o.targets[h.first_target + t].target)) != 0;
      }
      if (visible) want.push_back(ev);
    }
    if (v.hits != want) return AssertionFailure() << "hits differ from the visible events";
    st->hits += want.size();
    return ::testing::AssertionSuccess();
  }

 private:
  std::map<uint32_t, ClientEntity> known_;
};

}  // namespace zs::zone::testing
