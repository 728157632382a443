// nats_Close() once, after every test (NatsBus::ShutdownLibrary: the process's owner calls it).
#include <gtest/gtest.h>

#include "cluster/nats_bus.h"

namespace {

class NatsLibrary : public ::testing::Environment {
 public:
  void TearDown() override { zs::cluster::NatsBus::ShutdownLibrary(); }
};

// gtest owns the environment.
[[maybe_unused]] ::testing::Environment* const kNatsLibrary =
    ::testing::AddGlobalTestEnvironment(new NatsLibrary);

}  // namespace
