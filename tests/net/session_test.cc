// Session's output side on a real loopback socket: frames handed to one session from several
// threads at once (as the zone runner's worker pool does) reach the client whole and in each
// thread's order, whether they went straight to the socket or waited in the send queue behind
// a client that stopped reading for a while; and a closed session sends nothing more.
#include "net/session.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "auth/authenticator.h"
#include "host/metrics.h"
#include "host/player_port.h"
#include "net/login_gate.h"
#include "net/session_context.h"
#include "storage/character_record.h"

namespace zs::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// The zones' side of the door: these tests never log in, so it only notes the leave.
class NoZones final : public host::PlayerPort {
 public:
  void Join(uint64_t /*session*/, std::weak_ptr<host::SessionSink> /*sink*/,
            host::LoginIdentity /*who*/) override {}
  void Arrive(uint64_t /*session*/, std::weak_ptr<host::SessionSink> /*sink*/,
              storage::CharacterRecord /*character*/) override {}
  void Leave(uint64_t /*session*/) override { left.fetch_add(1); }
  void Submit(uint64_t /*session*/, host::ClientInput /*input*/) override {}
  [[nodiscard]] uint64_t TickOf(uint64_t /*session*/) const override { return 0; }
  std::atomic<int> left{0};
};

// A frame of the test's own format: [u8 sender][u32 sequence][u16 padding length][padding].
std::string TestFrame(uint8_t sender, uint32_t seq, size_t padding) {
  std::string f(7 + padding, static_cast<char>('a' + sender));
  f[0] = static_cast<char>(sender);
  std::memcpy(f.data() + 1, &seq, sizeof seq);
  const auto pad = static_cast<uint16_t>(padding);
  std::memcpy(f.data() + 5, &pad, sizeof pad);
  return f;
}

// One server-side session on a loopback connection, its I/O on two threads.
class SessionFixture {
 public:
  // `queue_bytes`: the send queue's cap (the default drops nothing); `session_id` sets its
  // TickBatch's phase.
  explicit SessionFixture(size_t queue_bytes = 64 * 1024 * 1024, uint32_t ticks_per_send = 2,
                          uint64_t session_id = 1)
      : limits_{.login_timeout_s = 600,  // these tests never log in
                .send_queue_bytes = queue_bytes,
                .stall_timeout_s = 60,
                .send_queue_delay_s = 60,
                .socket_send_buffer_bytes = 8192,
                .ticks_per_send = ticks_per_send},
        auth_({}),
        gate_(auth_, nullptr, refusals_),
        context_{.limits = limits_,
                 .players = zones_,
                 .login = gate_,
                 .traffic = traffic_,
                 .send_queues = queues_,
                 .allowed_origins = {},
                 .on_closed = [this](const Session&, host::CloseReason) { closed_.store(true); }},
        client_(client_io_) {
    tcp::acceptor acceptor(io_, {asio::ip::make_address("127.0.0.1"), 0});
    client_.connect(acceptor.local_endpoint());
    // A lost frame fails the read after a minute instead of hanging the test.
    const timeval timeout{.tv_sec = 60, .tv_usec = 0};
    ::setsockopt(client_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    tcp::socket accepted(asio::make_strand(io_));
    acceptor.accept(accepted);
    session_ = std::make_shared<Session>(std::move(accepted), session_id, "127.0.0.1", context_);
    session_->Start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~SessionFixture() {
    work_.reset();
    session_->CloseWith("", host::CloseReason::kShutdown);
    session_.reset();
    io_.stop();
    for (std::thread& t : threads_) t.join();
  }
  SessionFixture(const SessionFixture&) = delete;
  SessionFixture& operator=(const SessionFixture&) = delete;

  Session& session() { return *session_; }
  tcp::socket& client() { return client_; }
  [[nodiscard]] bool closed() const { return closed_.load(); }
  host::SendQueueCounters& queues() { return queues_; }

  // Reads one test frame (blocking). False at end of stream.
  bool ReadFrame(uint8_t* sender, uint32_t* seq) {
    std::array<char, 7> head{};
    boost::system::error_code ec;
    asio::read(client_, asio::buffer(head), ec);
    if (ec) return false;
    *sender = static_cast<uint8_t>(head[0]);
    std::memcpy(seq, head.data() + 1, sizeof *seq);
    uint16_t pad = 0;
    std::memcpy(&pad, head.data() + 5, sizeof pad);
    std::string rest(pad, '\0');
    asio::read(client_, asio::buffer(rest), ec);
    if (ec) return false;
    const std::string expected(pad, static_cast<char>('a' + *sender));
    EXPECT_EQ(rest, expected) << "frame " << *seq << " of sender " << int{*sender} << " is whole";
    return true;
  }

 private:
  Limits limits_;
  auth::Authenticator auth_;
  host::ReasonCounts refusals_;
  LoginGate gate_;
  NoZones zones_;
  host::TrafficCounters traffic_;
  host::SendQueueCounters queues_;
  SessionContext context_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  asio::io_context client_io_;
  tcp::socket client_;
  std::shared_ptr<Session> session_;
  std::vector<std::thread> threads_;
  std::atomic<bool> closed_{false};
};

TEST(Session, FramesFromManyThreadsArriveWholeAndInEachThreadsOrder) {
  SessionFixture f;
  constexpr int kSenders = 4;
  constexpr uint32_t kFrames = 2000;
  std::vector<std::jthread> senders;  // joined on every way out of the test
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&f, s] {
      for (uint32_t i = 0; i < kFrames; ++i) {
        // Sizes from 1 byte of padding to a few KB: some fill the kernel's buffer, so later
        // frames queue while the client sleeps below.
        const std::string frame = TestFrame(static_cast<uint8_t>(s), i, (i * 37 + s * 11) % 3000);
        f.session().DeliverFrame(frame, host::FrameKind::kControl);
      }
    });
  }
  // Read nothing until the socket is full and frames wait in the send queue, then read it all.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (f.queues().bytes.value() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(f.queues().bytes.value(), 0) << "the socket filled: later frames were queued";
  std::map<uint8_t, uint32_t> next;
  for (uint32_t got = 0; got < kSenders * kFrames; ++got) {
    uint8_t sender = 0;
    uint32_t seq = 0;
    ASSERT_TRUE(f.ReadFrame(&sender, &seq)) << "after " << got << " frames";
    ASSERT_LT(sender, kSenders);
    ASSERT_EQ(seq, next[sender]) << "sender " << int{sender} << "'s frames in order";
    ++next[sender];
  }
  senders.clear();
  for (int s = 0; s < kSenders; ++s) EXPECT_EQ(next[static_cast<uint8_t>(s)], kFrames);
  EXPECT_EQ(f.queues().overflows.value(), 0u) << "control frames are never dropped";
  // The last write's completion may run just after the client has read its bytes.
  const auto drained = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (f.queues().bytes.value() != 0 && std::chrono::steady_clock::now() < drained) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(f.queues().bytes.value(), 0) << "everything queued was written and released";
}

