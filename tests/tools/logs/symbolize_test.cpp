// Call sites from capture to report: CallSiteCapture (pmpi/call_site.hpp) in a stand-in for the
// shim (callsite_fake_shim.cpp, a shared library like libcollsel.so), the `module` view of this
// process (pmpi/loaded_objects.hpp), the Symbolizer (tools/symbolize.hpp, binutils' addr2line)
// and the report's per-site aggregation (tools/call_sites.hpp).
#include "tools/logs/symbolize.hpp"

#include <unistd.h>

#include <algorithm>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pmpi/call_site.hpp"
#include "pmpi/loaded_objects.hpp"
#include "tools/report/call_sites.hpp"

extern "C" collsel::pmpi::CallSite collsel_test_fake_mpi_bcast(int depth);

namespace collsel::tools {
namespace {

using pmpi::CallSite;

// The user's code: calls the stand-in for MPI_Bcast on a known line. noinline and the barrier
// after the call keep this frame (and that line) on the stack, as an application's are.
__attribute__((noinline)) int user_bcast(int depth, CallSite& site) {
  const int line = __LINE__; site = collsel_test_fake_mpi_bcast(depth);
  asm volatile("" ::: "memory");
  return line;
}

// The caller of the user's code, one frame further up.
__attribute__((noinline)) int user_caller(int depth, CallSite& site, int& caller_line) {
  caller_line = __LINE__; const int line = user_bcast(depth, site);
  asm volatile("" ::: "memory");
  return line;
}

// The same two frames whenever it is called.
__attribute__((noinline)) CallSite two_frames_of_one_line() {
  CallSite site;
  user_bcast(2, site);
  asm volatile("" ::: "memory");
  return site;
}

std::vector<logs::Module> this_process() {
  std::vector<logs::Module> out;
  for (const auto& o : pmpi::loaded_objects()) {
    out.push_back({o.path, o.base, o.start, o.end, o.build_id});
  }
  return out;
}

std::vector<std::uint64_t> stack_of(const CallSite& site) {
  return {site.pcs.begin(), site.pcs.begin() + site.depth};
}

std::string file_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

const logs::Module& executable(const std::vector<logs::Module>& mods) {
  return mods.front();  // loaded_objects() lists the executable first
}

TEST(LoadedObjects, ListsTheExecutableFirstWithItsPathAndBuildId) {
  const auto objects = pmpi::loaded_objects();
  ASSERT_FALSE(objects.empty());
  char exe[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
  EXPECT_EQ(objects.front().path, exe);
  // Debian's gcc links with --build-id: every object has one.
  EXPECT_FALSE(objects.front().build_id.empty());
  const auto self = reinterpret_cast<std::uint64_t>(&this_process);
  EXPECT_LE(objects.front().start, self);
  EXPECT_LT(self, objects.front().end);
  for (const auto& o : objects) {
    EXPECT_EQ(o.path.front(), '/') << o.path;
    EXPECT_EQ(o.path.find("vdso"), std::string::npos) << o.path;
    EXPECT_LT(o.start, o.end) << o.path;
    EXPECT_LE(o.base, o.start) << o.path;
  }
  const bool has_libc = std::any_of(objects.begin(), objects.end(), [](const auto& o) {
    return file_name(o.path) == "libc.so.6";
  });
  EXPECT_TRUE(has_libc);
}

TEST(CallSiteCapture, DepthZeroCapturesNothing) {
  CallSite site;
  user_bcast(0, site);
  EXPECT_EQ(site.depth, 0);
}

TEST(CallSiteCapture, DepthIsClampedToTheMaximum) {
  EXPECT_EQ(pmpi::CallSiteCapture(100).depth(), pmpi::kMaxStackDepth);
  EXPECT_EQ(pmpi::CallSiteCapture(-3).depth(), 0);
}

TEST(CallSiteCapture, SameSiteSameHashOtherSiteOtherKey) {
  const CallSite a = two_frames_of_one_line();
  const CallSite b = two_frames_of_one_line();
  CallSite c;
  int ignored = 0;
  user_caller(2, c, ignored);
  EXPECT_EQ(a, b);
  EXPECT_EQ(pmpi::CallSiteHash{}(a), pmpi::CallSiteHash{}(b));
  EXPECT_EQ(a.pcs[0], c.pcs[0]);  // the same line called user_bcast's MPI call...
  EXPECT_NE(a, c);                // ...from another caller
}

TEST(Symbolize, FirstFrameIsTheLineThatCalledTheEntryPoint) {
  CallSite site;
  int caller_line = 0;
  const int line = user_caller(3, site, caller_line);
  ASSERT_EQ(site.depth, 3);  // gtest's frames lie above: there are enough
  Symbolizer sym({{0, this_process()}});
  const auto frames = sym.resolve(0, stack_of(site));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_TRUE(sym.problems().empty()) << sym.problems().front();

  EXPECT_EQ(frames[0].object, executable(this_process()).path);
  EXPECT_NE(frames[0].function.find("user_bcast"), std::string::npos) << frames[0].text();
  EXPECT_EQ(file_name(frames[0].file), "symbolize_test.cpp");
  EXPECT_EQ(frames[0].line, line);
  EXPECT_EQ(frames[0].pc, site.pcs[0]);
  EXPECT_EQ(frames[0].offset, site.pcs[0] - 1 - executable(this_process()).base);

  EXPECT_NE(frames[1].function.find("user_caller"), std::string::npos) << frames[1].text();
  EXPECT_EQ(frames[1].line, caller_line);

  const std::regex text(R"(.*user_bcast.* \(symbolize_test\.cpp:(\d+)\))");
  std::smatch m;
  const std::string t = frames[0].text();
  ASSERT_TRUE(std::regex_match(t, m, text)) << t;
  EXPECT_EQ(std::stoi(m[1]), line);
}

TEST(Symbolize, ResultsAreCachedAndSharedOverRanksWithOtherLayouts) {
  CallSite site;
  user_bcast(1, site);
  // Rank 1 ran the same executable at another address (ASLR): same file offset, same frame text.
  auto mods = this_process();
  constexpr std::uint64_t kShift = 0x40000000;
  auto shifted = mods;
  for (auto& m : shifted) m.base += kShift, m.start += kShift, m.end += kShift;
  Symbolizer sym({{0, mods}, {1, shifted}});
  sym.prefetch({{0, stack_of(site)}, {1, {site.pcs[0] + kShift}}});
  const auto f0 = sym.resolve(0, stack_of(site));
  const auto f1 = sym.resolve(1, {site.pcs[0] + kShift});
  EXPECT_EQ(f0.at(0).text(), f1.at(0).text());
  EXPECT_EQ(f0.at(0).offset, f1.at(0).offset);
  EXPECT_NE(f0.at(0).pc, f1.at(0).pc);
  EXPECT_EQ(sym.resolve(0, stack_of(site)).at(0).text(), f0.at(0).text());
}

TEST(Symbolize, SharedLibraryWithoutDebugInformationGivesSymbolOrObjectOffset) {
  // Return address just past the entry of libc's getpid: libc.so.6 has a dynamic symbol table
  // but (without libc6-dbg) no line information.
  const auto pc = reinterpret_cast<std::uint64_t>(&::getpid) + 1;
  Symbolizer sym({{0, this_process()}});
  const auto frames = sym.resolve(0, {pc});
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(file_name(frames[0].object), "libc.so.6");
  const std::string t = frames[0].text();
  const std::regex without_lines(R"((\S+ in )?libc\.so\.6\+0x[0-9a-f]+)");
  const std::regex with_lines(R"(\S+ \(\S+:\d+\))");  // if libc6-dbg is installed
  EXPECT_TRUE(std::regex_match(t, without_lines) || std::regex_match(t, with_lines)) << t;
}

TEST(Symbolize, AddressOutsideEveryModule) {
  Symbolizer sym({{0, this_process()}});
  const auto frames = sym.resolve(0, {0x10});
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_TRUE(frames[0].object.empty());
  EXPECT_EQ(frames[0].text(), "0x10 (no module)");
  // A rank without module records: no module either, and no exception.
  EXPECT_EQ(sym.resolve(7, {0x1234}).at(0).text(), "0x1234 (no module)");
}

TEST(Symbolize, MissingFileFallsBackToObjectOffsetWithAProblem) {
  const logs::Module gone{"/nonexistent/dir/libsolver.so", 0x7f0000000000, 0x7f0000001000,
                          0x7f0000009000, "abcd"};
  Symbolizer sym({{0, {gone}}});
  const auto frames = sym.resolve(0, {0x7f0000001a2c});
  EXPECT_EQ(frames.at(0).text(), "libsolver.so+0x1a2b");
  ASSERT_EQ(sym.problems().size(), 1u);
  EXPECT_NE(sym.problems()[0].find("/nonexistent/dir/libsolver.so"), std::string::npos);
  sym.resolve(0, {0x7f0000001b00});
  EXPECT_EQ(sym.problems().size(), 1u);  // once per object
}

TEST(Symbolize, ChangedFileIsNotTrustedForLines) {
  CallSite site;
  user_bcast(1, site);
  auto mods = this_process();
  mods.front().build_id = "00112233445566778899aabbccddeeff00112233";
  Symbolizer sym({{0, mods}});
  const auto frames = sym.resolve(0, stack_of(site));
  EXPECT_TRUE(frames.at(0).function.empty()) << frames.at(0).text();
  EXPECT_EQ(frames.at(0).text(), fmt::format("{}+{:#x}", file_name(mods.front().path),
                                             frames.at(0).offset));
  ASSERT_EQ(sym.problems().size(), 1u);
  EXPECT_NE(sym.problems()[0].find("build id"), std::string::npos) << sym.problems()[0];
}

TEST(Frame, TextForms) {
  Frame f;
  f.pc = 0x7f0000001a2c;
  EXPECT_EQ(f.text(), "0x7f0000001a2c (no module)");
  f.object = "/opt/lib/libsolver.so";
  f.offset = 0x1a2b;
  EXPECT_EQ(f.text(), "libsolver.so+0x1a2b");
  f.function = "solver_step";
  EXPECT_EQ(f.text(), "solver_step in libsolver.so+0x1a2b");
  f.file = "/src/solver/step.c";
  f.line = 42;
  EXPECT_EQ(f.text(), "solver_step (step.c:42)");
  f.inlined = "exchange";
  EXPECT_EQ(f.text(), "exchange inlined in solver_step (step.c:42)");
}

// ---- the report's top call sites ----------------------------------------------------------------

logs::LoggedCall call(int rank, std::vector<std::uint64_t> stack, std::string coll, double t) {
  logs::LoggedCall c;
  c.world_rank = rank;
  c.coll = std::move(coll);
  c.algorithm = c.coll + ".binomial";
  c.actual_s = t;
  c.stack = std::move(stack);
  return c;
}

TEST(CallSiteRows, OneSitePerLineOverRanksSplitByCollectiveSortedByTime) {
  CallSite a, b;
  user_bcast(1, a);
  int ignored = 0;
  user_caller(2, b, ignored);  // b.pcs[1] is user_caller's line
  const std::uint64_t a_pc = a.pcs[0];
  const std::uint64_t b_pc = b.pcs[1];
  constexpr std::uint64_t kShift = 0x40000000;

  logs::RunLog log;
  const auto mods = this_process();
  auto shifted = mods;
  for (auto& m : shifted) m.base += kShift, m.start += kShift, m.end += kShift;
  log.ranks.resize(2);
  log.ranks[0].world_rank = 0;
  log.ranks[0].modules = mods;
  log.ranks[1].world_rank = 1;
  log.ranks[1].modules = shifted;
  log.calls = {call(0, {a_pc}, "bcast", 1.0), call(1, {a_pc + kShift}, "bcast", 3.0),
               call(0, {a_pc}, "scatter", 0.5), call(1, {b_pc + kShift}, "bcast", 0.25),
               call(0, {}, "bcast", 0.125)};
  logs::SummaryRecord s;
  s.world_rank = 0;
  s.coll = "bcast";
  s.algorithm = "bcast.chain";
  s.stack = {a_pc};
  s.calls = 4;
  s.actual_sum_s = 2.0;
  s.actual_min_s = 0.25;
  s.actual_max_s = 1.0;
  log.summaries = {s};

  Symbolizer sym({{0, mods}, {1, shifted}});
  const auto rows = call_site_rows(log, sym);
  ASSERT_EQ(rows.size(), 4u);
  // a's line in Bcast: ranks 0 and 1 (different addresses), traced and summarised.
  EXPECT_NE(rows[0].site.find("user_bcast"), std::string::npos) << rows[0].site;
  EXPECT_EQ(rows[0].coll, "bcast");
  EXPECT_EQ(rows[0].calls, 6);
  EXPECT_DOUBLE_EQ(rows[0].time_s, 6.0);
  EXPECT_DOUBLE_EQ(rows[0].mean_s, 1.0);
  EXPECT_DOUBLE_EQ(rows[0].min_s, 0.25);
  EXPECT_DOUBLE_EQ(rows[0].max_s, 3.0);
  EXPECT_EQ(rows[0].ranks, 2);
  EXPECT_EQ(rows[0].algorithms, (std::vector<std::string>{"bcast.binomial", "bcast.chain"}));
  ASSERT_EQ(rows[0].frames.size(), 1u);
  EXPECT_EQ(rows[0].frames[0].pc, a_pc);  // resolved for the lowest rank
  // The same line in Scatter is another row.
  EXPECT_EQ(rows[1].coll, "scatter");
  EXPECT_EQ(rows[1].site, rows[0].site);
  EXPECT_DOUBLE_EQ(rows[1].time_s, 0.5);
  // b: another stack.
  EXPECT_NE(rows[2].site.find("user_caller"), std::string::npos) << rows[2].site;
  EXPECT_DOUBLE_EQ(rows[2].time_s, 0.25);
  EXPECT_EQ(rows[3].site, "(no call site)");
  EXPECT_TRUE(rows[3].frames.empty());
  EXPECT_EQ(rows[3].calls, 1);
}

}  // namespace
}  // namespace collsel::tools
