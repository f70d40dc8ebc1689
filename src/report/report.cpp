// PAP report maths and the streaming analysis of calls.csv: rows are grouped into calls by
// (comm, seq); a call is folded into its site's statistics as soon as every rank's row is in,
// so memory holds only the calls still open, the per-call ω and the sampled delay vectors.
#include "papshim/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace papshim::report {

// ---- pure maths ----------------------------------------------------------------------------

double mean(std::span<const double> values) {
    if (values.empty()) return 0;
    return std::accumulate(values.begin(), values.end(), 0.0) /
           static_cast<double>(values.size());
}

double omega(std::span<const double> arrivals) {
    if (arrivals.size() < 2) return 0;
    const auto [low, high] = std::minmax_element(arrivals.begin(), arrivals.end());
    return *high - *low;
}

double mean_absolute_deviation(std::span<const double> arrivals) {
    if (arrivals.empty()) return 0;
    const double centre = mean(arrivals);
    double sum = 0;
    for (const double a : arrivals) sum += std::abs(a - centre);
    return sum / static_cast<double>(arrivals.size());
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    const double position = std::clamp(p, 0.0, 100.0) / 100.0 *
                            static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const double fraction = position - static_cast<double>(below);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(below),
                     values.end());
    const double low = values[below];
    if (fraction == 0 || below + 1 >= values.size()) return low;
    // The next order statistic is the smallest of the elements after `below`.
    const double high = *std::min_element(
        values.begin() + static_cast<std::ptrdiff_t>(below) + 1, values.end());
    return low + fraction * (high - low);
}

int last_rank(std::span<const double> arrivals) {
    if (arrivals.empty()) return -1;
    return static_cast<int>(std::max_element(arrivals.begin(), arrivals.end()) -
                            arrivals.begin());
}

std::vector<double> wait_at_nxn(std::span<const double> arrivals) {
    std::vector<double> waits(arrivals.size());
    if (arrivals.empty()) return waits;
    const double latest = *std::max_element(arrivals.begin(), arrivals.end());
    std::transform(arrivals.begin(), arrivals.end(), waits.begin(),
                   [latest](double a) { return latest - a; });
    return waits;
}

double early_reduce(std::span<const double> arrivals, int root) {
    if (root < 0 || static_cast<std::size_t>(root) >= arrivals.size()) return 0;
    double earliest_other = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        if (static_cast<int>(i) != root) earliest_other = std::min(earliest_other, arrivals[i]);
    }
    const double wait = earliest_other - arrivals[static_cast<std::size_t>(root)];
    return std::isfinite(wait) && wait > 0 ? wait : 0;
}

std::vector<RankShare> top_ranks(const std::map<int, std::uint64_t>& counts,
                                 std::uint64_t total_calls, std::size_t n) {
    std::vector<RankShare> ranked;
    for (const auto& [rank, count] : counts) {
        const double share = total_calls == 0 ? 0.0
                                              : static_cast<double>(count) /
                                                    static_cast<double>(total_calls);
        ranked.push_back({rank, count, share});
    }
    // Stable on the rank-ordered map input: ties keep the lower rank first.
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const RankShare& a, const RankShare& b) { return a.count > b.count; });
    if (ranked.size() > n) ranked.resize(n);
    return ranked;
}

namespace {
bool is_allgather(const std::string& collective) {
    return collective == "allgather" || collective == "allgatherv";
}
bool is_nxn(const std::string& collective) {
    return is_allgather(collective) || collective == "allreduce";
}
}  // namespace

double message_bytes(const std::string& collective, std::uint64_t bytes, int comm_size) {
    if (is_allgather(collective) && comm_size > 0) {
        return static_cast<double>(bytes) / static_cast<double>(comm_size);
    }
    return static_cast<double>(bytes);
}

double tau(double alpha_s, double beta_s_per_byte, double message_bytes_) {
    return alpha_s + beta_s_per_byte * message_bytes_;
}

// ---- analysis ------------------------------------------------------------------------------

