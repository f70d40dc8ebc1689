// PAP report: the maths on hand-computed examples, the CSV and meta readers (quoting, errors),
// call grouping (incomplete calls, wait states, sampling) and the whole text on a directory.
#include "papshim/report.hpp"

#include <catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace report = papshim::report;
using Catch::Matchers::Contains;

namespace {

std::vector<std::vector<std::string>> read_all_csv(const std::string& text) {
    std::istringstream in(text);
    report::CsvReader reader(in, "t.csv");
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> fields;
    while (reader.next(fields)) records.push_back(fields);
    return records;
}

report::Analysis analyze_text(const std::string& calls, const std::string& meta = "") {
    std::istringstream meta_in(meta);
    std::istringstream calls_in(calls);
    return report::analyze(calls_in, "calls.csv", report::parse_meta(meta_in, "meta.txt"));
}

const std::string header =
    "rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,"
    "location,arrival_s,exit_s\n";

std::string row(int rank, int seq, const std::string& collective, int bytes, int root,
                const std::string& site, double arrival, int comm_size = 3,
                const std::string& comm = "c0.1") {
    std::ostringstream out;
    out.precision(17);
    out << rank << ',' << rank + 4 << ',' << comm << ',' << comm_size << ',' << seq << ','
        << collective << ',' << bytes << ',' << root << ",MPI_SUM,native," << site
        << ",fn,\"a.c:1\"," << arrival << ',' << arrival + 0.01 << '\n';
    return out.str();
}

// Three calls on a 3-rank communicator (world ranks 4..6) plus one with rank 1 missing.
std::string small_trace() {
    return header +
           row(0, 0, "allreduce", 1000, -1, "app+0x10", 1.000) +
           row(2, 0, "allreduce", 1000, -1, "app+0x10", 1.001) +
           row(1, 0, "allreduce", 1000, -1, "app+0x10", 1.004) +
           row(0, 1, "allreduce", 1000, -1, "app+0x10", 2.000) +
           row(1, 1, "allreduce", 1000, -1, "app+0x10", 2.000) +
           row(2, 1, "allreduce", 1000, -1, "app+0x10", 2.002) +
           row(1, 2, "reduce", 8, 1, "app+0x20", 3.000) +
           row(2, 2, "reduce", 8, 1, "app+0x20", 3.003) +
           row(0, 2, "reduce", 8, 1, "app+0x20", 3.005) +
           row(0, 3, "allgather", 3000, -1, "app+0x30", 4.000) +
           row(2, 3, "allgather", 3000, -1, "app+0x30", 4.001);
}
const std::string small_meta =
    "# test run\nmpi=openmpi\nworld_size=7\n  # latency\nalpha_s=1e-6\nbeta_s_per_byte=1e-9\n"
    "future_key=whatever\nnetwork=ib #2 fat-tree\n";

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "papshim-report-XXXXXX");
        path = mkdtemp(pattern.data());
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name) << text;
    }
};

}  // namespace

TEST_CASE("omega, mean absolute deviation, last rank and Wait at NxN", "[report][maths]") {
    const std::vector<double> arrivals = {1.0, 3.0, 2.0, 6.0};
    CHECK(report::omega(arrivals) == Approx(5.0));
    CHECK(report::mean(arrivals) == Approx(3.0));
    CHECK(report::mean_absolute_deviation(arrivals) == Approx(1.5));  // (2+0+1+3)/4
    CHECK(report::last_rank(arrivals) == 3);
    CHECK(report::wait_at_nxn(arrivals) == std::vector<double>{5.0, 3.0, 4.0, 0.0});

    CHECK(report::omega(std::vector<double>{7.0}) == 0.0);
    CHECK(report::omega(std::vector<double>{}) == 0.0);
    CHECK(report::mean_absolute_deviation(std::vector<double>{}) == 0.0);
    CHECK(report::last_rank(std::vector<double>{}) == -1);
    CHECK(report::last_rank(std::vector<double>{2.0, 5.0, 5.0}) == 1);  // tie: lowest rank
}

