// A long trace merge's progress lines (papshim/merge_progress.hpp).
#include "papshim/merge_progress.hpp"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace papshim::trace {

MergeProgress::MergeProgress(long long total_records, Print print, Clock clock)
    : total_(total_records), print_(std::move(print)), clock_(std::move(clock)) {
    if (!clock_)
        clock_ = [] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        };
    next_line_ = clock_() + quiet_seconds;
}

void MergeProgress::update(long long done) {
    const double now = clock_();
    if (now < next_line_ || !print_) return;
    next_line_ = now + interval_seconds;
    const long long percent = total_ > 0 ? done * 100 / total_ : 0;
    print_(fmt::format("merging the trace: {} of {} records ({}%)", record_count_text(done),
                       record_count_text(total_), percent));
}

std::string record_count_text(long long records) {
    if (records < 10'000) return fmt::format("{}", records);
    if (records < 1'000'000) return fmt::format("{}k", records / 1000);
    if (records < 1'000'000'000) return fmt::format("{:.1f}M", double(records) / 1e6);
    return fmt::format("{:.1f}G", double(records) / 1e9);
}

}  // namespace papshim::trace
