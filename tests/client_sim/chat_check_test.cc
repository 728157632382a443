// ChatCheck finds each way a `say` can go wrong, and nothing when it went right.
#include "client_sim/chat_check.h"

#include <gtest/gtest.h>

namespace zs::sim {
namespace {

// A listener with radius 50 cm that stood at (x, 0) in zone 1 for ticks 10..12.
Listener At(int32_t x) {
  Listener l;
  l.radius = 50;
  for (uint64_t t = 10; t <= 12; ++t) l.places.push_back({.tick = t, .zone = 1, .x = x, .y = 0});
  return l;
}

SaidLine Line(const std::string& token, uint64_t tick = 11) {
  return {.token = token, .tick = tick, .zone = 1, .x = 0, .y = 0, .chat_radius = 1000};
}

TEST(ChatCheck, HeardWithinAndNotBeyondIsClean) {
  ChatCheck c;
  c.Said(Line("a"));
  Listener near = At(1000);  // exactly at the radius: its hitbox overlaps by 50 cm
  near.heard["a"] = 11;
  c.AddListener(near);
  c.AddListener(At(1100));  // 1100 > 1000 + 50: must not hear, and did not
  EXPECT_TRUE(c.Check().empty());
  EXPECT_EQ(c.lines(), 1u);
}

TEST(ChatCheck, EachKindOfWrongIsCounted) {
  ChatCheck c;
  c.Said(Line("missed"));
  c.Said(Line("too_far"));
  c.Said(Line("late"));
  c.AddListener(At(500));  // within: should have heard "missed", did not
  Listener far = At(2000);
  far.heard["too_far"] = 11;
  c.AddListener(far);
  Listener late = At(0);
  late.heard["missed"] = 11;
  late.heard["too_far"] = 11;
  late.heard["late"] = 12;  // said in 11, arrived in 12
  c.AddListener(late);
  const auto v = c.Check();
  EXPECT_EQ(v.at("say_missed"), 3u);  // At(500) missed all three (500 < 1050)
  EXPECT_EQ(v.at("say_too_far"), 1u);
  EXPECT_EQ(v.at("say_wrong_tick"), 1u);
}

TEST(ChatCheck, AListenerElsewhereThatTickIsNotJudged) {
  ChatCheck c;
  c.Said(Line("a", 20));  // a tick the listeners have no record of (e.g. a dropped frame)
  c.AddListener(At(0));
  Listener other_zone = At(0);
  for (auto& p : other_zone.places) p.zone = 2;
  c.Said(Line("b"));
  c.AddListener(other_zone);
  const auto v = c.Check();
  EXPECT_EQ(v.count("say_missed"), 1u) << "At(0) missed b, the other zone's listener is not judged";
  EXPECT_EQ(v.at("say_missed"), 1u);
}

}  // namespace
}  // namespace zs::sim
