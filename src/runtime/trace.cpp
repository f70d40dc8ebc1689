#include "papshim/trace.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <queue>
#include <sstream>

namespace papshim::trace {
namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { if (f) std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text() { return std::strerror(errno); }

// The site table file: a first line with the rank's tick fit, then one line per site,
// tab-separated key, function, location.
void write_sites(std::FILE* f, const std::vector<SiteInfo>& sites, const clock::TickFit& fit) {
    fmt::print(f, "{} {:.17g} {:.17g}\n", fit.tick0, fit.seconds0, fit.seconds_per_tick);
    for (const auto& s : sites) fmt::print(f, "{}\t{}\t{}\n", s.key, s.function, s.location);
}

std::vector<SiteInfo> read_sites(const std::string& path, clock::TickFit& fit) {
    std::vector<SiteInfo> sites;
    std::ifstream in(path);
    std::string line;
    if (std::getline(in, line)) std::istringstream(line) >> fit.tick0 >> fit.seconds0 >> fit.seconds_per_tick;
    while (std::getline(in, line)) {
        SiteInfo s;
        std::istringstream fields(line);
        std::getline(fields, s.key, '\t');
        std::getline(fields, s.function, '\t');
        std::getline(fields, s.location, '\t');
        sites.push_back(std::move(s));
    }
    return sites;
}

const std::string& name_or(const std::vector<std::string>& names, int index, const std::string& fallback) {
    return index >= 0 && std::size_t(index) < names.size() ? names[std::size_t(index)] : fallback;
}

}  // namespace

std::string comm_label(std::uint64_t comm) {
    if (comm == world_comm) return "world";
    return fmt::format("c{}.{}", comm >> 32, comm & 0xffffffffu);
}

std::string spill_path(const std::string& dir, int world_rank) {
    return fmt::format("{}/.papshim-rank-{}.bin", dir, world_rank);
}
std::string sites_path(const std::string& dir, int world_rank) {
    return fmt::format("{}/.papshim-rank-{}.sites", dir, world_rank);
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

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
                else out += c;
        }
    }
    return out + '"';
}

Writer::~Writer() {
    if (file_) std::fclose(file_);
}

bool Writer::open(const std::string& dir, int world_rank, std::size_t capacity, std::string& error) {
    dir_ = dir;
    world_rank_ = world_rank;
    capacity_ = capacity == 0 ? 1 : capacity;
    file_ = std::fopen(spill_path(dir, world_rank).c_str(), "wb");
    if (!file_) {
        error = fmt::format("cannot write {}: {}", spill_path(dir, world_rank), errno_text());
        return false;
    }
    buffer_.reserve(capacity_);
    return true;
}

void Writer::spill() {
    if (buffer_.empty()) return;
    if (file_ && !failed_) {
        if (std::fwrite(buffer_.data(), sizeof(Record), buffer_.size(), file_) != buffer_.size()) {
            failed_ = true;
            fmt::print(stderr, "papshim: rank {}: trace spill to {} failed ({}); records from now on are dropped\n",
                       world_rank_, spill_path(dir_, world_rank_), errno_text());
        } else {
            written_ += buffer_.size();
        }
    }
    buffer_.clear();
}

bool Writer::finish(const std::vector<SiteInfo>& sites, const clock::TickFit& fit, std::string& error) {
    spill();
    bool ok = file_ && !failed_ && std::fflush(file_) == 0;
    if (file_) std::fclose(file_);
    file_ = nullptr;
    File site_file(std::fopen(sites_path(dir_, world_rank_).c_str(), "w"));
    if (!site_file) ok = false;
    else write_sites(site_file.get(), sites, fit);
    if (!ok) error = fmt::format("rank {}: could not complete the trace files in {}", world_rank_, dir_);
    return ok;
}

