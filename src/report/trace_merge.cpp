// The trace directory's per-rank files (spill file + index) and their merge into calls.csv
// and trace.json, at MPI_Finalize (rank 0) or after a dead job (papshim-report).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "papshim/report.hpp"
#include "papshim/trace_format.hpp"

namespace papshim::trace {
namespace {

namespace fs = std::filesystem;

struct FileCloser {
    void operator()(std::FILE* f) const { if (f) std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text() { return std::strerror(errno); }

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

// Why `path` did not open (errno); for too many open files, what to change.
std::string open_error(const std::string& path) {
    const int error = errno;
    std::string text = fmt::format("{}: cannot open for reading: {}", path, std::strerror(error));
    if (error == EMFILE || error == ENFILE)
        text += " (the merge keeps one file per rank open: raise the open-file limit, ulimit -n)";
    return text;
}

// The merge holds every rank's spill file open: raise the soft limit on open files toward
// the hard one for its duration (a default soft limit of 1024 is below a large job's ranks).
class OpenFileLimit {
public:
    explicit OpenFileLimit(std::size_t files) {
        if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) return;
        const rlim_t wanted = rlim_t(files) + 64;  // stdio, MPI's own, the outputs
        if (saved_.rlim_cur != RLIM_INFINITY && saved_.rlim_cur >= wanted) return;
        rlimit raised = saved_;
        raised.rlim_cur = saved_.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, saved_.rlim_max);
        raised_ = raised.rlim_cur > saved_.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &raised) == 0;
    }
    // The application runs on after MPI_Finalize's merge: give it back its own limit.
    ~OpenFileLimit() {
        if (raised_) ::setrlimit(RLIMIT_NOFILE, &saved_);
    }
    OpenFileLimit(const OpenFileLimit&) = delete;
    OpenFileLimit& operator=(const OpenFileLimit&) = delete;

private:
    rlimit saved_{};
    bool raised_ = false;
};

// Anything but finite times with a positive slope makes every record's time nan or
// meaningless (a corrupt index), and non-finite numbers break calls.csv and trace.json.
bool usable(const Fit& fit) {
    return std::isfinite(fit.seconds0) && std::isfinite(fit.seconds_per_tick) && fit.seconds_per_tick > 0;
}

// Why `rec`, read from world rank `world_rank`'s spill file, cannot be a record of it; empty
// when it can. A tail of zeros (power loss, a file system's delayed allocation) or
// overwritten bytes must not become calls.
std::string invalid_record(const Record& rec, int world_rank, const Index& index) {
    if (rec.comm_size < 1) return fmt::format("communicator size {}", rec.comm_size);
    if (rec.rank < 0 || rec.rank >= rec.comm_size)
        return fmt::format("rank {} in a communicator of size {}", rec.rank, rec.comm_size);
    if (rec.world_rank != world_rank) return fmt::format("world rank {}", rec.world_rank);
    // No check of root: an inter-communicator's Reduce has MPI_ROOT, MPI_PROC_NULL or a remote rank.
    if (rec.collective >= index.names.collectives.size())
        return fmt::format("collective {} (the index names {})", rec.collective, index.names.collectives.size());
    if (rec.op < -2 || (rec.op >= 0 && std::size_t(rec.op) >= index.names.ops.size()))
        return fmt::format("op {}", rec.op);
    if (rec.online > std::uint8_t(Online::predicted) || rec.plan > std::uint8_t(PlanUse::guarded))
        return fmt::format("online {} plan {}", rec.online, rec.plan);
    if (!plausible_call_times(index.fit.seconds(rec.arrival), index.fit.seconds(rec.exit)))
        return fmt::format("arrival {} exit {} ticks", rec.arrival, rec.exit);
    return {};
}

// Version 2: 80-byte records (the prediction fields). Version 1's 64-byte records are not read.
constexpr std::string_view index_magic = "papshim-trace-index 2";

// Index fields are tab-separated, one entry a line: keep tabs and line ends out of names.
std::string field(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    return out;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const auto tab = line.find('\t', start);
        parts.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
        if (tab == std::string_view::npos) return parts;
        start = tab + 1;
    }
}

template <typename Number>
Number number_at(std::string_view text, const std::string& path, std::size_t line) {
    Number value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        fail(fmt::format("{}:{}: '{}' is not a valid number", path, line, text));
    return value;
}

