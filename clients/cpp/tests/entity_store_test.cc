// The C++ client library's EntityStore on crafted messages: what the golden streams cannot show
// (a hostile or broken stream must not crash it or corrupt what it knows) and its listener.
#include "zs_client/entity_store.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "zone.pb.h"

namespace zs::client {
namespace {

namespace pb = zone::v1;

pb::ServerMessage Welcome() {
  pb::ServerMessage m;
  auto* w = m.mutable_welcome();
  w->set_entity_id(1);
  w->set_zone_id(7);
  w->set_x(100);
  w->set_y(200);
  w->mutable_you()->set_hp(50);
  return m;
}

pb::ServerMessage Enter(uint32_t id, int32_t x) {
  pb::ServerMessage m;
  m.mutable_tick()->set_tick(1);
  auto* e = m.mutable_tick()->add_entered();
  e->set_id(id);
  e->set_x(x);
  e->set_alive(true);
  return m;
}

class Recorder : public StoreListener {
 public:
  void OnEnter(const Entity& e) override { heard.push_back("enter " + std::to_string(e.id)); }
  void OnChange(const Entity& e) override { heard.push_back("change " + std::to_string(e.id)); }
  void OnLeave(const Entity& e) override { heard.push_back("leave " + std::to_string(e.id)); }
  std::vector<std::string> heard;
};

TEST(ClientEntityStore, DeltaListsShorterThanTheirIdsApplyOnlyThePairsPresent) {
  EntityStore store;
  store.Apply(Welcome());
  store.Apply(Enter(5, 10));
  store.Apply(Enter(9, 20));
  pb::ServerMessage m;
  m.mutable_tick()->set_tick(2);
  m.mutable_tick()->add_moved_ids(5);
  m.mutable_tick()->add_moved_ids(4);  // id 9, but no deltas for it
  m.mutable_tick()->add_moved_deltas(3);
  m.mutable_tick()->add_moved_deltas(4);
  m.mutable_tick()->add_moved_deltas(99);  // half a pair
  m.mutable_tick()->add_turned_ids(9);     // a turn without its facing
  m.mutable_tick()->add_turned_deltas(1);
  m.mutable_tick()->add_turned_deltas(1);
  store.Apply(m);
  EXPECT_EQ(store.Find(5)->x, 13);
  EXPECT_EQ(store.Find(5)->y, 4);
  EXPECT_EQ(store.Find(9)->x, 20) << "no complete move or turn for it";
  EXPECT_EQ(store.tick(), 2U);
}

TEST(ClientEntityStore, DeltasThatOverflowWrapAndUnknownIdsAreIgnored) {
  EntityStore store;
  store.Apply(Welcome());
  store.Apply(Enter(5, INT32_MAX));
  pb::ServerMessage m;
  m.mutable_tick()->add_moved_ids(5);
  m.mutable_tick()->add_moved_deltas(1);
  m.mutable_tick()->add_moved_deltas(0);
  m.mutable_tick()->add_moved_ids(1000);  // id 1005: never entered
  m.mutable_tick()->add_moved_deltas(1);
  m.mutable_tick()->add_moved_deltas(1);
  auto* u = m.mutable_tick()->add_updated();
  u->set_id(77);
  u->set_hp(3);
  store.Apply(m);
  EXPECT_EQ(store.Find(5)->x, INT32_MIN);
  EXPECT_EQ(store.entities().size(), 1U);
}

TEST(ClientEntityStore, TheListenerHearsEnterChangeLeaveAndEveryOneForgottenByAResync) {
  EntityStore store;
  Recorder heard;
  store.set_listener(&heard);
  store.Apply(Welcome());
  store.Apply(Enter(5, 10));
  store.Apply(Enter(3, 10));
  store.Apply(Enter(5, 11));  // entered again: replaced
  pb::ServerMessage hp;
  auto* u = hp.mutable_tick()->add_updated();
  u->set_id(3);
  u->set_hp(1);
  store.Apply(hp);
  pb::ServerMessage resync;
  resync.mutable_tick()->set_resync(true);
  resync.mutable_tick()->add_entered()->set_id(8);
  store.Apply(resync);
  EXPECT_EQ(heard.heard, (std::vector<std::string>{"enter 5", "enter 3", "leave 5", "enter 5",
                                                   "change 3", "leave 3", "leave 5", "enter 8"}));
  store.Apply(Welcome());
  EXPECT_EQ(heard.heard.back(), "leave 8") << "a new Welcome forgets what the store knew";
  EXPECT_TRUE(store.entities().empty());
  EXPECT_EQ(store.self()->hp, 50);
}

}  // namespace
}  // namespace zs::client
