// What a long trace merge has done so far, for the user waiting on it (rank 0 in
// MPI_Finalize, papshim-report recovering a dead job's trace): nothing while the merge is
// short, the common case, then one line at most every few seconds.
#pragma once

#include <functional>
#include <string>

namespace papshim::trace {

class MergeProgress {
public:
    using Clock = std::function<double()>;                   // seconds, monotonic
    using Print = std::function<void(const std::string&)>;  // one line, without papshim's prefix

    static constexpr double quiet_seconds = 2.0;     // a merge this short says nothing
    static constexpr double interval_seconds = 2.0;  // between two lines

    // Starts the merge's time now, on `clock` (steady_clock when empty; tests pass their own).
    MergeProgress(long long total_records, Print print, Clock clock = {});

    // `done` of the total records are merged: prints "merging the trace: 1.2M of 3.0M
    // records (40%)" once quiet_seconds have passed since the start and interval_seconds
    // since the last line. Reads the clock once; cheap next to a record's merge.
    void update(long long done);

private:
    long long total_;
    Print print_;
    Clock clock_;
    double next_line_;  // clock time from which the next line may come
};

// A record count as a person reads it: 950, 12k, 1.2M, 3.4G.
std::string record_count_text(long long records);

}  // namespace papshim::trace