const std::string& name_or(const std::vector<std::string>& names, int index, const std::string& fallback) {
    return index >= 0 && std::size_t(index) < names.size() ? names[std::size_t(index)] : fallback;
}

// One rank's sites and algorithm names as they appear in calls.csv and trace.json, quoted
// once here rather than once per record (a site or name repeats in nearly every record).
struct Rendered {
    std::vector<std::string> site_csv;   // "key,function,location"
    std::vector<std::string> site_json;  // "\"callsite\":...,\"function\":...,\"location\":..."
    std::vector<std::string> algorithm_json;

    explicit Rendered(const Index& index) {
        for (const SiteInfo& site : index.sites) {
            site_csv.push_back(fmt::format("{},{},{}", csv_field(site.key), csv_field(site.function),
                                           csv_field(site.location)));
            site_json.push_back(fmt::format("\"callsite\":{},\"function\":{},\"location\":{}", json_string(site.key),
                                            json_string(site.function), json_string(site.location)));
        }
        for (const auto& name : index.names.algorithms) algorithm_json.push_back(json_string(name));
    }
};

// The rank in names like ".papshim-rank-12.bin"; -1 for other files.
int rank_of_file(const std::string& name) {
    constexpr std::string_view prefix = ".papshim-rank-";
    if (name.rfind(prefix, 0) != 0) return -1;
    int rank = -1;
    const char* begin = name.data() + prefix.size();
    const auto [end, ec] = std::from_chars(begin, name.data() + name.size(), rank);
    if (ec != std::errc{} || rank < 0) return -1;
    const std::string_view rest(end, std::size_t(name.data() + name.size() - end));
    return rest == ".bin" || rest == ".index" ? rank : -1;
}

// The offline predictor of one rank: what the online one would have predicted for each call
// (predict::CommHistory per communicator, fed the rank's records in call order). Sites are
// keyed by their innermost frame, as online (the MPI call's return address): with
// PAPSHIM_CALLSITE_DEPTH > 1 several trace sites share one series.
class OfflinePredictor {
public:
    OfflinePredictor(const Index& index, const predict::Settings& settings) : settings_(settings) {
        std::map<std::pair<std::string, std::uintptr_t>, std::uintptr_t> first;
        for (std::size_t i = 0; i < index.sites.size(); ++i) {
            const SiteInfo& site = index.sites[i];
            // Without a module (a site the index never resolved), the site itself.
            const auto frame = site.module_path.empty() ? std::pair(site.key, std::uintptr_t(0))
                                                        : std::pair(site.module_path, site.offset);
            keys_.push_back(first.try_emplace(frame, i + 1).first->second);
        }
    }

    // The predicted arrival (ticks) for `rec`, the rank's next record.
    std::optional<std::uint64_t> next(const Record& rec) {
        const std::uintptr_t key = rec.site < keys_.size() ? keys_[rec.site] : unknown_site_key - rec.site;
        if (!history_ || rec.comm != comm_) {  // most records continue the previous one's communicator
            history_ = &comms_.try_emplace(rec.comm, rec.comm_size).first->second;
            comm_ = rec.comm;
        }
        predict::CommHistory& history = *history_;
        const predict::Signature signature{rec.collective, rec.op, rec.root, rec.bytes};
        const bool at_root = rec.root == rec.rank;  // as online (Planner::enter); -1 for unrooted calls
        const auto expected = history.enter(reinterpret_cast<const void*>(key), signature, rec.arrival, settings_, at_root);
        history.leave(rec.exit, settings_);
        if (!expected) return std::nullopt;
        return expected->arrival;
    }

private:
    static constexpr std::uintptr_t unknown_site_key = ~std::uintptr_t{0};
    predict::Settings settings_;
    std::vector<std::uintptr_t> keys_;  // by site index
    std::map<std::uint64_t, predict::CommHistory> comms_;
    std::uint64_t comm_ = 0;
    predict::CommHistory* history_ = nullptr;  // comms_[comm_]
};

}  // namespace

const char* saved_name(Saved saved) {
    switch (saved) {
        case Saved::running: return "running";
        case Saved::finalize: return "MPI_Finalize";
        case Saved::abort: return "MPI_Abort";
        case Saved::sigterm: return "SIGTERM";
        case Saved::exit: return "exit";
        case Saved::fast_exit: return "_exit";
    }
    return "running";
}