TEST_CASE("percentiles interpolate between closest ranks", "[report][maths]") {
    CHECK(report::percentile({5, 1, 4, 2, 3}, 50) == Approx(3.0));
    CHECK(report::percentile({5, 1, 4, 2, 3}, 95) == Approx(4.8));  // 4 + 0.8 * (5 - 4)
    CHECK(report::percentile({5, 1, 4, 2, 3}, 0) == Approx(1.0));
    CHECK(report::percentile({5, 1, 4, 2, 3}, 100) == Approx(5.0));
    CHECK(report::percentile({10, 20}, 50) == Approx(15.0));
    CHECK(report::percentile({7}, 95) == Approx(7.0));
    CHECK(report::percentile({}, 50) == 0.0);
}

TEST_CASE("Early Reduce is the root's wait for the first other rank", "[report][maths]") {
    CHECK(report::early_reduce(std::vector<double>{5.0, 7.0, 6.0}, 0) == Approx(1.0));
    CHECK(report::early_reduce(std::vector<double>{5.0, 7.0, 6.0}, 1) == 0.0);  // root late
    CHECK(report::early_reduce(std::vector<double>{4.0}, 0) == 0.0);            // nobody else
    CHECK(report::early_reduce(std::vector<double>{1.0, 2.0}, 5) == 0.0);       // bad root
}

TEST_CASE("ranks most often last, with their share", "[report][maths]") {
    const std::map<int, std::uint64_t> counts = {{0, 1}, {1, 5}, {2, 5}, {3, 2}};
    const auto top = report::top_ranks(counts, 13, 3);
    REQUIRE(top.size() == 3);
    CHECK(top[0].rank == 1);
    CHECK(top[1].rank == 2);  // tie with rank 1: lower rank first
    CHECK(top[2].rank == 3);
    CHECK(top[0].share == Approx(5.0 / 13.0));
    CHECK(report::top_ranks({}, 0, 3).empty());
}

TEST_CASE("tau uses one message: a block for Allgather(v), the vector for reductions",
          "[report][maths]") {
    CHECK(report::message_bytes("allgather", 16384, 4) == Approx(4096));
    CHECK(report::message_bytes("allgatherv", 100, 4) == Approx(25));
    CHECK(report::message_bytes("allreduce", 8192, 4) == Approx(8192));
    CHECK(report::message_bytes("reduce", 8, 2) == Approx(8));
    CHECK(report::tau(1e-6, 1e-9, 1000) == Approx(2e-6));
}

TEST_CASE("CSV reader follows RFC 4180", "[report][csv]") {
    SECTION("quotes, commas, doubled quotes and empty fields") {
        const auto records = read_all_csv("a,\"b,c\",\"say \"\"hi\"\"\",\n,x\n");
        REQUIRE(records.size() == 2);
        CHECK(records[0] == std::vector<std::string>{"a", "b,c", "say \"hi\"", ""});
        CHECK(records[1] == std::vector<std::string>{"", "x"});
    }
    SECTION("line breaks inside quotes, CRLF, no final newline, blank lines") {
        std::istringstream in("\"x\ny\",z\r\n\r\nlast,\"\"");
        report::CsvReader reader(in, "t.csv");
        std::vector<std::string> fields;
        REQUIRE(reader.next(fields));
        CHECK(fields == std::vector<std::string>{"x\ny", "z"});
        CHECK(reader.line() == 1);
        REQUIRE(reader.next(fields));
        CHECK(fields == std::vector<std::string>{"last", ""});
        CHECK(reader.line() == 4);
        CHECK_FALSE(reader.next(fields));
    }
    SECTION("malformed quoting names file and line") {
        CHECK_THROWS_WITH(read_all_csv("ok\na\"b\n"), Contains("t.csv:2:"));
        CHECK_THROWS_WITH(read_all_csv("\"abc\n"), Contains("unterminated"));
        CHECK_THROWS_WITH(read_all_csv("x\n\"ab\"c\n"), Contains("t.csv:2:"));
    }
}

TEST_CASE("calls.csv columns are found by header name", "[report][csv]") {
    std::istringstream in(
        "extra,arrival_s,exit_s,rank,world_rank,comm,comm_size,seq,collective,bytes,root\n"
        "\"q,q\",1.5,1.75,1,3,world,2,9,reduce,64,0\n");
    report::CallsReader reader(in, "calls.csv");
    report::CallRow parsed;
    REQUIRE(reader.next(parsed));
    CHECK(parsed.rank == 1);
    CHECK(parsed.world_rank == 3);
    CHECK(parsed.comm == "world");
    CHECK(parsed.seq == 9);
    CHECK(parsed.collective == "reduce");
    CHECK(parsed.bytes == 64);
    CHECK(parsed.arrival_s == 1.5);
    CHECK(parsed.callsite.empty());  // optional column absent
    CHECK_FALSE(reader.next(parsed));
}

