// The trace writer (chunk pool, writer thread, saves) and the merge of its files, at
// MPI_Finalize and after a job died (recovery).
#include <catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "papshim/clock.hpp"
#include "papshim/predictor.hpp"
#include "papshim/report.hpp"
#include "papshim/trace.hpp"

using namespace papshim;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        static int made = 0;
        path = fs::temp_directory_path() /
               ("papshim-trace-test-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string str() const { return path.string(); }
};

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

trace::Names names() { return {{"allgather", "allgatherv", "reduce", "allreduce"}, {"native", "sparbit"}, {"MPI_SUM"}}; }

// Ticks are nanoseconds from 0; two call sites.
trace::Writer::IndexSource source() {
    return {[] { return trace::Fit{}; },
            [](std::vector<trace::SiteInfo>& sites) {
                sites = {{"app+0x10", "main", "app.c:3", "", 0}, {"app+0x20", "step, inner", "", "", 0}};
                return true;
            }};
}

trace::Record record(int rank, int ranks, std::uint64_t call) {
    trace::Record rec;
    rec.arrival = call * 1000000 + std::uint64_t(rank) * 100000;  // ns
    rec.exit = rec.arrival + 50000;
    rec.seq = call;
    rec.comm = trace::world_comm;
    rec.rank = rec.world_rank = rank;
    rec.comm_size = ranks;
    rec.bytes = 8;
    rec.collective = 3;
    rec.op = 0;
    rec.site = std::uint32_t(call % 2);
    return rec;
}

// One rank's files with `calls` records through a pool of `capacity` records.
void write_rank(const std::string& dir, int rank, int ranks, int calls, std::size_t capacity) {
    trace::Writer w;
    std::string error;
    REQUIRE(w.open(dir, rank, capacity, names(), source(), error));
    {
        trace::Writer::Producer producer(w);
        for (int c = 0; c < calls; ++c) producer.add(record(rank, ranks, std::uint64_t(c)));
    }
    std::vector<trace::SiteInfo> sites;
    source().sites(sites);
    REQUIRE(w.finish(sites, trace::Fit{}, error));
    CHECK(w.records_written() == std::uint64_t(calls));
}

std::vector<trace::Record> spilled(const std::string& dir, int rank) {
    std::ifstream in(trace::spill_path(dir, rank), std::ios::binary);
    std::vector<trace::Record> records;
    for (trace::Record r; in.read(reinterpret_cast<char*>(&r), sizeof r);) records.push_back(r);
    return records;
}

long count_events(const fs::path& json) {
    auto lines = lines_of(json);
    return std::count_if(lines.begin(), lines.end(),
                         [](const std::string& l) { return l.find("\"ph\":\"X\"") != std::string::npos; });
}

// Column `name` of every data row of a calls.csv without quoted fields.
std::vector<std::string> csv_column(const fs::path& file, const std::string& name) {
    const auto lines = lines_of(file);
    auto split = [](const std::string& line) {
        std::vector<std::string> fields;
        std::stringstream in(line);
        for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
        if (!line.empty() && line.back() == ',') fields.emplace_back();
        return fields;
    };
    const auto header = split(lines.at(0));
    const auto at = std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
    REQUIRE(at < header.size());
    std::vector<std::string> values;
    for (std::size_t i = 1; i < lines.size(); ++i) values.push_back(split(lines[i]).at(at));
    return values;
}

}  // namespace

TEST_CASE("CSV and JSON quoting") {
    CHECK(trace::csv_field("plain") == "plain");
    CHECK(trace::csv_field("a,b") == "\"a,b\"");
    CHECK(trace::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(trace::json_string("a\"b\\c\n") == "\"a\\\"b\\\\c\\n\"");
    CHECK(trace::json_string(std::string(1, '\x01')) == "\"\\u0001\"");
    CHECK(trace::json_string("caf\xe9.c") == "\"caf\xef\xbf\xbd.c\"");  // Latin-1: U+FFFD keeps the JSON valid
}

TEST_CASE("communicator labels") {
    CHECK(trace::comm_label(trace::world_comm) == "world");
    CHECK(trace::comm_label(trace::comm_id(3, 7)) == "c3.7");
}

TEST_CASE("a small pool spills and nothing is lost; the merge interleaves ranks by arrival") {
    TempDir dir;
    const int ranks = 3, calls = 1000;
    for (int r = 0; r < ranks; ++r) write_rank(dir.str(), r, ranks, calls, 7);  // chunks of one record
    const auto merged = trace::merge(dir.str(), ranks);
    REQUIRE(merged.records == ranks * calls);
    for (const auto& end : merged.ranks) {
        CHECK(end.saved == trace::Saved::finalize);
        CHECK(end.calls_behind == 0);
    }

    auto csv = lines_of(dir.path / "calls.csv");
    REQUIRE(csv.size() == std::size_t(ranks * calls + 1));
    CHECK(csv[0] ==
          "rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,location,arrival_s,exit_s,"
          "predicted_arrival_s,plan");
    // The first call predicts nothing (warm-up); profile-mode records have no plan.
    CHECK(csv[1] == "0,0,world,3,0,allreduce,8,-1,MPI_SUM,native,app+0x10,main,app.c:3,0.000000000,0.000050000,,");
    CHECK(csv[2].rfind("1,1,world,3,0,", 0) == 0);
    CHECK(csv[5].find("\"step, inner\"") != std::string::npos);  // quoted
    double previous = -1;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        std::string row = csv[i];
        for (int trailing = 0; trailing < 2; ++trailing) row.erase(row.rfind(','));  // predicted_arrival_s, plan
        double arrival = std::stod(row.substr(row.rfind(',', row.rfind(',') - 1) + 1));
        CHECK(arrival >= previous);
        previous = arrival;
    }
    // The outputs were renamed into place; the per-rank files stay for the caller to remove
    // (MPI_Finalize does once meta.txt says finalized=1). One JSON document, an event per record.
    CHECK_FALSE(fs::exists(dir.path / "calls.csv.new"));
    CHECK_FALSE(fs::exists(dir.path / "trace.json.new"));
    CHECK(fs::exists(trace::spill_path(dir.str(), 0)));
    trace::remove_rank_files(dir.str(), ranks);
    CHECK_FALSE(fs::exists(trace::spill_path(dir.str(), 0)));
    CHECK_FALSE(fs::exists(trace::index_path(dir.str(), 2)));
    auto json = lines_of(dir.path / "trace.json");
    CHECK(json.front().rfind("{\"displayTimeUnit\"", 0) == 0);
    CHECK(json.back() == "]}");
    CHECK(count_events(dir.path / "trace.json") == ranks * calls);
}

