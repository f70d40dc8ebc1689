// The trace merge's progress lines: silent for a short merge, then at most one per interval.
#include <catch.hpp>

#include <string>
#include <vector>

#include "papshim/merge_progress.hpp"

using papshim::trace::MergeProgress;
using papshim::trace::record_count_text;

namespace {

// A MergeProgress on a clock the test sets, collecting its lines.
struct Watched {
    double now = 0;
    std::vector<std::string> lines;
    MergeProgress progress;

    explicit Watched(long long total)
        : progress(total, [this](const std::string& line) { lines.push_back(line); }, [this] { return now; }) {}

    void at(double seconds, long long done) {
        now = seconds;
        progress.update(done);
    }
};

}  // namespace

TEST_CASE("a merge shorter than the quiet period prints nothing") {
    Watched merge(400'000);
    for (int step = 1; step <= 19; ++step) merge.at(step * 0.1, step * 20'000);
    CHECK(merge.lines.empty());
}

TEST_CASE("a long merge prints a line after the quiet period, then at most one per interval") {
    Watched merge(3'000'000);
    merge.at(1.9, 100'000);
    CHECK(merge.lines.empty());
    merge.at(2.0, 1'200'000);
    REQUIRE(merge.lines.size() == 1);
    CHECK(merge.lines[0] == "merging the trace: 1.2M of 3.0M records (40%)");
    merge.at(3.9, 1'900'000);
    CHECK(merge.lines.size() == 1);
    merge.at(4.0, 2'000'000);
    REQUIRE(merge.lines.size() == 2);
    CHECK(merge.lines[1] == "merging the trace: 2.0M of 3.0M records (66%)");
    // The interval counts from the last line, not from a fixed grid.
    merge.at(7.5, 2'900'000);
    merge.at(9.0, 2'950'000);
    CHECK(merge.lines.size() == 3);
}

TEST_CASE("a merge of no records says 0%") {
    Watched empty(0);
    empty.at(5, 0);
    CHECK(empty.lines == std::vector<std::string>{"merging the trace: 0 of 0 records (0%)"});
}

TEST_CASE("record counts read as a person reads them") {
    CHECK(record_count_text(0) == "0");
    CHECK(record_count_text(9'999) == "9999");
    CHECK(record_count_text(12'345) == "12k");
    CHECK(record_count_text(999'999) == "999k");
    CHECK(record_count_text(1'240'000) == "1.2M");
    CHECK(record_count_text(3'400'000'000) == "3.4G");
}
