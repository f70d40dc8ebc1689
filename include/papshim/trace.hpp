// PAP tracing (profile mode): one fixed-size record per rank per intercepted call, kept in
// a bounded buffer that spills to a per-rank file, merged by rank 0 at MPI_Finalize into
// calls.csv and trace.json (format: docs/trace-format.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "papshim/clock.hpp"

namespace papshim::trace {

// Written raw to the spill file, so plain data only.
struct Record {
    std::uint64_t arrival = 0;   // clock::ticks(); seconds through the rank's TickFit at merge
    std::uint64_t exit = 0;
    std::uint64_t bytes = 0;
    std::uint64_t seq = 0;
    std::uint64_t comm = 0;    // see comm_label()
    std::int32_t rank = 0;     // in the communicator
    std::int32_t world_rank = 0;
    std::int32_t comm_size = 0;
    std::int32_t root = -1;
    std::uint32_t site = 0;    // index into this rank's site table
    std::uint8_t collective = 0;
    std::uint8_t algorithm = 0;  // index into algorithm_names
    std::int16_t op = -1;        // index into op names; -1 none, -2 user-defined
};

inline constexpr std::uint64_t world_comm = ~std::uint64_t{0};
inline std::uint64_t comm_id(int leader_world_rank, std::uint32_t ordinal) {
    return (std::uint64_t(std::uint32_t(leader_world_rank)) << 32) | ordinal;
}
std::string comm_label(std::uint64_t comm);

// Call site as written into calls.csv.
struct SiteInfo {
    std::string key;
    std::string function;
    std::string location;
};

// Per-rank writer: bounded memory, spills to `<dir>/.papshim-rank-<world rank>.bin`.
class Writer {
public:
    Writer() = default;
    ~Writer();
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Opens the spill file; false (with `error` set) when the directory is unusable.
    bool open(const std::string& dir, int world_rank, std::size_t capacity, std::string& error);
    bool is_open() const { return file_ != nullptr; }
    void add(const Record& r) {
        buffer_.push_back(r);
        if (buffer_.size() >= capacity_) spill();
    }
    // Writes the remaining records, this rank's site table and its tick-to-seconds fit;
    // closes the file.
    bool finish(const std::vector<SiteInfo>& sites, const clock::TickFit& fit, std::string& error);
    std::uint64_t records() const { return written_ + buffer_.size(); }
    bool failed() const { return failed_; }

private:
    void spill();
    std::FILE* file_ = nullptr;
    std::string dir_;
    int world_rank_ = 0;
    std::size_t capacity_ = 1;
    std::vector<Record> buffer_;
    std::uint64_t written_ = 0;
    bool failed_ = false;
};

std::string spill_path(const std::string& dir, int world_rank);
std::string sites_path(const std::string& dir, int world_rank);

// Names needed to print records.
struct Names {
    std::vector<std::string> collectives;  // by Record::collective
    std::vector<std::string> algorithms;   // by Record::algorithm
    std::vector<std::string> ops;          // by Record::op >= 0
};

// Rank 0, after every rank finished: k-way merge of the per-rank files by arrival time
// into calls.csv and trace.json, then removes the per-rank files. Memory: one record per
// rank plus the site tables. trace.json holds the first `max_json_events` records only
// (viewers choke on multi-GB JSON); calls.csv holds all. Returns the number of records, or
// -1 with `error` set.
inline constexpr long long default_max_json_events = 1'000'000;
long long merge(const std::string& dir, int world_size, const Names& names, std::string& error,
                long long max_json_events = default_max_json_events);

// RFC 4180 field quoting.
std::string csv_field(std::string_view s);
std::string json_string(std::string_view s);

}  // namespace papshim::trace