TEST_CASE("threads fill chunks of their own: every record arrives, each thread's in order") {
    TempDir dir;
    // 64 records in 8 chunks for 4 threads; 2 records in 2 chunks for 5 threads (the pool grows).
    for (std::size_t capacity : {std::size_t(64), std::size_t(2)}) {
        const int threads = capacity == 64 ? 4 : 5, per_thread = 5000;
        trace::Writer w;
        std::string error;
        REQUIRE(w.open(dir.str(), 0, capacity, names(), source(), error));
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&w, t] {
                trace::Writer::Producer producer(w);
                for (int c = 0; c < per_thread; ++c) {
                    auto rec = record(0, 1, std::uint64_t(c));
                    rec.comm = std::uint64_t(t);  // which thread
                    producer.add(rec);
                }
            });
        for (auto& worker : workers) worker.join();
        REQUIRE(w.finish({}, trace::Fit{}, error));
        const auto records = spilled(dir.str(), 0);
        REQUIRE(records.size() == std::size_t(threads * per_thread));
        std::vector<std::uint64_t> next(std::size_t(threads), 0);
        for (const auto& r : records) {
            REQUIRE(r.comm < std::uint64_t(threads));
            CHECK(r.seq == next[r.comm]++);
        }
    }
}

TEST_CASE("trace.json is capped, calls.csv is not") {
    TempDir dir;
    write_rank(dir.str(), 0, 1, 50, 100);
    trace::MergeOptions options;
    options.max_json_events = 10;
    REQUIRE(trace::merge(dir.str(), 1, options).records == 50);
    CHECK(lines_of(dir.path / "calls.csv").size() == 51);
    CHECK(count_events(dir.path / "trace.json") == 10);
    auto json = lines_of(dir.path / "trace.json");
    CHECK(json[json.size() - 2].find("first 10 of 50 calls") != std::string::npos);
}

TEST_CASE("the merge reports its progress over every rank's records") {
    TempDir dir;
    write_rank(dir.str(), 0, 2, 30, 100);
    write_rank(dir.str(), 1, 2, 30, 100);
    trace::MergeOptions options;
    std::vector<std::string> lines;
    options.progress = [&](const std::string& line) { lines.push_back(line); };
    double now = 0;  // past the quiet period and the interval at every record: a line each
    options.progress_clock = [&] { return now += 10; };
    REQUIRE(trace::merge(dir.str(), 2, options).records == 60);
    REQUIRE(lines.size() == 60);
    CHECK(lines.front() == "merging the trace: 1 of 60 records (1%)");
    CHECK(lines.back() == "merging the trace: 60 of 60 records (100%)");
}

TEST_CASE("an unwritable directory is reported, not fatal") {
    trace::Writer w;
    std::string error;
    CHECK_FALSE(w.open("/proc/papshim-nonexistent", 0, 10, names(), source(), error));
    CHECK(error.find("/proc/papshim-nonexistent") != std::string::npos);
}

TEST_CASE("a missing rank file makes the merge fail with its name") {
    TempDir dir;
    CHECK_THROWS_WITH(trace::merge(dir.str(), 2), Catch::Contains(".papshim-rank-0.bin"));
}

TEST_CASE("the index round-trips, keeps tabs out of names and names the line of an error") {
    TempDir dir;
    trace::Index index;
    index.world_rank = 4;
    index.saved = trace::Saved::sigterm;
    index.records = 12;
    index.fit = {123, 4.5, 3.3e-10};
    index.names = names();
    index.sites = {{"m+0x1", "f\tg", "a.c:1", "/bin/m", 0x1f}, {"m+0x2", "?", "", "", 0}};
    std::string error;
    REQUIRE(trace::write_index(dir.str(), index, error));
    const auto back = trace::read_index(trace::index_path(dir.str(), 4));
    CHECK(back.world_rank == 4);
    CHECK(back.saved == trace::Saved::sigterm);
    CHECK(back.records == 12);
    CHECK(back.fit.tick0 == 123);
    CHECK(back.fit.seconds_per_tick == 3.3e-10);
    CHECK(back.names.algorithms == index.names.algorithms);
    REQUIRE(back.sites.size() == 2);
    CHECK(back.sites[0].function == "f g");
    CHECK(back.sites[0].module_path == "/bin/m");
    CHECK(back.sites[0].offset == 0x1f);
    CHECK(back.sites[1].location.empty());

    std::ofstream(trace::index_path(dir.str(), 5)) << "papshim-trace-index 2\nrank\t5\nrecords\tmany\n";
    CHECK_THROWS_WITH(trace::read_index(trace::index_path(dir.str(), 5)), Catch::Contains("index:3: 'many'"));
    // Version 1 had 64-byte records: refused by name, not misread.
    std::ofstream(trace::index_path(dir.str(), 6)) << "papshim-trace-index 1\nrank\t6\n";
    CHECK_THROWS_WITH(trace::read_index(trace::index_path(dir.str(), 6)),
                      Catch::Contains("'papshim-trace-index 1' was written by another papshim version"));
}

