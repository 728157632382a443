// The Python reference client (examples/python/zone_client.py) against the real server, with
// Debian's python3 and python3-protobuf and the zone_pb2 module generated at build time: it logs
// in, sees a C++ test client enter by name, chats both ways, gets its inputs' results and Pongs,
// and logs out with Kick "logout".
#include <gtest/gtest.h>

#include "integration/harness.h"
#include "integration/python_client.h"

namespace zs::integration {
namespace {

TEST(PythonClient, LogsInSeesNamesChatsAndLogsOut) {
  ServerProcess server("  idle_timeout_seconds: 60\n  chat_rate: 100\n");
  TestClient bo(server.port());
  ASSERT_TRUE(bo.Login("Bo").has_value());
  const fs::path out = fs::temp_directory_path() / ("zs_py_" + std::to_string(::getpid()));
  const pid_t pid = StartPythonClient(
      out, {"--port", std::to_string(server.port()), "--name", "Py", "--seconds", "3", "--say",
            "hello from Python", "--whisper-to", "Bo", "--walk-seconds", "0.2"});
  // Bo reads along, and says something once the Python client is in.
  std::vector<std::string> bo_heard;
  bool said = false;
  int status = -1;
  const double start = NowS();
  while (NowS() - start < 20) {
    auto m = bo.Read(0.1);
    if (m && m->has_tick()) {
      for (const auto& line : m->tick().chat())
        bo_heard.push_back(line.from_name() + ": " + line.text());
    }
    if (!said && NowS() - start > 1.5) {
      pb::ClientMessage say;
      say.mutable_chat()->set_seq(1);
      say.mutable_chat()->set_channel(pb::CHAT_CHANNEL_SAY);
      say.mutable_chat()->set_text("hi Py");
      bo.Send(say);
      said = true;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
  }
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const std::string log = text.str();
  fs::remove(out);
  ASSERT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  for (const char* line :
       {"welcome Py id=", "welcome skill 1 ",
        "enter player Bo id=", "chat [CHAT_CHANNEL_SAY] Py: hello from Python",
        "chat [CHAT_CHANNEL_SAY] Bo: hi Py", "chat [CHAT_CHANNEL_WHISPER] Py to Bo: psst, Bo",
        "result INPUT_KIND_CHAT seq 1: OUTCOME_ACCEPTED", "pong rtt", "kick logout",
        "summary ticks"}) {
    EXPECT_NE(log.find(line), std::string::npos) << "missing '" << line << "' in:\n" << log;
  }
  std::string heard;
  for (const std::string& h : bo_heard) heard += h + "\n";
  EXPECT_NE(std::find(bo_heard.begin(), bo_heard.end(), "Bo: hi Py"), bo_heard.end()) << heard;
  EXPECT_NE(std::find(bo_heard.begin(), bo_heard.end(), "Py: hello from Python"), bo_heard.end())
      << heard;
  EXPECT_NE(std::find(bo_heard.begin(), bo_heard.end(), "Py: psst, Bo"), bo_heard.end());
}

}  // namespace
}  // namespace zs::integration