// A damaged comm_size claims two billion ranks: the report holds the rows it has, not the
// size (a dense table of it took 24 GiB and the kernel's OOM killer), and names the ranks
// missing as ranges.
TEST_CASE("a call's claimed size costs no memory; missing ranks are ranges", "[report]") {
    const int huge = 2000000000;
    const report::Analysis a = analyze_text(header + row(0, 0, "allreduce", 8, -1, "s", 1.0, huge) +
                                            row(5, 0, "allreduce", 8, -1, "s", 1.0, huge) +
                                            row(0, 1, "allreduce", 8, -1, "s", 2.0, huge));
    CHECK(a.incomplete_total == 2);
    REQUIRE(a.incomplete.size() == 2);
    CHECK(a.incomplete[0].missing == std::vector<report::RankRange>{{1, 4}, {6, huge - 1}});
    CHECK(a.incomplete[1].missing == std::vector<report::RankRange>{{1, huge - 1}});
}

TEST_CASE("malformed calls.csv is an error naming file and line", "[report][csv]") {
    CHECK_THROWS_WITH(analyze_text(""), Contains("calls.csv:1: empty file"));
    CHECK_THROWS_WITH(analyze_text("rank,comm\n"), Contains("no column 'world_rank'"));
    CHECK_THROWS_WITH(analyze_text(header + row(0, 0, "allreduce", 8, -1, "s", 1.0) + "1,2\n"),
                      Contains("calls.csv:3: expected 15 fields"));
    CHECK_THROWS_WITH(analyze_text(header + "0,0,world,2,zero,allreduce,8,-1,,n,s,f,l,1,2\n"),
                      Contains("calls.csv:2: column 'seq': 'zero'"));
    CHECK_THROWS_WITH(analyze_text(header + "2,0,world,2,0,allreduce,8,-1,,n,s,f,l,1,2\n"),
                      Contains("rank 2 is not in a communicator of size 2"));
    CHECK_THROWS_WITH(analyze_text(header + "0,0,world,2,0,allreduce,8,-1,,n,s,f,l,nan,2\n"),
                      Contains("finite"));
    SECTION("two rows of one rank in one call") {
        CHECK_THROWS_WITH(analyze_text(header + row(0, 0, "allreduce", 8, -1, "s", 1.0) +
                                       row(0, 0, "allreduce", 8, -1, "s", 1.1)),
                          Contains("calls.csv:3: second row for rank 0"));
    }
    SECTION("two rows of one rank in a call that never completes") {
        CHECK_THROWS_WITH(analyze_text(header + row(1, 0, "allreduce", 8, -1, "s", 1.0) +
                                       row(1, 0, "allreduce", 8, -1, "s", 1.1)),
                          Contains("calls.csv:3: second row for rank 1"));
    }
    SECTION("times no run has") {
        CHECK_THROWS_WITH(analyze_text(header + "0,0,world,2,0,allreduce,8,-1,,n,s,f,l,2.5,1.2\n"),
                          Contains("calls.csv:2: exit_s 1.2 is more than 1 s before arrival_s 2.5"));
        CHECK_THROWS_WITH(analyze_text(header + "0,0,world,2,0,allreduce,8,-1,,n,s,f,l,1e300,1e300\n"),
                          Contains("calls.csv:2: arrival_s and exit_s must be finite and within 1e+08 s"));
        // A little before is real: two CPUs' counters (the merge keeps it, trace::plausible_call_times).
        CHECK_NOTHROW(analyze_text(header + "0,0,world,1,0,allreduce,8,-1,,n,s,f,l,2.5,2.4999\n"));
        CHECK_THROWS_WITH(analyze_text(header + "0,-3,world,2,0,allreduce,8,-1,,n,s,f,l,1,2\n"),
                          Contains("calls.csv:2: world_rank -3 is negative"));
    }
    SECTION("ranks disagree on what the call is") {
        CHECK_THROWS_WITH(analyze_text(header + row(0, 0, "allreduce", 8, -1, "s", 1.0) +
                                       row(1, 0, "allgather", 8, -1, "s", 1.1)),
                          Contains("calls.csv:3:"));
    }
}

