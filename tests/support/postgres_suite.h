// PostgresSuite: a gtest fixture with one real PostgreSQL server for the whole suite (started
// by the test itself: postgres_server.h) and a fresh database for each test, so that every test
// starts from empty characters. Derived fixtures use conninfo() in their nodes' storage block.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "support/postgres_server.h"

namespace zs::test {

class PostgresSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { postgres_ = new PostgresServer(); }
  static void TearDownTestSuite() {
    delete postgres_;
    postgres_ = nullptr;
  }
  void SetUp() override {
    database_ = "zs_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++);
    postgres_->CreateDatabase(database_);
  }
  // This test's database.
  [[nodiscard]] std::string conninfo() const { return postgres_->conninfo(database_); }

 private:
  static inline PostgresServer* postgres_ = nullptr;
  static inline int counter_ = 0;
  std::string database_;
};

}  // namespace zs::test
