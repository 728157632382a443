// Accounts (issue 10), on the real zone_server in `auth.mode: token`: tokens minted here with
// the same secret (auth::TokenCodec, as a studio's login service would), checked by the server.
// Every bad token gets the same Error AUTH_FAILED and a close; a token logs in once; one session
// per account.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/token.h"
#include "integration/harness.h"
#include "integration/python_client.h"

namespace zs::integration {
namespace {

const std::string kSecret = "integration-test-secret-0123456789abcdef";

int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Mint(uint64_t account, const std::string& name, int64_t ttl,
                 const std::string& secret = kSecret) {
  return auth::TokenCodec(secret).Sign(
      {.account = account, .name = name, .expiry = UnixNow() + ttl});
}

// A token-mode server whose secret is in a file next to its config.
class TokenServer {
 public:
  TokenServer()
      : secret_file_(fs::temp_directory_path() /
                     ("zs_secret_" + std::to_string(::getpid()) + "_" + std::to_string(n_++))) {
    std::ofstream(secret_file_) << kSecret << "\n";
    server_ = std::make_unique<ServerProcess>(
        "  idle_timeout_seconds: 60\n",
        "auth: {mode: token, secret_file: " + secret_file_.string() + "}\n");
  }
  ~TokenServer() { fs::remove(secret_file_); }
  ServerProcess& s() { return *server_; }
  [[nodiscard]] const fs::path& secret_file() const { return secret_file_; }

 private:
  static inline int n_ = 0;
  fs::path secret_file_;
  std::unique_ptr<ServerProcess> server_;
};

void HelloWithToken(TestClient& c, const std::string& token, const std::string& name = "") {
  pb::ClientMessage m;
  m.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  m.mutable_hello()->set_player_name(name);
  m.mutable_hello()->set_auth_token(token);
  c.Send(m);
}

std::optional<pb::Welcome> LoginWith(TestClient& c, const std::string& token) {
  HelloWithToken(c, token);
  auto m =
      c.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome() || s.has_error(); }, 5);
  if (!m || !m->has_welcome()) return std::nullopt;
  return m->welcome();
}

// The Error the server closes with; the same words for every way a token can be wrong.
void ExpectAuthFailed(uint16_t port, const std::string& token, const char* what) {
  TestClient c(port);
  HelloWithToken(c, token, "Mallory");
  const auto last = c.ReadUntilClosed(5);
  ASSERT_TRUE(last.has_value()) << what;
  ASSERT_TRUE(last->has_error()) << what << ": " << last->DebugString();
  EXPECT_EQ(last->error().code(), pb::ERROR_CODE_AUTH_FAILED) << what;
  EXPECT_EQ(last->error().message(), "authentication failed") << what << ": says nothing more";
  EXPECT_TRUE(c.closed()) << what;
}

TEST(Accounts, AValidTokenLogsInAsItsCharacterWhateverTheHelloName) {
  TokenServer t;
  TestClient c(t.s().port());
  HelloWithToken(c, Mint(42, "Aria", 300), "NotAria");
  const auto w = c.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5);
  ASSERT_TRUE(w) << t.s().Log();
  EXPECT_EQ(w->welcome().player_name(), "Aria");
}