// Tick frames behind a full socket and a small queue: some are dropped, and after a gap the
// next frame the client sees is a resync tick (here every 50th), never a plain one.
TEST(Session, TicksDroppedBehindAFullSocketResumeOnlyWithAResync) {
  SessionFixture f(32 * 1024);
  constexpr uint32_t kFrames = 3000;  // at least this many are read
  constexpr uint32_t kResyncEvery = 50;
  std::atomic<bool> done{false};
  std::atomic<uint32_t> delivered{0};  // frames handed to the session so far
  // Ticks as fast as it can, then one a millisecond until the reader is done: a resync comes
  // along however long the backlog takes to drain.
  std::jthread sender([&f, &done, &delivered] {
    for (uint32_t i = 0; !done.load(); ++i) {
      const std::string frame = TestFrame(0, i, 200 + (i * 37) % 800);
      f.session().DeliverFrame(
          frame, i % kResyncEvery == 0 ? host::FrameKind::kResyncTick : host::FrameKind::kTick);
      delivered.store(i + 1);
      if (i >= kFrames) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (f.queues().overflows.value() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(f.queues().overflows.value(), 0u) << "the queue filled and ticks were dropped";
  // The kernel's loopback buffers often take all of the first kFrames, so the first drop may
  // come later, while ticks go one a millisecond. It came at or before the frame being delivered
  // now: read past that one, and the gap the drop left is seen.
  const uint32_t read_past = std::max(kFrames, delivered.load() + 1);
  uint32_t last = 0;
  uint32_t gaps = 0;
  for (bool first = true; last <= read_past; first = false) {
    uint8_t sender_id = 0;
    uint32_t seq = 0;
    if (!f.ReadFrame(&sender_id, &seq)) {
      ADD_FAILURE() << "the stream ended after frame " << last;
      break;
    }
    if (!first && seq != last + 1) {
      ++gaps;
      EXPECT_GT(seq, last) << "in order";
      EXPECT_EQ(seq % kResyncEvery, 0u)
          << "after a gap (" << last << " -> " << seq << ") comes a resync tick";
    }
    last = seq;
  }
  done.store(true);
  EXPECT_GT(gaps, 0u) << "read up to " << last << ", past " << read_past;
}

// limits.ticks_per_send 3, phase 0 (session 3): ticks 1 and 2 are held and a control frame
// takes them with it, before it; tick 4 completes the batch (the phase counts ticks only), tick 5
// is held, and a close with no last frame still sends it.
TEST(Session, HeldTicksLeaveBeforeTheNextFrameAndBeforeTheClose) {
  SessionFixture f(64 * 1024 * 1024, 3, 3);
  f.session().DeliverFrame(TestFrame(0, 1, 10), host::FrameKind::kTick);
  f.session().DeliverFrame(TestFrame(0, 2, 10), host::FrameKind::kTick);
  f.session().DeliverFrame(TestFrame(1, 3, 10), host::FrameKind::kControl);
  f.session().DeliverFrame(TestFrame(0, 4, 10), host::FrameKind::kTick);
  f.session().DeliverFrame(TestFrame(0, 5, 10), host::FrameKind::kTick);
  f.session().CloseWith("", host::CloseReason::kShutdown);
  std::vector<uint32_t> order;
  uint8_t sender = 0;
  uint32_t seq = 0;
  while (f.ReadFrame(&sender, &seq)) order.push_back(seq);
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 2, 3, 4, 5}));
}

TEST(Session, AfterCloseWithTheLastFrameIsTheLastThingSent) {
  SessionFixture f;
  f.session().DeliverFrame(TestFrame(0, 0, 10), host::FrameKind::kTick);
  f.session().CloseWith(TestFrame(1, 0, 10), host::CloseReason::kLoggedInElsewhere);
  f.session().DeliverFrame(TestFrame(0, 1, 10), host::FrameKind::kTick);  // too late
  std::vector<std::pair<uint8_t, uint32_t>> got;
  uint8_t sender = 0;
  uint32_t seq = 0;
  while (f.ReadFrame(&sender, &seq)) got.emplace_back(sender, seq);
  const std::vector<std::pair<uint8_t, uint32_t>> expected{{0, 0}, {1, 0}};
  EXPECT_EQ(got, expected) << "the tick, then the last frame, then the end of the stream";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!f.closed() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(f.closed());
}

}  // namespace
}  // namespace zs::net