namespace {

constexpr std::size_t incomplete_examples = 5;

// One rank's row of a call, as read.
struct RankRow {
    int rank = 0;
    int world_rank = 0;
    double arrival = 0;
    double predicted = std::numeric_limits<double>::quiet_NaN();  // NaN: no prediction
    std::size_t line = 0;
};

// A call whose rows are still coming in.
struct OpenCall {
    std::string comm;
    std::int64_t seq = 0;
    std::string collective;
    int comm_size = 0;
    int root = -1;
    std::uint64_t bytes = 0;
    std::string callsite, function, location;  // rank 0's once its row is in
    bool site_from_rank0 = false;
    bool mixed_site = false;
    // Its rows as read: an open call's memory grows with the rows it has, never with the size
    // they claim, so a damaged comm_size cannot exhaust memory.
    std::vector<RankRow> rows;
    // Once every rank's row is in, by rank:
    std::vector<double> arrivals;
    std::vector<double> predicted;  // NaN: no prediction
    std::vector<int> world_ranks;
    std::string algorithm, plan;    // rank 0's, once its row is in
};

class Analyzer {
public:
    Analyzer(Analysis& out, const std::string& name) : out_(out), name_(name) {}

    void add(const CallRow& row, std::size_t line) {
        ++out_.rows;
        out_.first_arrival_s = out_.rows == 1 ? row.arrival_s
                                              : std::min(out_.first_arrival_s, row.arrival_s);
        out_.last_exit_s = out_.rows == 1 ? row.exit_s : std::max(out_.last_exit_s, row.exit_s);
        out_.time_in_calls_s += row.exit_s - row.arrival_s;

        const std::string key = fmt::format("{}\n{}", row.comm, row.seq);
        auto [it, fresh] = open_.try_emplace(key);
        OpenCall& call = it->second;
        if (fresh) {
            call.comm = row.comm;
            call.seq = row.seq;
            call.collective = row.collective;
            call.comm_size = row.comm_size;
            call.root = row.root;
            call.bytes = row.bytes;
            call.callsite = row.callsite;
            call.function = row.function;
            call.location = row.location;
            call.algorithm = row.algorithm;
            call.plan = row.plan;
        } else {
            check_same_call(call, row, line);
        }
        if (row.callsite != call.callsite) {
            call.mixed_site = true;
            if (row.rank == 0) {  // the call is listed under rank 0's site
                call.callsite = row.callsite;
                call.function = row.function;
                call.location = row.location;
            }
        }
        if (row.rank == 0) {  // identical on every rank by design; rank 0's as for the site
            call.algorithm = row.algorithm;
            call.plan = row.plan;
        }
        call.rows.push_back({row.rank, row.world_rank, row.arrival_s,
                             row.predicted_arrival_s.value_or(std::numeric_limits<double>::quiet_NaN()), line});
        if (call.rows.size() == static_cast<std::size_t>(call.comm_size)) {
            // Sorted and unique, the rows are ranks 0 .. comm_size - 1.
            sort_rows(call);
            for (const RankRow& r : call.rows) {
                call.arrivals.push_back(r.arrival);
                call.predicted.push_back(r.predicted);
                call.world_ranks.push_back(r.world_rank);
            }
            complete(call);
            open_.erase(it);
        }
    }

    void finish() {
        // Whatever is still open lacks some rank's rows: counted, never mixed into metrics.
        std::vector<OpenCall*> left;
        for (auto& entry : open_) left.push_back(&entry.second);
        std::sort(left.begin(), left.end(), [](const OpenCall* a, const OpenCall* b) {
            return std::tie(a->comm, a->seq) < std::tie(b->comm, b->seq);
        });
        for (OpenCall* call : left) {
            sort_rows(*call);
            ++site_for(*call).incomplete;
            ++out_.incomplete_total;
            if (out_.incomplete.size() >= incomplete_examples) continue;
            IncompleteCall example{call->comm, call->seq, call->collective, call->comm_size, {}};
            int next = 0;  // the lowest rank not yet accounted for
            for (const RankRow& r : call->rows) {
                if (r.rank > next) example.missing.push_back({next, r.rank - 1});
                next = r.rank + 1;
            }
            if (next < call->comm_size) example.missing.push_back({next, call->comm_size - 1});
            out_.incomplete.push_back(std::move(example));
        }
        std::stable_sort(out_.sites.begin(), out_.sites.end(),
                         [](const SiteStats& a, const SiteStats& b) {
                             return a.calls + a.incomplete > b.calls + b.incomplete;
                         });
    }

private:
    [[noreturn]] void fail(std::size_t line, const std::string& what) const {
        throw std::runtime_error(fmt::format("{}:{}: {}", name_, line, what));
    }