TEST(Accounts, EveryBadTokenGetsTheSameAuthFailedAndAClose) {
  TokenServer t;
  const uint16_t port = t.s().port();
  const std::string good = Mint(42, "Aria", 300);
  std::string forged = good;
  forged[forged.size() - 2] = forged[forged.size() - 2] == 'A' ? 'B' : 'A';
  ExpectAuthFailed(port, Mint(42, "Aria", -5), "expired");
  ExpectAuthFailed(port, forged, "forged signature");
  ExpectAuthFailed(port, Mint(42, "Aria", 300, std::string(40, 'w')), "wrong secret");
  ExpectAuthFailed(port, good.substr(0, good.size() / 2), "truncated");
  // 64 KiB does not fit the shipped max_frame_bytes (64 KiB for the whole Hello); 8 KiB fits a
  // frame but not a token (512 bytes at most). Both get the same answer as a forged one.
  ExpectAuthFailed(port, std::string(64 * 1024, 'A'), "64 KiB");
  ExpectAuthFailed(port, std::string(8 * 1024, 'A'), "8 KiB");
  ExpectAuthFailed(port, "", "no token");
  ExpectAuthFailed(port, good.substr(0, 10) + "\xff\xfe" + good.substr(12), "not UTF-8");
  ExpectAuthFailed(port, Mint(42, "Aria", 100000), "expiry beyond max_token_ttl_seconds");
  const std::string page = t.s().HttpGet("/metrics");
  EXPECT_NE(page.find("zs_login_refusals_total{reason=\"auth_expired\"} 1"), std::string::npos)
      << "the server's own log and metrics say why";
  EXPECT_NE(page.find("zs_login_refusals_total{reason=\"auth_bad_signature\"} 2"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("zs_login_refusals_total{reason=\"auth_oversized\"} 1"), std::string::npos)
      << page;
  TestClient c(port);
  EXPECT_TRUE(LoginWith(c, good)) << "the server is unaffected";
}

TEST(Accounts, ATokenReplayedAfterLogoutIsRefused) {
  TokenServer t;
  const std::string token = Mint(7, "Bran", 300);
  {
    TestClient c(t.s().port());
    ASSERT_TRUE(LoginWith(c, token));
    pb::ClientMessage bye;
    bye.mutable_logout();
    c.Send(bye);
    c.ReadUntilClosed(3);
  }
  ExpectAuthFailed(t.s().port(), token, "replayed after logout");
  TestClient again(t.s().port());
  EXPECT_TRUE(LoginWith(again, Mint(7, "Bran", 300))) << "a fresh token from the login service";
}

TEST(Accounts, ASecondLoginForAnAccountKicksTheFirstAndKeepsOneEntity) {
  TokenServer t;
  TestClient first(t.s().port());
  const auto w1 = LoginWith(first, Mint(9, "Cora", 300));
  ASSERT_TRUE(w1);
  first.Move(1, 0, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  TestClient second(t.s().port());
  const auto w2 = LoginWith(second, Mint(9, "Cora", 300));
  ASSERT_TRUE(w2);
  EXPECT_EQ(w2->entity_id(), w1->entity_id()) << "the same character continues";
  EXPECT_GT(w2->x(), w1->x()) << "where the first connection had walked it";
  const auto last = first.ReadUntilClosed(3);
  ASSERT_TRUE(last && last->has_kick());
  EXPECT_EQ(last->kick().reason(), "logged_in_elsewhere");
  EXPECT_EQ(MetricValue(t.s().HttpGet("/metrics"), "zs_players"), 1);
  // Another character of the same account also takes the session over.
  TestClient third(t.s().port());
  ASSERT_TRUE(LoginWith(third, Mint(9, "Cora2", 300)));
  const auto kicked = second.ReadUntilClosed(3);
  ASSERT_TRUE(kicked && kicked->has_kick());
  EXPECT_EQ(kicked->kick().reason(), "logged_in_elsewhere");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(MetricValue(t.s().HttpGet("/metrics"), "zs_players"), 1);
}

// The plaza and the yard tick on runners of their own: one session per account still holds
// when the account's character is in the other runner's zone.
TEST(Accounts, AnotherCharacterOfTheAccountLogsOutTheOneInAnotherZonesRunner) {
  TokenServer t;
  TestClient first(t.s().port());
  ASSERT_TRUE(LoginWith(first, Mint(11, "Dara", 300)));
  first.Move(1, 0, 1);  // east into the yard (about 7 s)
  const auto changed =
      first.ReadUntil([](const pb::ServerMessage& m) { return m.has_zone_changed(); }, 15);
  ASSERT_TRUE(changed) << t.s().Log();
  EXPECT_EQ(changed->zone_changed().zone_id(), 2u);
  TestClient second(t.s().port());
  const auto w = LoginWith(second, Mint(11, "Dara2", 300));
  ASSERT_TRUE(w) << t.s().Log();
  EXPECT_EQ(w->zone_id(), 1u) << "a new character starts in the plaza";
  const auto kicked = first.ReadUntilClosed(3);
  ASSERT_TRUE(kicked && kicked->has_kick()) << t.s().Log();
  EXPECT_EQ(kicked->kick().reason(), "logged_in_elsewhere");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(MetricValue(t.s().HttpGet("/metrics"), "zs_players"), 1);
}

TEST(Accounts, ANameOwnedByAnotherAccountIsRefused) {
  TokenServer t;
  {
    TestClient c(t.s().port());
    ASSERT_TRUE(LoginWith(c, Mint(1, "Dara", 300)));
    c.Close();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // saved, offline
  ExpectAuthFailed(t.s().port(), Mint(2, "Dara", 300), "another account's character");
}

TEST(Accounts, TokenModeWithoutASecretRefusesToStart) {
  ServerProcess s("  idle_timeout_seconds: 60\n", "auth: {mode: token}\n");
  const auto code = s.Wait(10);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_NE(s.Log().find("no secret is configured"), std::string::npos) << s.Log();
}

// The first line `command` prints (its exit code must be 0).
std::string FirstLineOf(const std::string& command) {
  FILE* p = ::popen(command.c_str(), "r");
  EXPECT_NE(p, nullptr) << command;
  if (p == nullptr) return {};
  char buf[1024] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  EXPECT_EQ(::pclose(p), 0) << command;
  std::string line(buf, n);
  return line.substr(0, line.find('\n'));
}

// `zone_server token` and examples/python/mint_token.py (what a login service would run) both
// mint tokens the server accepts.
TEST(Accounts, TheTokenToolAndThePythonExampleMintTokensTheServerAccepts) {
  TokenServer t;
  const fs::path secret = fs::temp_directory_path() / ("zs_tool_" + std::to_string(::getpid()));
  std::ofstream(secret) << kSecret << "\n";
  const std::string tool =
      FirstLineOf(std::string(ZS_SERVER_BIN) +
                  " token --account 42 --name Aria --ttl 60 --secret-file " + secret.string());
  const std::string python = FirstLineOf("/usr/bin/python3 " ZS_PYTHON_MINT
                                         " --account 43 --name Brom --ttl 60 "
                                         "--secret-file " +
                                         secret.string());
  // As docs/accounts.md writes it: the secret from the server's config, --config after `token`.
  const std::string documented =
      FirstLineOf(std::string(ZS_SERVER_BIN) +
                  " token --account 44 --name Cira --ttl 60 --config " + t.s().config_path());
  fs::remove(secret);
  for (const auto& [token, name] :
       {std::pair{tool, "Aria"}, std::pair{python, "Brom"}, std::pair{documented, "Cira"}}) {
    ASSERT_TRUE(token.starts_with("zs1.")) << token;
    TestClient c(t.s().port());
    const auto w = LoginWith(c, token);
    ASSERT_TRUE(w) << name;
    EXPECT_EQ(w->player_name(), name);
  }
}

// The Python reference client logs in with a token, as a client of a studio's login service
// would: one handed to it (--token; it is the token's character, whatever --name says), or one
// it mints itself from the server's secret (--token-secret FILE, account --account).
TEST(Accounts, ThePythonClientLogsInWithATokenGivenOrMinted) {
  TokenServer t;
  const std::string port = std::to_string(t.s().port());
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"--name", "Ignored", "--token", Mint(45, "Pyra", 60)}, "Pyra"},
      {{"--name", "Pyro", "--account", "46", "--token-secret", t.secret_file().string()}, "Pyro"}};
  for (const auto& [login, name] : runs) {
    const fs::path out = fs::temp_directory_path() / ("zs_pytok_" + std::to_string(::getpid()));
    std::vector<std::string> args = {"--port", port, "--seconds", "1", "--say", "hi"};
    args.insert(args.end(), login.begin(), login.end());
    const pid_t pid = StartPythonClient(out, args);
    int status = -1;
    const double deadline = NowS() + 30;
    while (NowS() < deadline && ::waitpid(pid, &status, WNOHANG) != pid) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    fs::remove(out);
    ASSERT_TRUE(WIFEXITED(status)) << text.str();
    EXPECT_EQ(WEXITSTATUS(status), 0) << text.str();
    EXPECT_NE(text.str().find("welcome " + name + " id="), std::string::npos) << text.str();
  }
}

