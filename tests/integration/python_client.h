// The Python reference client as a child process, for the tests that run it against the real
// server (integration_test defines ZS_PYTHON_CLIENT and ZS_PYTHON_PATH).
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace zs::integration {

// Starts the Python reference client (examples/python/zone_client.py) with `args`, its output in
// `out`, under Debian's interpreter (python3-protobuf installs there; a PATH python3 may be
// another one) with the generated zone_pb2 on its path; returns its pid.
inline pid_t StartPythonClient(const std::filesystem::path& out, std::vector<std::string> args) {
  static constexpr const char* kPython = "/usr/bin/python3";
  args.insert(args.begin(), {kPython, ZS_PYTHON_CLIENT});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setenv("PYTHONPATH", ZS_PYTHON_PATH, 1);
    ::execv(kPython, argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace zs::integration