TEST_CASE("meta.txt: key=value, comments, unknown keys", "[report][meta]") {
    std::istringstream in(small_meta);
    const auto meta = report::parse_meta(in, "meta.txt");
    REQUIRE(meta.alpha_s);
    CHECK(*meta.alpha_s == Approx(1e-6));
    CHECK(*meta.beta_s_per_byte == Approx(1e-9));
    CHECK(meta.get("mpi") == "openmpi");
    CHECK(meta.get("future_key") == "whatever");
    CHECK(meta.get("network") == "ib #2 fat-tree");  // '#' starts a comment only at the start of a line
    CHECK(meta.get("absent", "x") == "x");

    std::istringstream broken("mpi=openmpi\njust text\n");
    CHECK_THROWS_WITH(report::parse_meta(broken, "meta.txt"), Contains("meta.txt:2:"));
    std::istringstream negative("alpha_s=-1\n");
    CHECK_THROWS_WITH(report::parse_meta(negative, "meta.txt"), Contains("alpha_s"));
}

TEST_CASE("calls are grouped by (comm, seq); incomplete ones stay out", "[report][analysis]") {
    const auto a = analyze_text(small_trace(), small_meta);
    CHECK(a.rows == 11);
    REQUIRE(a.sites.size() == 3);

    const auto& allreduce = a.sites[0];
    CHECK(allreduce.collective == "allreduce");
    CHECK(allreduce.callsite == "app+0x10");
    CHECK(allreduce.calls == 2);
    CHECK(allreduce.bytes == 2000);
    REQUIRE(allreduce.omega_s.size() == 2);
    CHECK(allreduce.omega_s[0] == Approx(0.004));
    CHECK(allreduce.omega_s[1] == Approx(0.002));
    // MAD of {1.000, 1.004, 1.001} is 0.0046667/3; of {2, 2, 2.002} it is 0.0026667/3.
    CHECK(allreduce.sum_mad_s == Approx((0.0046667 + 0.0026667) / 3).epsilon(1e-4));
    // τ = 1 µs + 1 ns/B · 1000 B = 2 µs: ω/τ = 2000 and 1000.
    CHECK(allreduce.sum_omega_over_tau == Approx(3000));
    CHECK(allreduce.wait_s == Approx(0.007 + 0.004));
    CHECK(allreduce.last_counts == std::map<int, std::uint64_t>{{5, 1}, {6, 1}});  // world

    const auto& reduce = a.sites[1];
    CHECK(reduce.collective == "reduce");
    CHECK(reduce.calls == 1);
    CHECK(reduce.wait_s == Approx(0.003));

    const auto& allgather = a.sites[2];
    CHECK(allgather.calls == 0);
    CHECK(allgather.incomplete == 1);
    CHECK(a.incomplete_total == 1);
    REQUIRE(a.incomplete.size() == 1);
    CHECK(a.incomplete[0].comm == "c0.1");
    CHECK(a.incomplete[0].seq == 3);
    CHECK(a.incomplete[0].missing == std::vector<report::RankRange>{{1, 1}});

    // Wait states by world rank (comm rank + 4).
    CHECK(a.ranks.at(4).wait_nxn_s == Approx(0.006));
    CHECK(a.ranks.at(4).nxn_calls == 2);
    CHECK(a.ranks.at(4).calls == 3);
    CHECK(a.ranks.at(4).last == 1);  // the Reduce
    CHECK(a.ranks.at(5).early_reduce_s == Approx(0.003));
    CHECK(a.ranks.at(5).reduce_root_calls == 1);
    CHECK(a.ranks.at(6).wait_nxn_s == Approx(0.003));
}

TEST_CASE("a call is listed under rank 0's call site", "[report][analysis]") {
    const auto a = analyze_text(header + row(1, 0, "allreduce", 8, -1, "other+0x1", 1.0, 2) +
                                row(0, 0, "allreduce", 8, -1, "main+0x1", 1.1, 2));
    REQUIRE(a.sites.size() == 1);
    CHECK(a.sites[0].callsite == "main+0x1");
    CHECK(a.sites[0].mixed_sites == 1);
    CHECK_FALSE(a.has_tau());
}