TEST_CASE("save() writes partly filled chunks and the index; the files outlive the writer") {
    TempDir dir;
    const int ranks = 2;
    {
        trace::Writer w;
        std::string error;
        REQUIRE(w.open(dir.str(), 1, 64, names(), source(), error));  // chunks of 8 records
        trace::Writer::Producer producer(w);
        for (int c = 0; c < 29; ++c) producer.add(record(1, ranks, std::uint64_t(c)));
        REQUIRE(w.save(trace::Saved::abort, 10000));
        CHECK(w.records_written() == 29);
        // A record after a save is written once, by the next save.
        producer.add(record(1, ranks, 29));
        REQUIRE(w.save(trace::Saved::abort, 10000));
        CHECK(w.records_written() == 30);
    }  // destroyed without finish(): what a killed process leaves
    const auto index = trace::read_index(trace::index_path(dir.str(), 1));
    CHECK(index.saved == trace::Saved::abort);
    CHECK(index.records == 30);
    CHECK(index.sites.size() == 2);
    const auto records = spilled(dir.str(), 1);
    REQUIRE(records.size() == 30);
    for (std::size_t i = 0; i < records.size(); ++i) CHECK(records[i].seq == i);
}

TEST_CASE("a writer that dies unsaved leaves an index from open and the chunks it wrote") {
    TempDir dir;
    {
        trace::Writer w;
        std::string error;
        REQUIRE(w.open(dir.str(), 0, 8, names(), source(), error));  // 8 chunks of 1 record
        trace::Writer::Producer producer(w);
        for (int c = 0; c < 3; ++c) producer.add(record(0, 1, std::uint64_t(c)));
    }
    const auto index = trace::read_index(trace::index_path(dir.str(), 0));
    CHECK(index.saved == trace::Saved::running);
    CHECK(index.names.ops == names().ops);
    CHECK(spilled(dir.str(), 0).size() <= 3);  // what reached the file before the end
}

TEST_CASE("recovery merges what a dead job left and says whose records end early") {
    TempDir dir;
    const std::string d = dir.str();
    const int ranks = 3;
    // rank 0 saved at SIGTERM after 100 calls, rank 1 at MPI_Abort after 100, rank 2 was
    // killed after 60 calls and its last record is torn; no rank reached MPI_Finalize.
    for (int r = 0; r < ranks; ++r) {
        trace::Writer w;
        std::string error;
        REQUIRE(w.open(d, r, 64, names(), source(), error));
        trace::Writer::Producer producer(w);
        for (int c = 0; c < (r == 2 ? 60 : 100); ++c) producer.add(record(r, ranks, std::uint64_t(c)));
        REQUIRE(w.save(r == 0 ? trace::Saved::sigterm : trace::Saved::abort, 10000));
        if (r == 2) {
            REQUIRE(w.save(trace::Saved::running, 10000));
            std::ofstream(trace::spill_path(d, r), std::ios::app | std::ios::binary) << "half a record";
        }
    }
    std::ofstream(dir.path / "meta.txt") << "world_size=3\nmpi=openmpi\nmode=profile\n";
    REQUIRE(report::needs_recovery(d));
    CHECK(trace::spill_world_size(d) == 3);

    const auto result = report::recover_directory(d);
    CHECK(result.records == 260);
    REQUIRE(result.ranks.size() == 3);
    CHECK(result.ranks[0].saved == trace::Saved::sigterm);
    CHECK(result.ranks[1].saved == trace::Saved::abort);
    CHECK(result.ranks[2].saved == trace::Saved::running);
    CHECK(result.ranks[2].torn_bytes == 13);
    CHECK(result.ranks[0].calls_behind == 0);
    CHECK(result.ranks[2].calls_behind == 40);
    CHECK(fs::exists(trace::spill_path(d, 0)));  // recovery keeps the raw files
    CHECK(lines_of(dir.path / "calls.csv").size() == 261);
    CHECK(lines_of(dir.path / "trace.json").back() == "]}");
    CHECK_FALSE(report::needs_recovery(d));  // meta.txt says recovered=1 now

    const auto meta = report::read_meta(d + "/meta.txt");
    CHECK(meta.get("mpi") == "openmpi");
    CHECK(meta.get("records") == "260");
    CHECK(meta.get("finalized") == "0");
    CHECK(meta.get("rank.1.saved") == "MPI_Abort");
    CHECK(meta.get("rank.2.calls_behind") == "40");
    const std::string text = report::summarize_directory(d);
    CHECK_THAT(text, Catch::Contains("the run did not reach MPI_Finalize"));
    CHECK_THAT(text, Catch::Contains("rank 1: 100 records, saved at MPI_Abort"));
    CHECK_THAT(text, Catch::Contains("rank 2: 60 records, not saved at the end"));
    CHECK_THAT(text, Catch::Contains("records end early on rank 2 (40 calls behind)"));
    CHECK_THAT(text, Catch::Contains("40 incomplete"));
    CHECK(text.find("warning : meta.txt says records") == std::string::npos);
}