    // Orders a call's rows by rank; two rows of one rank are an error at the later one.
    void sort_rows(OpenCall& call) const {
        std::sort(call.rows.begin(), call.rows.end(), [](const RankRow& a, const RankRow& b) {
            return std::tie(a.rank, a.line) < std::tie(b.rank, b.line);
        });
        const auto twice = std::adjacent_find(call.rows.begin(), call.rows.end(),
                                              [](const RankRow& a, const RankRow& b) { return a.rank == b.rank; });
        if (twice != call.rows.end()) {
            fail(std::next(twice)->line, fmt::format("second row for rank {} of call (comm {}, seq {})", twice->rank,
                                                     call.comm, call.seq));
        }
    }

    void check_same_call(const OpenCall& call, const CallRow& row, std::size_t line) const {
        if (row.collective != call.collective || row.comm_size != call.comm_size ||
            row.root != call.root) {
            fail(line, fmt::format("call (comm {}, seq {}) is {} of size {} root {} on another "
                                   "rank, here {} of size {} root {}",
                                   row.comm, row.seq, call.collective, call.comm_size,
                                   call.root, row.collective, row.comm_size, row.root));
        }
    }

    SiteStats& site_for(const OpenCall& call) {
        const std::string key = call.collective + '\n' + call.callsite;
        auto [it, fresh] = site_index_.try_emplace(key, out_.sites.size());
        if (fresh) {
            SiteStats site;
            site.collective = call.collective;
            site.callsite = call.callsite;
            site.function = call.function;
            site.location = call.location;
            out_.sites.push_back(std::move(site));
        }
        return out_.sites[it->second];
    }

    void complete(const OpenCall& call) {
        SiteStats& site = site_for(call);
        const std::span<const double> arrivals = call.arrivals;
        const double w = omega(arrivals);
        const std::uint64_t index = site.calls++;
        site.bytes += call.bytes;
        site.max_comm_size = std::max(site.max_comm_size, call.comm_size);
        site.omega_s.push_back(w);
        site.sum_mad_s += mean_absolute_deviation(arrivals);
        if (call.mixed_site) ++site.mixed_sites;
        if (out_.has_tau()) {
            const double t = tau(*out_.meta.alpha_s, *out_.meta.beta_s_per_byte,
                                 message_bytes(call.collective, call.bytes, call.comm_size));
            if (t > 0) site.sum_omega_over_tau += w / t;
        }

        const int last_world = call.world_ranks[static_cast<std::size_t>(last_rank(arrivals))];
        ++site.last_counts[last_world];
        for (const int world : call.world_ranks) ++out_.ranks[world].calls;
        ++out_.ranks[last_world].last;

        if (is_nxn(call.collective)) {
            const auto waits = wait_at_nxn(arrivals);
            for (std::size_t r = 0; r < waits.size(); ++r) {
                RankWait& rank = out_.ranks[call.world_ranks[r]];
                ++rank.nxn_calls;
                rank.wait_nxn_s += waits[r];
                site.wait_s += waits[r];
            }
        } else if (call.collective == "reduce" && call.root >= 0 && call.root < call.comm_size) {
            const double early = early_reduce(arrivals, call.root);
            RankWait& root = out_.ranks[call.world_ranks[static_cast<std::size_t>(call.root)]];
            ++root.reduce_root_calls;
            root.early_reduce_s += early;
            site.wait_s += early;
        }
        sample(site, index, arrivals);
        assess_prediction(site, call, w);
    }