std::optional<Saved> parse_saved(std::string_view name) {
    for (Saved s : {Saved::running, Saved::finalize, Saved::abort, Saved::sigterm, Saved::exit, Saved::fast_exit})
        if (name == saved_name(s)) return s;
    return std::nullopt;
}

std::string comm_label(std::uint64_t comm) {
    if (comm == world_comm) return "world";
    return fmt::format("c{}.{}", comm >> 32, comm & 0xffffffffu);
}

std::string spill_path(const std::string& dir, int world_rank) {
    return fmt::format("{}/.papshim-rank-{}.bin", dir, world_rank);
}
std::string index_path(const std::string& dir, int world_rank) {
    return fmt::format("{}/.papshim-rank-{}.index", dir, world_rank);
}

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

// Bytes that are not UTF-8 (a Latin-1 file name) become U+FFFD: the document stays valid.
std::string json_string(std::string_view s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// POSIX calls only (no stdio): the writer thread also calls this while the process is being
// taken down by a signal, when another thread may hold stdio's locks.
bool write_index(const std::string& dir, const Index& index, std::string& error) {
    std::string text = fmt::format("{}\nrank\t{}\nsaved\t{}\nrecords\t{}\nfit\t{}\t{:.17g}\t{:.17g}\n", index_magic,
                                   index.world_rank, saved_name(index.saved), index.records, index.fit.tick0,
                                   index.fit.seconds0, index.fit.seconds_per_tick);
    for (const auto& n : index.names.collectives) text += fmt::format("collective\t{}\n", field(n));
    for (const auto& n : index.names.algorithms) text += fmt::format("algorithm\t{}\n", field(n));
    for (const auto& n : index.names.ops) text += fmt::format("op\t{}\n", field(n));
    for (const auto& s : index.sites)
        text += fmt::format("site\t{}\t{}\t{}\t{}\t{:x}\n", field(s.key), field(s.function), field(s.location),
                            field(s.module_path), s.offset);
    return replace_file(index_path(dir, index.world_rank), text, error);
}

bool replace_file(const std::string& path, std::string_view text, std::string& error) {
    const std::string temporary = path + ".new";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (std::size_t done = 0; ok && done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += std::size_t(n);
    }
    if (fd >= 0 && ::close(fd) != 0) ok = false;
    if (ok) ok = ::rename(temporary.c_str(), path.c_str()) == 0;
    if (!ok) {
        error = fmt::format("cannot write {}: {}", path, errno_text());
        ::unlink(temporary.c_str());
    }
    return ok;
}

Index read_index(const std::string& path) {
    std::ifstream in(path);
    if (!in) fail(open_error(path));
    std::string line;
    if (!std::getline(in, line) || line != index_magic) {
        if (line.rfind("papshim-trace-index ", 0) == 0)
            fail(fmt::format("{}:1: '{}' was written by another papshim version (this one reads '{}')", path, line,
                             index_magic));
        fail(fmt::format("{}:1: not a papshim trace index (expected '{}')", path, index_magic));
    }
    Index index;
    for (std::size_t number = 2; std::getline(in, line); ++number) {
        const auto parts = split_tabs(line);
        const std::string_view tag = parts[0];
        const auto need = [&](std::size_t n) {
            if (parts.size() < n) fail(fmt::format("{}:{}: '{}' needs {} fields", path, number, tag, n - 1));
        };
        if (tag == "rank") {
            need(2);
            index.world_rank = number_at<int>(parts[1], path, number);
        } else if (tag == "saved") {
            need(2);
            auto saved = parse_saved(parts[1]);
            if (!saved) fail(fmt::format("{}:{}: unknown end '{}'", path, number, parts[1]));
            index.saved = *saved;
        } else if (tag == "records") {
            need(2);
            index.records = number_at<std::uint64_t>(parts[1], path, number);
        } else if (tag == "fit") {
            need(4);
            index.fit.tick0 = number_at<std::uint64_t>(parts[1], path, number);
            index.fit.seconds0 = number_at<double>(parts[2], path, number);
            index.fit.seconds_per_tick = number_at<double>(parts[3], path, number);
            if (!usable(index.fit))
                fail(fmt::format("{}:{}: the tick fit ({}, {}) is not usable: seconds must be finite and seconds "
                                 "per tick above 0", path, number, parts[2], parts[3]));
        } else if (tag == "collective" || tag == "algorithm" || tag == "op") {
            need(2);
            auto& names = tag == "collective" ? index.names.collectives
                          : tag == "algorithm" ? index.names.algorithms : index.names.ops;
            names.emplace_back(parts[1]);
        } else if (tag == "site") {
            need(4);
            SiteInfo site{std::string(parts[1]), std::string(parts[2]), std::string(parts[3]), {}, 0};
            if (parts.size() >= 6) {
                site.module_path = parts[4];
                const auto [end, ec] = std::from_chars(parts[5].data(), parts[5].data() + parts[5].size(), site.offset, 16);
                if (ec != std::errc{} || end != parts[5].data() + parts[5].size())
                    fail(fmt::format("{}:{}: '{}' is not a hexadecimal offset", path, number, parts[5]));
            }
            index.sites.push_back(std::move(site));
        }  // other tags: written by a newer papshim, ignored
    }
    return index;
}

bool has_spill_files(const std::string& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (rank_of_file(entry.path().filename().string()) >= 0) return true;
    return false;
}

int spill_world_size(const std::string& dir) {
    if (std::ifstream meta(dir + "/meta.txt"); meta) {
        if (const auto size = report::parse_meta(meta, dir + "/meta.txt").world_size()) return *size;
    }
    int highest = -1;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        highest = std::max(highest, rank_of_file(entry.path().filename().string()));
    return highest + 1;
}

void remove_rank_files(const std::string& dir, int world_size) {
    for (int r = 0; r < world_size; ++r) {
        std::remove(spill_path(dir, r).c_str());
        std::remove(index_path(dir, r).c_str());
    }
}

MergeResult merge(const std::string& dir, int world_size, const MergeOptions& options) {
    const bool recovering = options.recovering;
    MergeResult result;
    const auto ranks = static_cast<std::size_t>(world_size);
    const OpenFileLimit open_files(ranks);  // outlives the files below
    std::vector<File> inputs(ranks);
    std::vector<Index> indexes(ranks);
    std::vector<std::uint64_t> remaining(ranks);  // records left to read
    std::vector<std::uint64_t> whole(ranks);      // whole records in the spill file
    for (int r = 0; r < world_size; ++r) {
        RankEnd end;
        end.world_rank = r;
        auto& input = inputs[std::size_t(r)];
        input.reset(std::fopen(spill_path(dir, r).c_str(), "rb"));
        end.spill_file = input != nullptr;
        // A recovery tolerates a rank that left no file, not one it cannot open.
        if (!input && (!recovering || errno != ENOENT)) fail(open_error(spill_path(dir, r)));
        if (std::error_code ec; !fs::exists(index_path(dir, r), ec)) {
            if (!recovering) fail(fmt::format("missing trace file {}", index_path(dir, r)));
        } else {
            indexes[std::size_t(r)] = read_index(index_path(dir, r));
            end.index = true;
            end.saved = indexes[std::size_t(r)].saved;
        }
        if (input && end.index) {
            struct stat info {};
            const std::uint64_t size = ::fstat(::fileno(input.get()), &info) == 0 ? std::uint64_t(info.st_size) : 0;
            remaining[std::size_t(r)] = whole[std::size_t(r)] = size / sizeof(Record);
            end.torn_bytes = size % sizeof(Record);
            if (end.torn_bytes && !recovering)
                fail(fmt::format("{}: {} bytes is not a whole number of records", spill_path(dir, r), size));
            if (end.torn_bytes)
                result.warnings.push_back(fmt::format("{}: its last {} bytes are a partly written record, left out",
                                                      spill_path(dir, r), end.torn_bytes));
        }
        // The index counts the records written when it was saved; the spill file only grows
        // after that, so fewer whole records there means it was cut (or is gone).
        if (end.index && indexes[std::size_t(r)].records > whole[std::size_t(r)])
            result.warnings.push_back(fmt::format("{}: {} whole records where its index counted {}: the rest is lost",
                                                  spill_path(dir, r), whole[std::size_t(r)],
                                                  indexes[std::size_t(r)].records));
        result.ranks.push_back(end);
    }

    // Written under temporary names, renamed when complete: a merge cut short (SIGTERM,
    // a full disk) leaves no calls.csv that looks like the whole run.
    const std::string csv_path = dir + "/calls.csv", json_path = dir + "/trace.json";
    struct Leftovers {  // the temporaries of a merge that failed; renamed ones are gone already
        std::vector<std::string> paths;
        ~Leftovers() {
            for (const auto& path : paths) std::remove(path.c_str());
        }
    } leftovers{{csv_path + ".new", json_path + ".new"}};
    File csv(std::fopen((csv_path + ".new").c_str(), "w"));
    File json(std::fopen((json_path + ".new").c_str(), "w"));
    if (!csv || !json) fail(fmt::format("cannot write calls.csv/trace.json in {}: {}", dir, errno_text()));
    std::fputs("rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,location,"
               "arrival_s,exit_s,predicted_arrival_s,plan\n", csv.get());
    std::fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", json.get());
    for (int r = 0; r < world_size; ++r)
        fmt::print(json.get(), "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":{0},"
                               "\"args\":{{\"name\":\"rank {0}\"}}}},\n", r);

    std::vector<OfflinePredictor> predictors;
    for (const Index& index : indexes) predictors.emplace_back(index, options.predictor);

    // Min-heap on arrival time across the per-rank streams (each is in arrival order).
    // A record's prediction is made as it is read, so each rank's are made in its call order.
    struct Head { Record record; int rank; double arrival; double exit; std::optional<double> predicted; };
    auto later = [](const Head& a, const Head& b) { return a.arrival > b.arrival; };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    auto pull = [&](int r) {
        auto& left = remaining[std::size_t(r)];
        Record rec;
        if (left == 0 || std::fread(&rec, sizeof rec, 1, inputs[std::size_t(r)].get()) != 1) return;
        --left;
        RankEnd& end = result.ranks[std::size_t(r)];
        if (const std::string why = invalid_record(rec, r, indexes[std::size_t(r)]); !why.empty()) {
            // Records after a bad one are no more trustworthy: the rank ends here.
            const std::uint64_t total = whole[std::size_t(r)];
            const std::string what = fmt::format("{}: record {} of {} is not a valid record ({})", spill_path(dir, r),
                                                 total - left, total, why);
            if (!recovering) fail(what);
            end.bad_records = left + 1;
            result.warnings.push_back(fmt::format("{}: it and the {} after it are left out", what, left));
            left = 0;
            return;
        }
        const Fit& fit = indexes[std::size_t(r)].fit;
        std::optional<std::uint64_t> predicted;
        if (Online(rec.online) == Online::predicted) predicted = rec.predicted_arrival;
        else if (Online(rec.online) == Online::absent) predicted = predictors[std::size_t(r)].next(rec);
        // A prediction from garbage bytes (a recovered record's) is dropped, not the record.
        std::optional<double> predicted_s;
        if (predicted)
            if (const double seconds = fit.seconds(*predicted); plausible_seconds(seconds)) predicted_s = seconds;
        heads.push({rec, r, fit.seconds(rec.arrival), fit.seconds(rec.exit), predicted_s});
    };
    for (int r = 0; r < world_size; ++r) pull(r);
    std::vector<Rendered> rendered;
    for (const Index& index : indexes) rendered.emplace_back(index);

    // Per rank and communicator the last sequence number seen, to tell whose records end early.
    std::vector<std::map<std::uint64_t, std::uint64_t>> last_seq(ranks);
    std::map<std::uint64_t, std::uint64_t> max_seq;
    const std::string unknown = "?", none, user_op = "user", unknown_json = "\"?\"",
                      unknown_site_csv = "?,?,", unknown_site_json = "\"callsite\":\"?\",\"function\":\"?\",\"location\":\"\"";
    long long count = 0;
    std::optional<MergeProgress> progress;
    if (options.progress) {
        std::uint64_t total = 0;
        for (const std::uint64_t records : whole) total += records;
        progress.emplace((long long)total, options.progress, options.progress_clock);
    }
    while (!heads.empty()) {
        Head h = heads.top();
        heads.pop();
        pull(h.rank);
        const Record& rec = h.record;
        const Index& index = indexes[std::size_t(h.rank)];
        const Rendered& text = rendered[std::size_t(h.rank)];
        const bool known_site = rec.site < text.site_csv.size();
        const std::string& collective = name_or(index.names.collectives, rec.collective, unknown);
        const std::string& op = rec.op == -2 ? user_op : name_or(index.names.ops, rec.op, none);
        // Collective, op and algorithm names are papshim's own identifiers: no quoting needed in CSV.
        const std::string comm = comm_label(rec.comm);
        fmt::print(csv.get(), "{},{},{},{},{},{},{},{},{},{},{},{:.9f},{:.9f},", rec.rank, rec.world_rank, comm,
                   rec.comm_size, rec.seq, collective, rec.bytes, rec.root, op,
                   name_or(index.names.algorithms, rec.algorithm, unknown),
                   known_site ? text.site_csv[rec.site] : unknown_site_csv, h.arrival, h.exit);
        if (h.predicted) fmt::print(csv.get(), "{:.9f}", *h.predicted);
        fmt::print(csv.get(), ",{}\n", plan_use_name(PlanUse(rec.plan)));
        if (count < options.max_json_events)
            fmt::print(json.get(),
                   "{{\"ph\":\"X\",\"pid\":0,\"tid\":{},\"name\":\"MPI_{}\",\"ts\":{:.3f},\"dur\":{:.3f},"
                   "\"args\":{{\"comm\":\"{}\",\"seq\":{},\"bytes\":{},\"root\":{},\"algorithm\":{},{}}}}},\n",
                   rec.world_rank, collective, h.arrival * 1e6, (h.exit - h.arrival) * 1e6, comm, rec.seq,
                   rec.bytes, rec.root, name_or(text.algorithm_json, rec.algorithm, unknown_json),
                   known_site ? text.site_json[rec.site] : unknown_site_json);
        RankEnd& end = result.ranks[std::size_t(h.rank)];
        ++end.records;
        end.last_arrival_s = h.arrival;
        last_seq[std::size_t(h.rank)][rec.comm] = rec.seq;
        auto [top, fresh] = max_seq.emplace(rec.comm, rec.seq);
        if (!fresh && rec.seq > top->second) top->second = rec.seq;
        ++count;
        if (progress) progress->update(count);
    }
    for (int r = 0; r < world_size; ++r) {
        RankEnd& end = result.ranks[std::size_t(r)];
        const auto& mine = last_seq[std::size_t(r)];
        if (mine.empty()) {  // no record at all: behind by every call of the world communicator
            if (auto world = max_seq.find(world_comm); world != max_seq.end()) end.calls_behind = world->second + 1;
        }
        for (const auto& [comm, seq] : mine) end.calls_behind += max_seq[comm] - seq;
    }
    // A final metadata event keeps the list valid JSON without tracking the last comma; it
    // also says when the events were cut (calls.csv always has every record).
    std::string process = count > options.max_json_events
        ? fmt::format("papshim: first {} of {} calls (all in calls.csv)", options.max_json_events, count)
        : std::string("papshim");
    if (recovering) process += " - recovered: the run did not reach MPI_Finalize";
    fmt::print(json.get(), "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{{\"name\":{}}}}}\n]}}\n",
               json_string(process));
    const bool written = !std::ferror(csv.get()) && !std::ferror(json.get());
    const bool closed = std::fclose(csv.release()) == 0 && std::fclose(json.release()) == 0;
    if (!written || !closed) fail(fmt::format("writing calls.csv/trace.json in {} failed: {}", dir, errno_text()));
    if (std::rename((json_path + ".new").c_str(), json_path.c_str()) != 0 ||
        std::rename((csv_path + ".new").c_str(), csv_path.c_str()) != 0)
        fail(fmt::format("cannot rename calls.csv/trace.json into place in {}: {}", dir, errno_text()));
    result.records = count;
    return result;
}

std::string recovery_meta(const MergeResult& result) {
    std::string out = "finalized=0\nrecovered=1\n";
    for (const RankEnd& end : result.ranks) {
        const char* saved = !end.spill_file ? "no-file" : !end.index ? "no-index" : saved_name(end.saved);
        out += fmt::format("rank.{0}.saved={1}\nrank.{0}.records={2}\nrank.{0}.calls_behind={3}\n", end.world_rank,
                           saved, end.records, end.calls_behind);
        if (end.torn_bytes) out += fmt::format("rank.{}.torn_bytes={}\n", end.world_rank, end.torn_bytes);
        if (end.bad_records) out += fmt::format("rank.{}.bad_records={}\n", end.world_rank, end.bad_records);
    }
    return out;
}

}  // namespace papshim::trace