TEST_CASE("long runs keep a bounded, evenly strided sample of delay vectors",
          "[report][analysis]") {
    std::string calls = header;
    constexpr int n = 5000;
    for (int seq = 0; seq < n; ++seq) {
        calls += row(0, seq, "allgather", 16, -1, "s", seq * 1.0, 2, "world");
        calls += row(1, seq, "allgather", 16, -1, "s", seq * 1.0 + 0.5, 2, "world");
    }
    const auto a = analyze_text(calls);
    const auto& site = a.sites.at(0);
    CHECK(site.omega_s.size() == n);
    CHECK(site.samples.size() <= report::max_sampled_calls);
    CHECK(site.samples.size() >= report::max_sampled_calls / 2);
    CHECK(site.sample_stride > 1);
    for (const auto& sample : site.samples) {
        CHECK(sample.index % site.sample_stride == 0);
        CHECK(sample.delays_s == std::vector<double>{0.0, 0.5});
    }
}

TEST_CASE("summarize_directory writes the whole report", "[report][summary]") {
    TempDir dir;
    dir.write("calls.csv", small_trace());
    dir.write("meta.txt", small_meta + "records=11\n");
    const std::string text = report::summarize_directory(dir.path.string());
    CHECK_THAT(text, Contains("7 ranks (3 with records), MPI openmpi"));
    CHECK_THAT(text, Contains("11 rows, 3 complete calls, 1 incomplete"));
    // A damaged world size is said so, with the ranks the records show.
    for (const char* damaged : {"abc", "2", "0"}) {
        std::string meta = small_meta;
        meta.replace(meta.find("world_size=7"), 12, std::string("world_size=") + damaged);
        dir.write("meta.txt", meta);
        CHECK_THAT(report::summarize_directory(dir.path.string()),
                   Contains(std::string("3 ranks with records (meta.txt's world_size=") + damaged + " is wrong)"));
    }
    CHECK_THAT(text, Contains("omega = last arrival - first arrival"));
    CHECK_THAT(text, Contains("allreduce"));
    CHECK_THAT(text, Contains("1500.0"));          // mean ω/τ of the Allreduce site
    CHECK_THAT(text, Contains("5:50% 6:50%"));     // last arrivals of the Allreduce site
    CHECK_THAT(text, Contains("#1  app+0x10  fn  a.c:1"));
    CHECK_THAT(text, Contains("comm c0.1 seq 3 allgather (size 3): missing ranks 1"));
    CHECK_THAT(text, Contains("Early Reduce"));
    CHECK_FALSE(text.find("warning") != std::string::npos);

    report::write_plot_data(report::analyze_directory(dir.path.string()), dir.path.string(), 10);
    std::ifstream sites(dir.path / "plot-sites.csv");
    std::string first, second;
    std::getline(sites, first);
    std::getline(sites, second);
    CHECK_THAT(first, Contains("site,collective,callsite"));
    CHECK(second == "1,allreduce,app+0x10,fn,a.c:1,2,3,1,1");
    std::ifstream data(dir.path / "plot-data.csv");
    std::getline(data, first);
    std::getline(data, second);
    CHECK(first == "site,call,rank,value_ms");
    CHECK(second == "1,0,-1,4");  // ω of the first Allreduce call in ms
}

TEST_CASE("an oversubscribed node is said in the report's header", "[report][summary]") {
    TempDir dir;
    dir.write("calls.csv", small_trace());
    dir.write("meta.txt", small_meta + "node_ranks=4\nnode_cpus=2\nrecords=11\n");
    CHECK_THAT(report::summarize_directory(dir.path.string()), Contains("WARNING : 4 ranks shared 2 CPUs on rank 0's node"));
    for (const char* fine : {"node_ranks=2\nnode_cpus=2\n", "node_ranks=4\nnode_cpus=0\n", ""}) {
        dir.write("meta.txt", small_meta + fine + "records=11\n");
        CHECK_FALSE(report::summarize_directory(dir.path.string()).find("shared") != std::string::npos);
    }
}