// client_sim can load-test token mode: each bot signs its own token with the server's secret (as
// a studio's login service would) and logs in as its account's character, with no violation.
TEST(Accounts, ClientSimBotsLogInWithTokens) {
  TokenServer t;
  const fs::path report = fs::temp_directory_path() / ("zs_simtok_" + std::to_string(::getpid()));
  const std::string command =
      std::string(ZS_CLIENT_SIM_BIN) + " --port " + std::to_string(t.s().port()) +
      " --bots 20 --ramp 100 --duration 2 --scenario wander "
      "--verify-every 2 --token-secret-file " +
      t.secret_file().string() + " --report " + report.string() + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << t.s().Log();
  std::ifstream in(report);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(report);
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << text.str();
  // A token-mode server lets no Hello in without a valid token: these logins are the tokens'.
  EXPECT_EQ(j["logins_ok"], 20) << text.str();
  EXPECT_EQ(j["logins_failed"], 0) << text.str();
  EXPECT_EQ(j["violations_total"], 0) << text.str();
}

TEST(Accounts, ModeNoneTakesANameOverAndKeepsOneEntity) {
  ServerProcess s;
  TestClient first(s.port());
  const auto w1 = first.Login("Eve");
  ASSERT_TRUE(w1);
  TestClient second(s.port());
  const auto w2 = second.Login("Eve");
  ASSERT_TRUE(w2);
  EXPECT_EQ(w2->entity_id(), w1->entity_id());
  const auto last = first.ReadUntilClosed(3);
  ASSERT_TRUE(last && last->has_kick());
  EXPECT_EQ(last->kick().reason(), "logged_in_elsewhere");
  EXPECT_EQ(MetricValue(s.HttpGet("/metrics"), "zs_players"), 1);
}

