// A second login of an online character takes it over (host/character_keeper.h): the old
// connection is kicked, the new one gets a Welcome and the character's ticks. Inputs the old
// connection sent in the tick of the takeover were that connection's: the new client must not
// be told their results (client_sim counts such an answer as `result_unknown_input`;
// scripts/soak.sh's churning bots found it).
//
// The runner is stepped by hand (ZoneRunner::Step) so that the old connection's skill and the
// new login land in one tick, which real sockets cannot promise; the sinks keep the frames the
// runner hands to a session, as the session's socket would get them.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host/metrics.h"
#include "host/session_sink.h"
#include "host/zone_runner.h"
#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"
#include "zone/test_world.h"

namespace zs::host {
namespace {

namespace pb = ::zs::zone::v1;  // the generated protocol types
using zone::testing::kSword;

// A session's end of the runner: every frame it was handed, decoded.
class DecodingSink final : public SessionSink {
 public:
  void DeliverFrame(std::string_view frame, FrameKind /*kind*/) override { Keep(frame); }
  void CloseWith(std::string last_frame, CloseReason reason) override {
    if (!last_frame.empty()) Keep(last_frame);
    closed_ = reason;
  }
  [[nodiscard]] uint32_t ProtocolVersion() const override { return wire::kProtocolVersion; }

  [[nodiscard]] const std::vector<pb::ServerMessage>& messages() const { return messages_; }
  [[nodiscard]] std::optional<CloseReason> closed() const { return closed_; }
  [[nodiscard]] bool welcomed() const {
    for (const auto& m : messages_) {
      if (m.has_welcome()) return true;
    }
    return false;
  }
  // The results of every TickUpdate it got for a skill with this seq.
  [[nodiscard]] size_t SkillResults(uint32_t seq) const {
    size_t n = 0;
    for (const auto& m : messages_) {
      for (const auto& r : m.tick().results()) {
        n += r.kind() == pb::INPUT_KIND_SKILL && r.seq() == seq ? 1 : 0;
      }
    }
    return n;
  }

 private:
  void Keep(std::string_view frame) {
    size_t at = 0;
    uint64_t size = 0;
    ASSERT_TRUE(wire::ReadVarint(frame, &at, &size));
    ASSERT_EQ(at + size, frame.size()) << "one whole frame";
    pb::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(std::string(frame.substr(at))));
    messages_.push_back(std::move(m));
  }

  std::vector<pb::ServerMessage> messages_;
  std::optional<CloseReason> closed_;
};

ClientInput Sword(uint32_t seq) {
  return zone::SkillInput{.seq = seq, .skill = kSword, .facing = 0, .target = {}};
}

class Takeover : public ::testing::Test {
 protected:
  Metrics metrics_;
  ZoneRunner runner_{zone::testing::TestWorld(), &metrics_};
};

TEST_F(Takeover, AnInputOfTheOldConnectionInTheSameTickIsNotAnsweredToTheNewOne) {
  const auto first = std::make_shared<DecodingSink>();
  runner_.Join(SessionKey::Local(1), first, {.name = "Aria"});
  runner_.Step();
  ASSERT_TRUE(first->welcomed());
  // The control: the runner answers a skill to the connection that sent it.
  runner_.Submit(SessionKey::Local(1), Sword(6));
  runner_.Step();
  runner_.Step();
  ASSERT_EQ(first->SkillResults(6), 1u) << "the sender is told its skill's outcome";

  // In one tick: the old connection's skill and a refusal of its input, a login of the same
  // character, then the new connection's own skill.
  runner_.Submit(SessionKey::Local(1), Sword(7));
  runner_.Submit(SessionKey::Local(1), RefusedInput{.kind = zone::InputKind::kSkill, .seq = 8});
  const auto second = std::make_shared<DecodingSink>();
  runner_.Join(SessionKey::Local(2), second, {.name = "Aria"});
  runner_.Submit(SessionKey::Local(2), Sword(1));
  for (int i = 0; i < 3; ++i) runner_.Step();

  EXPECT_EQ(first->closed(), CloseReason::kLoggedInElsewhere);
  ASSERT_TRUE(second->welcomed());
  EXPECT_EQ(second->SkillResults(7), 0u) << "seq 7 was the old connection's input";
  EXPECT_EQ(second->SkillResults(8), 0u) << "... and so was the refused seq 8";
  EXPECT_EQ(second->SkillResults(1), 1u) << "the new connection's own skill, in the same tick";
}

}  // namespace
}  // namespace zs::host