TEST_CASE("summarize_directory reports what it cannot read", "[report][summary]") {
    TempDir dir;
    CHECK_THROWS_WITH(report::summarize_directory(dir.path.string()),
                      Contains("calls.csv: cannot open"));
    dir.write("calls.csv", header);
    dir.write("meta.txt", "records=5\n");
    const std::string text = report::summarize_directory(dir.path.string());
    CHECK_THAT(text, Contains("no collective calls recorded"));
    CHECK_THAT(text, Contains("warning : meta.txt says records=5"));
}

// ---- arrival prediction (calls.csv's predicted_arrival_s, plan and algorithm columns) -------

namespace {

const std::string predicted_header =
    "rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,"
    "location,arrival_s,exit_s,predicted_arrival_s,plan\n";

// A row with a prediction `error` seconds after the arrival (none when NaN).
std::string predicted_row(int rank, int seq, double arrival, double error, const std::string& algorithm = "native",
                          const std::string& plan = "") {
    std::ostringstream out;
    out.precision(17);
    out << rank << ',' << rank << ",world,2," << seq << ",allgather,2048,-1,," << algorithm
        << ",app+0x40,step,," << arrival << ',' << arrival + 0.001 << ',';
    if (!std::isnan(error)) out << arrival + error;
    out << ',' << plan << '\n';
    return out.str();
}

}  // namespace

TEST_CASE("the prediction columns are optional and checked", "[report][csv]") {
    std::istringstream in(predicted_header + predicted_row(0, 0, 1.0, 0.25, "bdr", "hit") +
                          predicted_row(1, 0, 1.0, std::nan("")));
    report::CallsReader reader(in, "calls.csv");
    report::CallRow parsed;
    REQUIRE(reader.next(parsed));
    CHECK(parsed.algorithm == "bdr");
    CHECK(parsed.plan == "hit");
    REQUIRE(parsed.predicted_arrival_s);
    CHECK(*parsed.predicted_arrival_s == Approx(1.25));
    REQUIRE(reader.next(parsed));
    CHECK_FALSE(parsed.predicted_arrival_s);
    CHECK(parsed.plan.empty());

    CHECK_THROWS_WITH(analyze_text(predicted_header + predicted_row(0, 0, 1.0, 0.1, "bdr", "maybe")),
                      Contains("calls.csv:2: column 'plan': 'maybe'"));
}

TEST_CASE("prediction error, last arriver and plans per call site", "[report][prediction]") {
    // Two ranks, 10 calls. Rank 1 arrives 4 ms after rank 0 (ω = 4 ms). Rank 0's predictions
    // are 1 ms late, rank 1's (call+1) × 0.1 ms early; call 0 has no prediction at all, call 1
    // only rank 0's. From call 5 on the plan was hit and BDR ran; call 3 missed, the guard
    // held call 4 back.
    // Errors are measured from each call's earliest predicted and actual arrival (the guard's),
    // so only calls 2..9, with both predictions, have them: rank 0 is its call's earliest on
    // both sides (error 0), rank 1's predicted gap is 1 ms + (call+1) × 0.1 ms short.
    std::string calls = predicted_header;
    std::vector<double> errors;
    for (int call = 0; call < 10; ++call) {
        const double a0 = call, a1 = call + 0.004;
        const double e0 = call == 0 ? std::nan("") : 0.001;
        const double e1 = call <= 1 ? std::nan("") : -(call + 1) * 1e-4;
        const std::string plan = call >= 5 ? "hit" : call == 4 ? "guarded" : call == 3 ? "miss" : "";
        const std::string algorithm = call >= 5 ? "bdr" : "native";
        calls += predicted_row(0, call, a0, e0, algorithm, plan) + predicted_row(1, call, a1, e1, algorithm, plan);
        if (call >= 2 && call < 9) {
            errors.push_back(0);
            errors.push_back(0.001 + (call + 1) * 1e-4);
        }
    }
    // Call 9: rank 0's prediction puts it 7 ms after rank 1 (predicted 9.010 and 9.003), so the
    // predicted last arriver is wrong. Measured from each side's earliest: rank 0 predicted
    // 7 ms after the earliest, arrived first (7 ms off); rank 1 predicted first, arrived 4 ms
    // after the first (4 ms off).
    calls = calls.substr(0, calls.rfind("0,0,world,2,9,")) +
            predicted_row(0, 9, 9.0, 0.010, "bdr", "hit") + predicted_row(1, 9, 9.004, -0.001, "bdr", "hit");
    errors.push_back(0.007);
    errors.push_back(0.004);

    const auto analysis = analyze_text(calls);
    REQUIRE(analysis.sites.size() == 1);
    const auto& site = analysis.sites[0];
    CHECK(site.calls == 10);
    CHECK(site.rows == 20);
    CHECK(site.predicted_rows == 17);
    CHECK(site.prediction_error_s.size() == 16);
    CHECK(report::percentile(std::vector<double>(site.prediction_error_s.begin(), site.prediction_error_s.end()), 50) ==
          Approx(report::percentile(errors, 50)).epsilon(1e-6));
    // Relative to ω = 4 ms of each call.
    std::vector<double> relative;
    for (double e : errors) relative.push_back(e / 0.004);
    CHECK(report::percentile(std::vector<double>(site.relative_error.begin(), site.relative_error.end()), 95) ==
          Approx(report::percentile(relative, 95)).epsilon(1e-4));
    // Calls 2..9 had every rank's prediction: right about the last arriver except in call 9.
    CHECK(site.last_assessed == 8);
    CHECK(site.last_right == 7);
    REQUIRE(site.plans.size() == 2);
    CHECK(site.plans.at("bdr").hit == 5);
    CHECK(site.plans.at("bdr").miss == 0);
    CHECK(site.plans.at("native").hit == 0);
    CHECK(site.plans.at("native").miss == 1);
    CHECK(site.plans.at("native").guarded == 1);
    CHECK(site.plans.at("native").none == 3);

    const std::string text = report::format_summary(analysis);
    CHECK_THAT(text, Contains("arrival prediction per call site"));
    CHECK_THAT(text, Contains("17/20"));
    CHECK_THAT(text, Contains("7/8 (88%)"));
    CHECK_THAT(text, Contains("bdr 5 hit 0 miss 0 guarded"));
    CHECK_THAT(text, Contains("native 0 hit 1 miss 1 guarded"));
}