long long merge(const std::string& dir, int world_size, const Names& names, std::string& error,
                long long max_json_events) {
    std::vector<File> inputs;
    std::vector<std::vector<SiteInfo>> sites;
    std::vector<clock::TickFit> fits(static_cast<std::size_t>(world_size));
    for (int r = 0; r < world_size; ++r) {
        inputs.emplace_back(std::fopen(spill_path(dir, r).c_str(), "rb"));
        if (!inputs.back()) {
            error = fmt::format("missing trace file {}: {}", spill_path(dir, r), errno_text());
            return -1;
        }
        sites.push_back(read_sites(sites_path(dir, r), fits[std::size_t(r)]));
    }
    File csv(std::fopen((dir + "/calls.csv").c_str(), "w"));
    File json(std::fopen((dir + "/trace.json").c_str(), "w"));
    if (!csv || !json) {
        error = fmt::format("cannot write calls.csv/trace.json in {}: {}", dir, errno_text());
        return -1;
    }
    std::fputs("rank,world_rank,comm,comm_size,seq,collective,bytes,root,op,algorithm,callsite,function,location,"
               "arrival_s,exit_s\n", csv.get());
    std::fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", json.get());
    for (int r = 0; r < world_size; ++r)
        fmt::print(json.get(), "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":{0},"
                               "\"args\":{{\"name\":\"rank {0}\"}}}},\n", r);

    // Min-heap on arrival time across the per-rank streams (each is in arrival order).
    struct Head { Record record; int rank; double arrival; double exit; };
    auto later = [](const Head& a, const Head& b) { return a.arrival > b.arrival; };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    auto pull = [&](int r) {
        Record rec;
        const auto& fit = fits[std::size_t(r)];
        if (std::fread(&rec, sizeof rec, 1, inputs[std::size_t(r)].get()) == 1)
            heads.push({rec, r, fit.seconds(rec.arrival), fit.seconds(rec.exit)});
    };
    for (int r = 0; r < world_size; ++r) pull(r);

    const std::string unknown = "?", none, user_op = "user";
    const SiteInfo unknown_site{"?", "?", ""};
    long long count = 0;
    while (!heads.empty()) {
        Head h = heads.top();
        heads.pop();
        pull(h.rank);
        const Record& rec = h.record;
        const auto& rank_sites = sites[std::size_t(h.rank)];
        const SiteInfo& site = rec.site < rank_sites.size() ? rank_sites[rec.site] : unknown_site;
        const std::string& collective = name_or(names.collectives, rec.collective, unknown);
        const std::string& op = rec.op == -2 ? user_op : name_or(names.ops, rec.op, none);
        const std::string comm = comm_label(rec.comm);
        fmt::print(csv.get(), "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.9f},{:.9f}\n", rec.rank, rec.world_rank,
                   comm, rec.comm_size, rec.seq, collective, rec.bytes, rec.root, op,
                   name_or(names.algorithms, rec.algorithm, unknown), csv_field(site.key),
                   csv_field(site.function), csv_field(site.location), h.arrival, h.exit);
        if (count < max_json_events)
            fmt::print(json.get(),
                   "{{\"ph\":\"X\",\"pid\":0,\"tid\":{},\"name\":\"MPI_{}\",\"ts\":{:.3f},\"dur\":{:.3f},"
                   "\"args\":{{\"comm\":\"{}\",\"seq\":{},\"bytes\":{},\"root\":{},\"algorithm\":{},"
                   "\"callsite\":{},\"function\":{},\"location\":{}}}}},\n",
                   rec.world_rank, collective, h.arrival * 1e6, (h.exit - h.arrival) * 1e6, comm, rec.seq,
                   rec.bytes, rec.root, json_string(name_or(names.algorithms, rec.algorithm, unknown)),
                   json_string(site.key), json_string(site.function), json_string(site.location));
        ++count;
    }
    // A final metadata event keeps the list valid JSON without tracking the last comma; it
    // also says when the events were cut (calls.csv always has every record).
    const std::string process = count > max_json_events
        ? fmt::format("papshim: first {} of {} calls (all in calls.csv)", max_json_events, count)
        : std::string("papshim");
    fmt::print(json.get(), "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{{\"name\":{}}}}}\n]}}\n",
               json_string(process));
    if (std::ferror(csv.get()) || std::ferror(json.get())) {
        error = fmt::format("writing calls.csv/trace.json in {} failed", dir);
        return -1;
    }
    for (int r = 0; r < world_size; ++r) {
        inputs[std::size_t(r)].reset();
        std::remove(spill_path(dir, r).c_str());
        std::remove(sites_path(dir, r).c_str());
    }
    return count;
}

}  // namespace papshim::trace
