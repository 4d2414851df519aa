// The stage tasks' runner (cluster/stage_tasks.h): the start order, the tasks run alone first,
// the lead run beside the tasks, and the error rule.
#include "cluster/stage_tasks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cs::cluster {
namespace {

// What the tasks did, in the order they did it ("start X", "end X").
class Journal {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(what);
  }
  size_t at(const std::string& what) const {
    for (size_t i = 0; i < lines_.size(); ++i)
      if (lines_[i] == what) return i;
    ADD_FAILURE() << "no '" << what << "'";
    return lines_.size();
  }
  std::vector<std::string> lines() const { return lines_; }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

Task timed(Journal& j, const std::string& name, double cost, int ms, bool alone_first = false) {
  return Task{name, cost,
              [&j, name, ms] {
                j.add("start " + name);
                std::this_thread::sleep_for(std::chrono::milliseconds(ms));
                j.add("end " + name);
              },
              alone_first};
}

TEST(StageTasks, OneThreadRunsTheCostliestFirst) {
  Journal j;
  std::vector<Task> tasks{timed(j, "a", 0.1, 0), timed(j, "b", 1.7, 0), timed(j, "c", 0.2, 0)};
  run_tasks(tasks, 1, nullptr);
  EXPECT_EQ(j.lines(),
            (std::vector<std::string>{"start b", "end b", "start c", "end c", "start a", "end a"}));
}

TEST(StageTasks, TasksMarkedAloneFirstEndBeforeAnyOtherStarts) {
  Journal j;
  // The marked task is the cheapest and the slowest: only the mark can put it first.
  std::vector<Task> tasks{timed(j, "other1", 1.0, 5), timed(j, "first", 0.1, 60, true),
                          timed(j, "other2", 0.5, 5)};
  run_tasks(tasks, 2, nullptr);
  EXPECT_LT(j.at("end first"), j.at("start other1"));
  EXPECT_LT(j.at("end first"), j.at("start other2"));
  // Unmarked, the two others start while the slow one still runs (two threads).
  Journal k;
  std::vector<Task> unmarked{timed(k, "other1", 1.0, 5), timed(k, "slow", 2.0, 200),
                             timed(k, "other2", 0.5, 5)};
  run_tasks(unmarked, 2, nullptr);
  EXPECT_LT(k.at("start other1"), k.at("end slow"));
  EXPECT_LT(k.at("start other2"), k.at("end slow"));
  for (const Task& t : tasks) EXPECT_GT(t.wall_s, 0.0) << t.name;  // each task timed
}

TEST(StageTasks, TheLeadRunsBesideTheTasks) {
  // The lead waits (at most 10 s) for a task to have started: it can only see it beside it.
  std::atomic<bool> started{false};
  bool seen = false;
  std::vector<Task> tasks{{"task", 0.1, [&] { started = true; }}};
  run_tasks(tasks, 2, [&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!started && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    seen = started;
  });
  EXPECT_TRUE(seen);
}

TEST(StageTasks, TheFirstErrorIsRethrownOnceEveryTaskHasRun) {
  bool last_ran = false;
  std::vector<Task> tasks{
      {"later", 0.1, [&] { throw std::runtime_error("later failed"); }},
      {"first", 0.1, [] { throw std::runtime_error("first failed"); }, true},
      {"last", 0.1, [&] { last_ran = true; }},
  };
  try {
    run_tasks(tasks, 2, nullptr);
    ADD_FAILURE() << "nothing was thrown";
  } catch (const std::runtime_error& e) {
    // The tasks' order, not the order they ran in, picks the error: "later" is first in it.
    EXPECT_STREQ(e.what(), "later failed");
  }
  EXPECT_TRUE(last_ran);
}

}  // namespace
}  // namespace cs::cluster