TEST_CASE("a job claims its trace directory; another job's claim sends the next one on") {
    TempDir parent;
    const std::string wanted = (parent.path / "trace").string();
    trace::ClaimOwner first{"host-a", 11, "2026-11-29T05:00:00Z"}, second{"host-b", 22, "2026-11-29T05:00:01Z"};

    const auto a = trace::claim_directory(wanted, first);
    CHECK(a.dir == wanted);
    CHECK(a.skipped.empty());
    REQUIRE(trace::claim_owner(wanted));
    CHECK(trace::claim_owner(wanted)->host == "host-a");
    CHECK(trace::claim_owner(wanted)->pid == 11);

    // A second job while the first holds it, with a trailing slash as a user may type it.
    const auto b = trace::claim_directory(wanted + "/", second);
    CHECK(b.dir == wanted + ".1");
    REQUIRE(b.skipped.size() == 1);
    CHECK_THAT(b.skipped[0], Catch::Contains("host host-a, pid 11, started 2026-11-29T05:00:00Z"));
    CHECK(trace::claim_owner(wanted + ".1")->pid == 22);
    CHECK_FALSE(trace::owner_runs_here(first));  // another host: never taken for a live process here
    CHECK(trace::owner_runs_here(trace::this_process()));

    // Released (the first job merged its trace): the directory is free again.
    trace::release_directory(wanted);
    CHECK_FALSE(trace::claim_owner(wanted));
    CHECK(trace::claim_directory(wanted, second).dir == wanted);

    // Every candidate held: no directory, and an error that says why.
    for (int suffix = 2; suffix <= trace::max_claim_suffix; ++suffix) {
        fs::create_directories(wanted + "." + std::to_string(suffix));
        std::ofstream(wanted + "." + std::to_string(suffix) + "/" + trace::claim_file) << "host=x\npid=1\n";
    }
    const auto none = trace::claim_directory(wanted, first);
    CHECK(none.dir.empty());
    CHECK_THAT(none.error, Catch::Contains("hold other jobs' traces"));
}