    // How well each rank's arrival was predicted, whether the predicted last arriver was the
    // real one, and what became of the plan. The error is the guard's (plan.cpp `assess`):
    // each side measured from its call's earliest arrival, so a shift common to every rank,
    // which changes no plan, is no error. It needs every rank's prediction of the call.
    static void assess_prediction(SiteStats& site, const OpenCall& call, double call_omega) {
        site.rows += static_cast<std::uint64_t>(call.comm_size);
        const auto predicted_rows = std::count_if(call.predicted.begin(), call.predicted.end(),
                                                  [](double p) { return !std::isnan(p); });
        site.predicted_rows += static_cast<std::uint64_t>(predicted_rows);
        // One rank: measured from itself, every error would be 0 (no plan either).
        if (predicted_rows == static_cast<std::ptrdiff_t>(call.arrivals.size()) && call.comm_size > 1) {
            const double predicted_first = *std::min_element(call.predicted.begin(), call.predicted.end());
            const double actual_first = *std::min_element(call.arrivals.begin(), call.arrivals.end());
            for (std::size_t r = 0; r < call.arrivals.size(); ++r) {
                const double error = std::abs((call.predicted[r] - predicted_first) - (call.arrivals[r] - actual_first));
                site.prediction_error_s.push_back(static_cast<float>(error));
                if (call_omega > 0) site.relative_error.push_back(static_cast<float>(error / call_omega));
            }
        }
        if (predicted_rows == call.comm_size && call.comm_size > 1) {
            ++site.last_assessed;
            // Right when the predicted last (lowest rank on ties) was among the latest arrivals.
            const auto predicted_last = static_cast<std::size_t>(last_rank(call.predicted));
            if (call.arrivals[predicted_last] == *std::max_element(call.arrivals.begin(), call.arrivals.end()))
                ++site.last_right;
        }
        PlanCounts& plans = site.plans[call.algorithm];
        switch (trace::parse_plan_use(call.plan).value_or(trace::PlanUse::none)) {
            case trace::PlanUse::hit: ++plans.hit; break;
            case trace::PlanUse::miss: ++plans.miss; break;
            case trace::PlanUse::guarded: ++plans.guarded; break;
            case trace::PlanUse::none: ++plans.none; break;
        }
    }

    // Keeps every stride-th call's delays; doubling the stride keeps the count bounded.
    static void sample(SiteStats& site, std::uint64_t index, std::span<const double> arrivals) {
        if (index % site.sample_stride != 0) return;
        const double first = *std::min_element(arrivals.begin(), arrivals.end());
        SampledCall kept{index, {}};
        kept.delays_s.reserve(arrivals.size());
        for (const double a : arrivals) kept.delays_s.push_back(a - first);
        site.samples.push_back(std::move(kept));
        if (site.samples.size() <= max_sampled_calls) return;
        site.sample_stride *= 2;
        std::erase_if(site.samples, [&](const SampledCall& s) {
            return s.index % site.sample_stride != 0;
        });
    }

    Analysis& out_;
    std::string name_;
    std::unordered_map<std::string, OpenCall> open_;
    std::unordered_map<std::string, std::size_t> site_index_;
};

}  // namespace

Analysis analyze(std::istream& calls, const std::string& calls_name, RunMeta meta) {
    Analysis analysis;
    analysis.meta = std::move(meta);
    Analyzer analyzer(analysis, calls_name);
    CallsReader reader(calls, calls_name);
    CallRow row;
    while (reader.next(row)) analyzer.add(row, reader.line());
    analyzer.finish();
    return analysis;
}

Analysis analyze_directory(const std::string& dir) {
    const std::string meta_path = dir + "/meta.txt";
    RunMeta meta;
    if (std::ifstream probe(meta_path); probe) meta = parse_meta(probe, meta_path);
    const std::string calls_path = dir + "/calls.csv";
    std::ifstream calls(calls_path);
    if (!calls) throw std::runtime_error(fmt::format("{}: cannot open for reading", calls_path));
    Analysis analysis = analyze(calls, calls_path, std::move(meta));
    analysis.directory = dir;
    return analysis;
}

std::string summarize_directory(const std::string& dir) {
    return format_summary(analyze_directory(dir));
}

}  // namespace papshim::report