// Names by the Unicode rules (names/player_name.h), online: a look-alike of a player online is
// refused with BAD_NAME and the original stays; a name that breaks the rules (Cyrillic o among
// Latin letters) is refused at the Hello; the two spellings of "Zoë" are one character, named in
// NFC.
TEST(Accounts, LookAlikesCannotBeOnlineTogetherAndBothSpellingsAreOneName) {
  ServerProcess s;
  TestClient original(s.port());
  ASSERT_TRUE(original.Login("observer"));
  // Look-alikes by the skeleton, and a Cyrillic o among Latin letters (refused at the Hello
  // already, for mixing scripts).
  const std::vector<std::pair<std::string, std::string>> alikes = {
      {"0bserver", "looks like"},
      {"Observer", "looks like"},
      {"OBSERVER", "looks like"},
      {"\xd0\xbe\x62server", "mixes scripts"}};
  for (const auto& [alike, why] : alikes) {
    TestClient c(s.port());
    c.Hello(alike);
    const auto last = c.ReadUntilClosed(10);
    ASSERT_TRUE(last && last->has_error()) << alike;
    EXPECT_EQ(last->error().code(), pb::ERROR_CODE_BAD_NAME) << alike;
    EXPECT_NE(last->error().message().find(why), std::string::npos) << last->error().message();
  }
  EXPECT_FALSE(original.closed()) << "the original kept its connection";
  EXPECT_EQ(MetricValue(s.HttpGet("/metrics"), "zs_players"), 1);

  TestClient composed(s.port());
  const auto w1 = composed.Login("Zo\xc3\xab");
  ASSERT_TRUE(w1);
  TestClient decomposed(s.port());
  const auto w2 = decomposed.Login("Zoe\xcc\x88");
  ASSERT_TRUE(w2);
  EXPECT_EQ(w2->entity_id(), w1->entity_id()) << "one character";
  EXPECT_EQ(w2->player_name(), "Zo\xc3\xab") << "named in NFC";
  const auto last = composed.ReadUntilClosed(10);
  ASSERT_TRUE(last && last->has_kick());
  EXPECT_EQ(last->kick().reason(), "logged_in_elsewhere");
}

// A look-alike of a stored character that is offline is refused too (the store keeps each
// name's look-alike key, indexed); the character itself logs in as before.
TEST(Accounts, ALookAlikeOfAStoredCharacterIsRefused) {
  ServerProcess s;
  {
    TestClient oscar(s.port());
    ASSERT_TRUE(oscar.Login("Oscar"));
    pb::ClientMessage bye;
    bye.mutable_logout();
    oscar.Send(bye);
    const auto last = oscar.ReadUntilClosed(10);
    ASSERT_TRUE(last && last->has_kick());
  }
  TestClient alike(s.port());
  alike.Hello("0scar");
  const auto refused = alike.ReadUntilClosed(10);
  ASSERT_TRUE(refused && refused->has_error());
  EXPECT_EQ(refused->error().code(), pb::ERROR_CODE_BAD_NAME) << refused->error().message();
  TestClient again(s.port());
  const auto w = again.Login("Oscar");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->player_name(), "Oscar");
}

}  // namespace
}  // namespace zs::integration
