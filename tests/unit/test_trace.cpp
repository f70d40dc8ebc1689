#include <catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "papshim/trace.hpp"

using namespace papshim;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("papshim-trace-test-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

trace::Names names() { return {{"allgather", "allgatherv", "reduce", "allreduce"}, {"native", "sparbit"}, {"MPI_SUM"}}; }

}  // namespace

TEST_CASE("CSV and JSON quoting") {
    CHECK(trace::csv_field("plain") == "plain");
    CHECK(trace::csv_field("a,b") == "\"a,b\"");
    CHECK(trace::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(trace::json_string("a\"b\\c\n") == "\"a\\\"b\\\\c\\n\"");
    CHECK(trace::json_string(std::string(1, '\x01')) == "\"\\u0001\"");
}

TEST_CASE("communicator labels") {
    CHECK(trace::comm_label(trace::world_comm) == "world");
    CHECK(trace::comm_label(trace::comm_id(3, 7)) == "c3.7");
}

TEST_CASE("a small buffer spills and nothing is lost; the merge interleaves ranks by arrival") {
    TempDir dir;
    const int ranks = 3, calls = 1000;
    for (int r = 0; r < ranks; ++r) {
        trace::Writer w;
        std::string error;
        REQUIRE(w.open(dir.path.string(), r, 7, error));  // 7 records in memory: many spills
        for (int c = 0; c < calls; ++c) {
            trace::Record rec;
            rec.arrival = std::uint64_t(c) * 1000000 + std::uint64_t(r) * 100000;  // ns
            rec.exit = rec.arrival + 50000;
            rec.seq = std::uint64_t(c);
            rec.comm = trace::world_comm;
            rec.rank = rec.world_rank = r;
            rec.comm_size = ranks;
            rec.bytes = 8;
            rec.collective = 3;
            rec.op = 0;
            rec.site = c % 2;
            w.add(rec);
        }
        CHECK(w.records() == calls);
        clock::TickFit fit;  // nanosecond ticks from 0: seconds = ticks * 1e-9
        REQUIRE(w.finish({{"app+0x10", "main", "app.c:3"}, {"app+0x20", "step, inner", ""}}, fit, error));
    }
    std::string error;
    REQUIRE(trace::merge(dir.path.string(), ranks, names(), error) == ranks * calls);

    auto csv = lines_of(dir.path / "calls.csv");
    REQUIRE(csv.size() == std::size_t(ranks * calls + 1));
    CHECK(csv[0] ==
          "rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,location,arrival_s,exit_s");
    CHECK(csv[1] == "0,0,world,3,0,allreduce,8,-1,MPI_SUM,native,app+0x10,main,app.c:3,0.000000000,0.000050000");
    CHECK(csv[2].rfind("1,1,world,3,0,", 0) == 0);
    CHECK(csv[5].find("\"step, inner\"") != std::string::npos);  // quoted
    double previous = -1;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        double arrival = std::stod(csv[i].substr(csv[i].rfind(',', csv[i].rfind(',') - 1) + 1));
        CHECK(arrival >= previous);
        previous = arrival;
    }
    // The per-rank spill files are gone; the trace is one JSON document with an event per record.
    CHECK_FALSE(fs::exists(trace::spill_path(dir.path.string(), 0)));
    auto json = lines_of(dir.path / "trace.json");
    CHECK(json.front().rfind("{\"displayTimeUnit\"", 0) == 0);
    CHECK(json.back() == "]}");
    CHECK(std::count_if(json.begin(), json.end(), [](const std::string& l) { return l.find("\"ph\":\"X\"") != std::string::npos; }) ==
          ranks * calls);
}

TEST_CASE("trace.json is capped, calls.csv is not") {
    TempDir dir;
    trace::Writer w;
    std::string error;
    REQUIRE(w.open(dir.path.string(), 0, 100, error));
    for (int c = 0; c < 50; ++c) {
        trace::Record rec;
        rec.arrival = std::uint64_t(c);
        rec.exit = rec.arrival + 1;
        rec.seq = std::uint64_t(c);
        rec.comm_size = 1;
        w.add(rec);
    }
    REQUIRE(w.finish({}, clock::TickFit{}, error));
    REQUIRE(trace::merge(dir.path.string(), 1, names(), error, 10) == 50);
    CHECK(lines_of(dir.path / "calls.csv").size() == 51);
    auto json = lines_of(dir.path / "trace.json");
    CHECK(std::count_if(json.begin(), json.end(), [](const std::string& l) { return l.find("\"ph\":\"X\"") != std::string::npos; }) == 10);
    CHECK(json[json.size() - 2].find("first 10 of 50 calls") != std::string::npos);
}

TEST_CASE("an unwritable directory is reported, not fatal") {
    trace::Writer w;
    std::string error;
    CHECK_FALSE(w.open("/proc/papshim-nonexistent", 0, 10, error));
    CHECK(error.find("/proc/papshim-nonexistent") != std::string::npos);
}

TEST_CASE("a missing rank file makes the merge fail with its name") {
    TempDir dir;
    std::string error;
    CHECK(trace::merge(dir.path.string(), 2, names(), error) == -1);
    CHECK(error.find(".papshim-rank-0.bin") != std::string::npos);
}

TEST_CASE("ticks map to seconds through the fit of two clock points") {
    clock::ClockPoint start{1000, 5.0}, end{3001000, 6.0};  // 3e6 ticks per second
    const bool saved = clock::use_tsc;
    clock::use_tsc = true;
    auto fit = clock::fit_ticks(start, end, 0.25);
    clock::use_tsc = saved;
    CHECK(fit.seconds(1000) == Approx(5.25));
    CHECK(fit.seconds(1501000) == Approx(5.75));
    CHECK(fit.seconds(0) == Approx(5.25 - 1000.0 / 3e6));
}