TEST_CASE("a shift common to every rank's prediction is no error", "[report][prediction]") {
    // Predicted 50 ms late on every rank (a mispredicted period): the plan, which sees only
    // the gaps, is exact. Rank 2's prediction alone is 2 ms early.
    std::string calls = predicted_header;
    for (int call = 0; call < 4; ++call)
        for (int rank = 0; rank < 3; ++rank)
            calls += predicted_row(rank, call, call + rank * 0.003, rank == 2 && call == 3 ? 0.048 : 0.050, "bdr", "hit");
    for (std::size_t at = 0; (at = calls.find(",world,2,", at)) != std::string::npos;) calls.replace(at, 9, ",world,3,");
    const auto analysis = analyze_text(calls);
    const auto& errors = analysis.sites.at(0).prediction_error_s;
    REQUIRE(errors.size() == 12);
    CHECK(*std::max_element(errors.begin(), errors.begin() + 9) == Approx(0).margin(1e-9));
    CHECK(errors[11] == Approx(0.002).epsilon(1e-4));
    CHECK(errors[9] == Approx(0).margin(1e-9));
}

TEST_CASE("a trace without prediction columns says so once", "[report][prediction]") {
    const auto analysis = analyze_text(small_trace(), small_meta);
    CHECK(analysis.sites[0].prediction_error_s.empty());
    CHECK_THAT(report::format_summary(analysis), Contains("arrival prediction: none in this trace"));
}

TEST_CASE("the predictor's settings come from meta.txt", "[report][prediction]") {
    std::istringstream defaults("mpi=openmpi\n");
    const auto plain = report::predictor_settings(report::parse_meta(defaults, "meta.txt"));
    CHECK(plain.method == papshim::predict::Method::ema);
    CHECK(plain.alpha == 0.25);
    CHECK(plain.window == 8);
    std::istringstream set("predictor=sma\nema_alpha=0.5\nsma_window=3\n");
    const auto chosen = report::predictor_settings(report::parse_meta(set, "meta.txt"));
    CHECK(chosen.method == papshim::predict::Method::sma);
    CHECK(chosen.alpha == 0.5);
    CHECK(chosen.window == 3);
    std::istringstream bad("predictor=oracle\n");
    CHECK_THROWS_WITH(report::predictor_settings(report::parse_meta(bad, "meta.txt")),
                      Contains("predictor=oracle"));
}