namespace {
std::string text_of(const fs::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("papshim's file names") {
    for (const char* name : {"calls.csv", "trace.json", "summary.txt", "meta.txt", "papshim.lock", "calls.csv.new",
                             "meta.txt.new", ".papshim-rank-0.bin", ".papshim-rank-12.index", ".papshim-rank-3.index.new",
                             "pap-omega.png", "pap-heatmap-4.png", "pap-anything.png", "plot-data.csv", "plot-x.csv"})
        CHECK(trace::is_papshim_file_name(name));
    for (const char* name : {"main.c", "summary.md", "calls.csv.bak", ".papshim-rank-x.bin", ".papshim-rank-1.txt",
                             "pap-omega.jpg", "plot.csv", "meta.txt~"})
        CHECK_FALSE(trace::is_papshim_file_name(name));
}

TEST_CASE("a directory of files named as papshim's that is no papshim trace is left untouched") {
    TempDir parent;
    const std::string wanted = (parent.path / "proj").string();
    fs::create_directories(wanted);
    std::ofstream(wanted + "/summary.txt") << "my thesis\n";
    std::ofstream(wanted + "/main.c") << "int main(void) { return 0; }\n";
    const auto claim = trace::claim_directory(wanted, trace::this_process());
    CHECK(claim.dir == wanted + ".1");
    CHECK(claim.skipped.empty());
    REQUIRE(claim.foreign.size() == 1);
    CHECK(claim.foreign[0] == wanted + " holds summary.txt");
    CHECK_FALSE(claim.replaces_trace);
    CHECK(text_of(wanted + "/summary.txt") == "my thesis\n");
    CHECK_FALSE(fs::exists(wanted + "/" + trace::claim_file));  // its own lock taken away again
    CHECK(trace::claim_owner(wanted + ".1"));

    // A meta.txt that papshim did not write does not make it papshim's.
    const std::string other = (parent.path / "other").string();
    fs::create_directories(other);
    std::ofstream(other + "/meta.txt") << "world_size=5\nrecords=1\nfinalized=1\n";
    std::ofstream(other + "/pap-figure.png") << "png";
    const auto contents = trace::inspect_directory(other);
    CHECK(contents.foreign());
    CHECK(contents.papshim_names == std::vector<std::string>{"meta.txt", "pap-figure.png"});
    CHECK(trace::claim_directory(other, trace::this_process()).dir == other + ".1");
}

TEST_CASE("an empty directory or one of other files is traced into, its files kept") {
    TempDir parent;
    const std::string wanted = (parent.path / "src").string();
    fs::create_directories(wanted);
    std::ofstream(wanted + "/main.c") << "int main(void) { return 0; }\n";
    const auto claim = trace::claim_directory(wanted, trace::this_process());
    CHECK(claim.dir == wanted);
    CHECK(claim.foreign.empty());
    CHECK_FALSE(claim.replaces_trace);
    CHECK(fs::exists(wanted + "/main.c"));
    const std::string fresh = (parent.path / "fresh").string();
    const auto created = trace::claim_directory(fresh, trace::this_process());
    CHECK(created.dir == fresh);
    CHECK_FALSE(created.replaces_trace);
}

TEST_CASE("an earlier papshim trace is replaced, its plots too, nothing else") {
    TempDir parent;
    const std::string wanted = (parent.path / "trace").string();
    fs::create_directories(wanted);
    std::ofstream(wanted + "/meta.txt") << "papshim_version=0.1.0\nmpi=openmpi\nworld_size=2\nrecords=8\nfinalized=1\n";
    const std::vector<std::string> earlier = {"calls.csv", "trace.json", "summary.txt", "calls.csv.new",
                                              "plot-sites.csv", "plot-data.csv", "pap-omega.png", "pap-heatmap-1.png",
                                              "pap-heatmap-12.png"};
    const std::vector<std::string> kept = {"main.c", "pap-heatmap-mine.png", "plot-mine.csv", "meta.txt"};
    for (const auto& name : earlier) std::ofstream(wanted + "/" + name) << "earlier\n";
    for (const auto& name : kept) std::ofstream(wanted + "/" + name, std::ios::app) << "";
    const auto claim = trace::claim_directory(wanted, trace::this_process());
    CHECK(claim.dir == wanted);
    CHECK(claim.replaces_trace);
    CHECK(claim.foreign.empty());
    trace::remove_earlier_outputs(wanted);
    for (const auto& name : earlier) CHECK_FALSE(fs::exists(wanted + "/" + name));
    for (const auto& name : kept) CHECK(fs::exists(wanted + "/" + name));
}

TEST_CASE("a claim that cannot be made says why") {
    const auto claim = trace::claim_directory("/proc/papshim-no/trace", trace::this_process());
    CHECK(claim.dir.empty());
    CHECK_THAT(claim.error, Catch::Contains("/proc/papshim-no"));
}

TEST_CASE("a trace directory that is a file, or under one, is named as a file") {
    TempDir dir;
    const std::string file = dir.str() + "/notes";
    std::ofstream(file) << "mine\n";
    for (const std::string& wanted : {file, file + "/"}) {
        const auto claim = trace::claim_directory(wanted, trace::this_process());
        CHECK(claim.dir.empty());
        CHECK(claim.error == "trace directory " + wanted + " is an existing file, not a directory");
    }
    const auto below = trace::claim_directory(file + "/run/1", trace::this_process());
    CHECK(below.error == "cannot create trace directory " + file + "/run/1: " + file +
                             " is an existing file, not a directory");
    CHECK(lines_of(file) == std::vector<std::string>{"mine"});
}

TEST_CASE("recovery refuses a trace whose job still runs here, and releases the claim of one it recovers") {
    TempDir dir;
    const std::string d = dir.str();
    write_rank(d, 0, 1, 10, 64);
    std::ofstream(dir.path / trace::claim_file) << fmt::format("host={}\npid={}\nstarted=now\n",
                                                                 trace::this_process().host, ::getpid());
    CHECK_THROWS_WITH(report::recover_directory(d), Catch::Contains("still runs"));
    CHECK_FALSE(fs::exists(dir.path / "calls.csv"));
    // The owner is gone (a pid that no process has): recovered, and the directory is free.
    std::ofstream(dir.path / trace::claim_file) << fmt::format("host={}\npid=2147483646\n",
                                                                 trace::this_process().host);
    CHECK(report::recover_directory(d).records == 10);
    CHECK_FALSE(fs::exists(dir.path / trace::claim_file));
}

TEST_CASE("recovery of a trace claimed on another host needs --recover") {
    TempDir dir;
    const std::string d = dir.str();
    write_rank(d, 0, 1, 10, 64);
    std::ofstream(dir.path / trace::claim_file) << "host=another-node\npid=1234\nstarted=2026-11-29T05:00:00Z\n";
    // papshim-report's automatic recovery: that job may still run there.
    CHECK_THROWS_WITH(report::recover_directory(d), Catch::Contains("papshim-report --recover " + d));
    CHECK(fs::exists(dir.path / trace::claim_file));
    CHECK_FALSE(fs::exists(dir.path / "calls.csv"));
    // --recover: the user says it has ended.
    CHECK(report::recover_directory(d, true).records == 10);
    CHECK_FALSE(fs::exists(dir.path / trace::claim_file));
}

TEST_CASE("recovery without meta.txt, with a rank whose files are missing") {
    TempDir dir;
    write_rank(dir.str(), 1, 2, 10, 64);  // rank 0 left nothing
    CHECK(trace::spill_world_size(dir.str()) == 2);
    const auto result = report::recover_directory(dir.str());
    CHECK(result.records == 10);
    CHECK_FALSE(result.ranks[0].spill_file);
    CHECK(result.ranks[0].calls_behind == 10);
    CHECK(report::read_meta(dir.str() + "/meta.txt").get("rank.0.saved") == "no-file");
    CHECK_THAT(report::summarize_directory(dir.str()), Catch::Contains("rank 0: 0 records, no spill file"));
}

TEST_CASE("recovery of a directory without spill files says so") {
    TempDir dir;
    CHECK_FALSE(report::needs_recovery(dir.str()));
    CHECK_THROWS_WITH(report::recover_directory(dir.str()), Catch::Contains("no spill files"));
}

TEST_CASE("recovery never replaces a finished trace") {
    TempDir dir;
    const std::string d = dir.str();
    write_rank(d, 0, 1, 10, 64);
    REQUIRE(trace::merge(d, 1).records == 10);
    trace::remove_rank_files(d, 1);
    std::ofstream(dir.path / "meta.txt") << "world_size=1\nrecords=10\nfinalized=1\n";
    const auto before = lines_of(dir.path / "calls.csv");
    // What MPI_Finalize leaves: nothing to recover, --recover or not.
    CHECK_FALSE(report::needs_recovery(d));
    CHECK_THROWS_WITH(report::recover_directory(d), Catch::Contains(d + ": no spill files"));
    // Spill files of another (earlier, larger) job next to it: still not this run's to merge.
    write_rank(d, 3, 4, 5, 64);
    CHECK_FALSE(report::needs_recovery(d));
    CHECK_THROWS_WITH(report::recover_directory(d), Catch::Contains("finalized=1"));
    CHECK(lines_of(dir.path / "calls.csv") == before);
    CHECK(report::read_meta(d + "/meta.txt").get("records") == "10");
}

TEST_CASE("a calls.csv not completed by this run's merge does not stop its recovery") {
    TempDir dir;
    const std::string d = dir.str();
    // An earlier job's calls.csv (or one a SIGTERM cut during the merge) beside this run's
    // spill files; meta.txt as MPI_Init wrote it: no finalized=, no recovered=.
    std::ofstream(dir.path / "calls.csv") << "rank,world_rank\n0,0\n";
    std::ofstream(dir.path / "meta.txt") << "world_size=2\nmode=profile\n";
    for (int r = 0; r < 2; ++r) write_rank(d, r, 2, 30, 64);
    REQUIRE(report::needs_recovery(d));
    CHECK(report::recover_directory(d).records == 60);
    CHECK(lines_of(dir.path / "calls.csv").size() == 61);
    CHECK_FALSE(report::needs_recovery(d));
}

namespace {

// A rank's calls with uneven compute intervals, so that the predictors disagree.
void write_uneven_rank(const std::string& dir, int rank, int ranks, int calls) {
    trace::Writer w;
    std::string error;
    // No comma in the names: csv_column() reads these calls.csv files.
    trace::Writer::IndexSource plain{[] { return trace::Fit{}; }, [](std::vector<trace::SiteInfo>& sites) {
                                         sites = {{"app+0x10", "main", "", "", 0}, {"app+0x20", "step", "", "", 0}};
                                         return true;
                                     }};
    REQUIRE(w.open(dir, rank, 64, names(), plain, error));
    {
        trace::Writer::Producer producer(w);
        std::uint64_t now = 0;
        for (int c = 0; c < calls; ++c) {
            trace::Record rec = record(rank, ranks, std::uint64_t(c));
            now += 100000 + std::uint64_t(c % 5) * 70000 + std::uint64_t(rank) * 1000;
            rec.arrival = now;
            rec.exit = now += 20000;
            producer.add(rec);
        }
    }
    REQUIRE(w.save(trace::Saved::abort, 10000));
}

}  // namespace

TEST_CASE("recovery predicts offline with the run's predictor settings from meta.txt") {
    const auto predicted = [](const std::string& meta_predictor, const predict::Settings* finalize_settings) {
        TempDir dir;
        for (int r = 0; r < 2; ++r) write_uneven_rank(dir.str(), r, 2, 40);
        if (finalize_settings) {
            trace::MergeOptions options;
            options.predictor = *finalize_settings;
            trace::merge(dir.str(), 2, options);
        } else {
            std::ofstream(dir.path / "meta.txt") << "world_size=2\n" << meta_predictor;
            report::recover_directory(dir.str());
        }
        return csv_column(dir.path / "calls.csv", "predicted_arrival_s");
    };
    predict::Settings last;
    last.method = predict::Method::last;
    const predict::Settings sma{predict::Method::sma, 0.25, 3};
    const auto by_last = predicted("predictor=last\n", nullptr);
    CHECK(by_last == predicted("", &last));
    CHECK(predicted("predictor=sma\nsma_window=3\n", nullptr) == predicted("", &sma));
    CHECK(by_last != predicted("predictor=ema\n", nullptr));
}

TEST_CASE("a zero-filled or corrupt tail ends its rank's records; the merge says where") {
    TempDir dir;
    const std::string d = dir.str();
    for (int r = 0; r < 2; ++r) write_uneven_rank(d, r, 2, 10);
    // Rank 1: two zero-filled records (power loss, delayed allocation) after its 10.
    std::ofstream(trace::spill_path(d, 1), std::ios::app | std::ios::binary) << std::string(2 * sizeof(trace::Record), '\0');
    // MPI_Finalize's merge refuses, naming the file, and leaves no calls.csv behind.
    CHECK_THROWS_WITH(trace::merge(d, 2), Catch::Contains(trace::spill_path(d, 1) + ": record 11 of 12 is not a valid "
                                                          "record (communicator size 0)"));
    CHECK_FALSE(fs::exists(dir.path / "calls.csv"));
    CHECK_FALSE(fs::exists(dir.path / "calls.csv.new"));

    std::ofstream(dir.path / "meta.txt") << "world_size=2\n";
    const auto result = report::recover_directory(d);
    CHECK(result.records == 20);
    CHECK(result.ranks[1].records == 10);
    CHECK(result.ranks[1].bad_records == 2);
    CHECK(result.ranks[0].bad_records == 0);
    REQUIRE(result.warnings.size() == 1);
    CHECK_THAT(result.warnings[0], Catch::Contains(trace::spill_path(d, 1) + ": record 11 of 12") &&
                                       Catch::Contains("it and the 1 after it are left out"));
    CHECK(lines_of(dir.path / "calls.csv").size() == 21);
    CHECK(report::read_meta(d + "/meta.txt").get("rank.1.bad_records") == "2");
    CHECK_THAT(report::summarize_directory(d), Catch::Contains("rank 1: 10 records, saved at MPI_Abort; 2 invalid records"));
}

TEST_CASE("a spill file shorter than its index counted is recovered with a warning") {
    TempDir dir;
    const std::string d = dir.str();
    for (int r = 0; r < 2; ++r) write_uneven_rank(d, r, 2, 10);
    fs::resize_file(trace::spill_path(d, 1), 4 * sizeof(trace::Record));  // cut after the index was saved
    std::ofstream(dir.path / "meta.txt") << "world_size=2\n";
    const auto result = report::recover_directory(d);
    CHECK(result.ranks[1].records == 4);
    REQUIRE(result.warnings.size() == 1);
    CHECK_THAT(result.warnings[0], Catch::Contains(trace::spill_path(d, 1) + ": 4 whole records where its index "
                                                                            "counted 10: the rest is lost"));
}

TEST_CASE("records that cannot be a rank's are refused, each for its own reason") {
    const auto merged = [](auto&& change) {
        TempDir dir;
        write_rank(dir.str(), 0, 2, 4, 64);
        auto records = spilled(dir.str(), 0);
        change(records[2]);
        std::ofstream out(trace::spill_path(dir.str(), 0), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(records.data()), std::streamsize(records.size() * sizeof(trace::Record)));
        out.close();
        trace::MergeOptions options;
        options.recovering = true;
        return trace::merge(dir.str(), 1, options);
    };
    const auto refused = [&](auto&& corrupt) {
        const auto result = merged(corrupt);
        CHECK(result.ranks[0].records == 2);
        CHECK(result.ranks[0].bad_records == 2);
        return result.warnings.empty() ? std::string() : result.warnings[0];
    };
    // Real records: an inter-communicator's Reduce root (MPI_ROOT), an exit a few ticks
    // before the arrival (counters of two CPUs).
    const auto real = merged([](trace::Record& r) {
        r.root = -4;
        r.exit = r.arrival - 1000;
    });
    CHECK(real.ranks[0].records == 4);
    CHECK(real.warnings.empty());
    CHECK_THAT(refused([](trace::Record& r) { r.rank = 2; }), Catch::Contains("rank 2 in a communicator of size 2"));
    CHECK_THAT(refused([](trace::Record& r) { r.world_rank = 1; }), Catch::Contains("world rank 1"));
    CHECK_THAT(refused([](trace::Record& r) { r.collective = 4; }), Catch::Contains("collective 4"));
    CHECK_THAT(refused([](trace::Record& r) { r.op = 1; }), Catch::Contains("op 1"));
    CHECK_THAT(refused([](trace::Record& r) { r.arrival = r.exit + 2'000'000'000; }), Catch::Contains("ticks"));
    CHECK_THAT(refused([](trace::Record& r) { r.arrival = r.exit = ~std::uint64_t{0} >> 1; }), Catch::Contains("ticks"));
}

// What the merge keeps, papshim-report reads (the report refused an exit before its arrival,
// which the merge keeps as real); a prediction from garbage bytes is dropped, not its record.
TEST_CASE("records the merge keeps are records the report reads") {
    TempDir dir;
    write_rank(dir.str(), 0, 1, 4, 64);
    auto records = spilled(dir.str(), 0);
    records[1].exit = records[1].arrival - 1000;
    records[2].online = std::uint8_t(trace::Online::predicted);
    records[2].predicted_arrival = ~std::uint64_t{0} >> 1;  // 4.6e9 s: no time of the job
    {
        std::ofstream out(trace::spill_path(dir.str(), 0), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(records.data()), std::streamsize(records.size() * sizeof(trace::Record)));
    }
    trace::MergeOptions options;
    options.recovering = true;
    const auto result = trace::merge(dir.str(), 1, options);
    CHECK(result.ranks[0].records == 4);
    CHECK(result.warnings.empty());
    std::string text;
    REQUIRE_NOTHROW(text = report::summarize_directory(dir.str()));
    CHECK_THAT(text, Catch::Contains("4 rows, 4 complete calls"));
    for (const std::string& line : lines_of(dir.path / "calls.csv")) CHECK(line.find("4611686") == std::string::npos);
}

TEST_CASE("an index whose tick fit maps to no finite time is refused by name") {
    TempDir dir;
    for (const char* fit : {"fit\t5\tnan\t1e-9", "fit\t5\t1.0\tinf", "fit\t5\t1.0\t0"}) {
        std::ofstream(trace::index_path(dir.str(), 0)) << "papshim-trace-index 2\nrank\t0\n" << fit << "\n";
        CHECK_THROWS_WITH(trace::read_index(trace::index_path(dir.str(), 0)),
                          Catch::Contains(".papshim-rank-0.index:3: the tick fit") &&
                              Catch::Contains("is not usable"));
    }
}

TEST_CASE("the merge raises the soft open-file limit it needs, and gives it back") {
    TempDir dir;
    const int ranks = 40;
    for (int r = 0; r < ranks; ++r) write_rank(dir.str(), r, ranks, 2, 8);
    rlimit original{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &original) == 0);
    if (original.rlim_max != RLIM_INFINITY && original.rlim_max < 200) return;  // no room to test it here
    rlimit low = original;
    low.rlim_cur = 24;  // fewer than the ranks' files
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
    const auto merged = [&] {
        try {
            return trace::merge(dir.str(), ranks).records;
        } catch (...) {
            return -1LL;
        }
    }();
    rlimit after{};
    ::getrlimit(RLIMIT_NOFILE, &after);
    ::setrlimit(RLIMIT_NOFILE, &original);
    CHECK(merged == ranks * 2);
    CHECK(after.rlim_cur == 24);
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


TEST_CASE("the merge predicts each rank's arrivals offline exactly as the online predictor does") {
    // Sites 0 and 1 are one innermost frame reached from two callers (PAPSHIM_CALLSITE_DEPTH 2):
    // the online predictor keys by the return address, so both feed one series; site 2 is another.
    const std::vector<trace::SiteInfo> sites = {{"app+0x10;main+0x5", "f", "", "/app", 0x10},
                                                {"app+0x10;main+0x9", "f", "", "/app", 0x10},
                                                {"app+0x20", "g", "", "/app", 0x20}};
    const std::uint32_t innermost[] = {0, 0, 2};
    for (predict::Method method : {predict::Method::ema, predict::Method::sma, predict::Method::last}) {
        const predict::Settings settings{method, 0.4, 3};
        TempDir dir;
        trace::Writer w;
        std::string error;
        trace::Writer::IndexSource with_sites{[] { return trace::Fit{}; },
                                              [&](std::vector<trace::SiteInfo>& out) { out = sites; return true; }};
        REQUIRE(w.open(dir.str(), 0, 16, names(), with_sites, error));
        predict::CommHistory online;
        std::vector<std::string> expected;
        std::uint64_t now = 1'000'000;
        {
            trace::Writer::Producer producer(w);
            for (std::uint64_t call = 0; call < 200; ++call) {
                trace::Record rec = record(0, 1, call);
                rec.site = std::uint32_t(call % 3 == 2 ? 2 : call % 2);
                rec.bytes = call % 3 == 2 ? 4096 : 8;
                now += 1000 + (call * 7919) % 5000;  // compute, varying
                rec.arrival = now;
                now += 300 + (call * 104729) % 700;  // inside the call
                rec.exit = now;
                const predict::Signature signature{rec.collective, rec.op, rec.root, rec.bytes};
                const auto key = reinterpret_cast<const void*>(std::uintptr_t(innermost[rec.site] + 1));
                const auto prediction = online.enter(key, signature, rec.arrival, settings);
                online.leave(rec.exit, settings);
                expected.push_back(prediction ? fmt::format("{:.9f}", trace::Fit{}.seconds(prediction->arrival)) : "");
                producer.add(rec);
            }
        }
        REQUIRE(w.finish(sites, trace::Fit{}, error));
        trace::MergeOptions options;
        options.predictor = settings;
        REQUIRE(trace::merge(dir.str(), 1, options).records == 200);
        const auto predicted = csv_column(dir.path / "calls.csv", "predicted_arrival_s");
        CHECK(predicted == expected);
        CHECK(std::count(predicted.begin(), predicted.end(), "") < 10);  // warm-up only
        const auto plans = csv_column(dir.path / "calls.csv", "plan");
        CHECK(std::count(plans.begin(), plans.end(), "") == 200);  // profile mode plans nothing
    }
}

TEST_CASE("an online prediction and plan outcome pass through the merge") {
    TempDir dir;
    trace::Writer w;
    std::string error;
    const std::vector<trace::SiteInfo> sites = {{"app+0x10", "main", "", "/app", 0x10}};
    trace::Writer::IndexSource one_site{[] { return trace::Fit{}; },
                                        [&](std::vector<trace::SiteInfo>& out) { out = sites; return true; }};
    REQUIRE(w.open(dir.str(), 0, 16, names(), one_site, error));
    {
        trace::Writer::Producer producer(w);
        for (std::uint64_t call = 0; call < 6; ++call) {
            trace::Record rec = record(0, 1, call);
            rec.online = std::uint8_t(call < 2 ? trace::Online::no_prediction : trace::Online::predicted);
            rec.predicted_arrival = call < 2 ? 0 : rec.arrival + 2500;
            rec.plan = std::uint8_t(call < 2   ? trace::PlanUse::none
                                    : call < 3 ? trace::PlanUse::guarded
                                    : call < 5 ? trace::PlanUse::hit
                                               : trace::PlanUse::miss);
            rec.algorithm = call >= 3 && call < 5 ? 1 : 0;
            rec.site = 0;
            producer.add(rec);
        }
    }
    REQUIRE(w.finish(sites, trace::Fit{}, error));
    REQUIRE(trace::merge(dir.str(), 1).records == 6);
    const fs::path csv = dir.path / "calls.csv";
    // The online predictor's warm-up stays empty: no offline value replaces it.
    CHECK(csv_column(csv, "predicted_arrival_s") ==
          std::vector<std::string>{"", "", "0.002002500", "0.003002500", "0.004002500", "0.005002500"});
    CHECK(csv_column(csv, "plan") == std::vector<std::string>{"", "", "guarded", "hit", "hit", "miss"});
    CHECK(csv_column(csv, "algorithm") ==
          std::vector<std::string>{"native", "native", "native", "sparbit", "sparbit", "native"});
}
