// The golden streams (tests/golden/README.md) replayed through the C++ client library: after
// every recorded ServerMessage, the EntityStore must hold exactly the recorded snapshot and the
// message must raise exactly the recorded events. A StoreListener fed alongside must end each
// step knowing what the store knows (enter, change and leave in step with the store). The
// streams must be of this protocol version: a protocol change re-records them
// (scripts/record-golden.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "golden/golden_json.h"
#include "wire/protocol.h"
#include "zone.pb.h"

namespace zs::golden {
namespace {

namespace fs = std::filesystem;
namespace pb = zone::v1;
using nlohmann::json;

json Load(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::vector<fs::path> Streams() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(ZS_GOLDEN_DIR)) {
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Keeps its own map from the listener's calls alone.
class Mirror : public client::StoreListener {
 public:
  void OnEnter(const client::Entity& e) override {
    EXPECT_FALSE(known_.contains(e.id)) << "entered twice without a leave: " << e.id;
    known_[e.id] = e.x;
  }
  void OnChange(const client::Entity& e) override {
    EXPECT_TRUE(known_.contains(e.id)) << "changed before it entered: " << e.id;
    known_[e.id] = e.x;
  }
  void OnLeave(const client::Entity& e) override {
    EXPECT_EQ(known_.erase(e.id), 1U) << "left without entering: " << e.id;
  }
  [[nodiscard]] const std::map<uint32_t, int32_t>& known() const { return known_; }

 private:
  std::map<uint32_t, int32_t> known_;  // id -> x as last heard
};

TEST(GoldenStreams, EveryStreamNamedInTheReadmeIsThereAndOfThisProtocol) {
  std::set<std::string> names;
  for (const fs::path& p : Streams()) {
    const json stream = Load(p);
    EXPECT_EQ(stream.at("format"), kFormat) << p;
    EXPECT_EQ(stream.at("protocol_version"), wire::kProtocolVersion)
        << p << ": recorded for another protocol version; re-record with "
        << "scripts/record-golden.sh";
    EXPECT_EQ(stream.at("name"), p.stem().string());
    EXPECT_FALSE(stream.at("steps").empty()) << p;
    names.insert(p.stem().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"basics", "resync", "handoff"}));
}

TEST(GoldenStreams, TheClientLibraryReproducesEveryStep) {
  for (const fs::path& p : Streams()) {
    SCOPED_TRACE(p.filename().string());
    const json stream = Load(p);
    client::EntityStore store;
    Mirror mirror;
    store.set_listener(&mirror);
    int step_index = 0;
    for (const json& step : stream.at("steps")) {
      SCOPED_TRACE("step " + std::to_string(step_index++));
      pb::ServerMessage message;
      ASSERT_TRUE(message.ParseFromString(FromBase64(step.at("message").get<std::string>())));
      store.Apply(message);
      std::vector<client::Event> events;
      client::CollectEvents(message, &events);
      ASSERT_EQ(StoreJson(store), step.at("store"));
      ASSERT_EQ(EventsJson(events), step.at("events"));
      std::map<uint32_t, int32_t> expected;
      for (const auto& [id, e] : store.entities()) expected[id] = e.x;
      ASSERT_EQ(mirror.known(), expected);
    }
  }
}

}  // namespace
}  // namespace zs::golden
