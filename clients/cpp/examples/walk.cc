// zs_client_walk: the C++ client library's example. Connects by name over TCP or WebSocket,
// walks in a circle, and prints what it sees (entities entering and leaving, hits, chat) and the
// RTT once a second, through AsioTransport on one io_context in the main thread.
//
//   zs_client_walk [--url tcp://127.0.0.1:7777 | ws://127.0.0.1:7778/] [--name Walker]
//                  [--seconds 20]
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <string_view>

#include "zone.pb.h"
#include "zs_client/asio_transport.h"
#include "zs_client/client.h"

namespace {

using zs::client::Client;

struct Args {
  std::string url = "tcp://127.0.0.1:7777";
  std::string name = "Walker";
  double seconds = 20;
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--url") {
      a.url = value;
    } else if (flag == "--name") {
      a.name = value;
    } else if (flag == "--seconds") {
      a.seconds = std::atof(value);
    } else {
      std::fprintf(stderr, "usage: zs_client_walk [--url U] [--name N] [--seconds S]\n");
      std::exit(2);
    }
  }
  return a;
}

// Prints what the client hears.
class Printer final : public zs::client::ClientListener {
 public:
  void OnState(zs::client::State to, zs::client::State from, zs::client::CloseReason reason,
               const zs::client::Status& error) override {
    std::printf("state %s -> %s %s %s\n", std::string(StateName(from)).c_str(),
                std::string(StateName(to)).c_str(),
                reason == zs::client::CloseReason::kNone
                    ? ""
                    : std::string(CloseReasonName(reason)).c_str(),
                error.message.c_str());
  }
  void OnWelcome(const zs::zone::v1::Welcome& w) override {
    std::printf("welcome: entity %u in %s at (%.1f, %.1f) m, %u ticks/s\n", w.entity_id(),
                w.zone_name().c_str(), w.x() / 100.0, w.y() / 100.0, w.tick_rate());
  }
  void OnEnter(const zs::client::Entity& e) override {
    std::printf("enter %u %s at (%.1f, %.1f)\n", e.id,
                e.kind == zs::client::EntityKind::kPlayer ? e.name.c_str() : "monster", e.x / 100.0,
                e.y / 100.0);
  }
  void OnLeave(const zs::client::Entity& e) override { std::printf("leave %u\n", e.id); }
  void OnEvent(const zs::client::Event& event) override {
    if (const auto* hit = std::get_if<zs::client::HitEvent>(&event)) {
      std::printf("hit by %u with skill %u on %zu targets\n", hit->attacker, hit->skill_id,
                  hit->targets.size());
    } else if (const auto* chat = std::get_if<zs::client::ChatEvent>(&event)) {
      std::printf("%s: %s\n", chat->from_name.c_str(), chat->text.c_str());
    }
  }
};

int Run(const Args& args) {
  boost::asio::io_context io;
  Client client;
  Printer printer;
  client.set_listener(&printer);
  zs::client::AsioTransport transport(io, client);
  zs::client::ClientOptions options;
  options.url = args.url;
  options.name = args.name;
  if (const zs::client::Status s = transport.Connect(options); !s.ok()) {
    std::fprintf(stderr, "connect: %s\n", s.message.c_str());
    return 1;
  }
  const double start = transport.Now();
  boost::asio::steady_timer step(io);
  double last_print = start;
  std::function<void()> walk = [&] {
    const double now = transport.Now();
    if (now - start > args.seconds * 1000) {
      client.Close(now);
      transport.Pump();
      return;
    }
    const double angle = (now - start) / 1000;  // one radian a second: a circle in ~6 s
    (void)client.Move(std::cos(angle), std::sin(angle), now);
    transport.Pump();
    if (now - last_print >= 1000) {
      last_print = now;
      const zs::client::Position me = client.SelfPosition(now);
      std::printf("at (%.1f, %.1f) m, rtt %.1f ms, %zu entities, %.0f B/s in\n", me.x / 100,
                  me.y / 100, client.stats().rtt_smoothed_ms, client.store().entities().size(),
                  client.stats().bytes_in_per_sec);
    }
    step.expires_after(std::chrono::milliseconds(250));
    step.async_wait([&](boost::system::error_code ec) {
      if (!ec) walk();
    });
  };
  walk();
  io.run();
  std::printf("closed: %s %s\n", std::string(CloseReasonName(client.close_reason())).c_str(),
              client.close_error().message.c_str());
  return client.close_reason() == zs::client::CloseReason::kLogout ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(Parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zs_client_walk: %s\n", e.what());
    return 1;
  }
}
