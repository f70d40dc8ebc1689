// PAP report output: the summary text (summary.txt, papshim-report's stdout) and the compact
// plot input that tools/report/papshim_plot.py turns into PNGs.
#include "papshim/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace papshim::report {
namespace {

// ω series longer than this are thinned (every k-th call) in the plot data.
constexpr std::uint64_t max_omega_points = 20000;

double ms(double seconds) { return seconds * 1e3; }

std::string human_bytes(double bytes) {
    constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t unit = 0;
    while (bytes >= 1024 && unit + 1 < std::size(units)) {
        bytes /= 1024;
        ++unit;
    }
    return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[unit]);
}

std::string site_label(const SiteStats& site) {
    std::string label = site.callsite.empty() ? "(unknown call site)" : site.callsite;
    if (!site.function.empty() && site.function != "?") label += "  " + site.function;
    if (!site.location.empty()) label += "  " + site.location;
    return label;
}

// A trace papshim-report recovered from a dead job's spill files (meta.txt finalized=0):
// say so first, then how each rank's records end and which ranks end early.
// More ranks than CPUs on rank 0's node (meta.txt's node_ranks, node_cpus): the arrival times
// hold the operating system's time slices, and the more so where the MPI's waits spin.
void append_oversubscription(std::string& out, const RunMeta& meta) {
    int ranks = 0, cpus = 0;
    const std::string r = meta.get("node_ranks"), c = meta.get("node_cpus");
    std::from_chars(r.data(), r.data() + r.size(), ranks);
    std::from_chars(c.data(), c.data() + c.size(), cpus);
    if (cpus <= 0 || ranks <= cpus) return;
    fmt::format_to(std::back_inserter(out),
                   "WARNING : {} ranks shared {} CPU{} on rank 0's node: arrival times include the operating system's "
                   "time slices{}\n          and alpha (meta.txt) may be one; run no more ranks per node than CPUs to see "
                   "the application's pattern.\n",
                   ranks, cpus, cpus == 1 ? "" : "s",
                   meta.get("mpi") == "mpich" ? " (MPICH's waits spin, so a waiting rank holds its CPU)" : "");
}

void append_recovery(std::string& out, const RunMeta& meta) {
    if (meta.get("finalized") != "0") return;
    struct RankEnd {
        std::string saved, records, behind, left_out;
    };
    std::map<int, RankEnd> ranks;
    for (const auto& [key, value] : meta.values) {
        if (key.rfind("rank.", 0) != 0) continue;
        const auto dot = key.find('.', 5);
        int rank = -1;
        const auto [end, ec] = std::from_chars(key.data() + 5, key.data() + std::min(dot, key.size()), rank);
        if (ec != std::errc{} || dot == std::string::npos || rank < 0) continue;
        const std::string field = key.substr(dot + 1);
        if (field == "saved") ranks[rank].saved = value;
        if (field == "records") ranks[rank].records = value;
        if (field == "calls_behind") ranks[rank].behind = value;
        if (field == "bad_records") ranks[rank].left_out = value;
    }
    out += "WARNING : the run did not reach MPI_Finalize. This trace was recovered from the spill files it left\n"
           "          (papshim-report --recover); calls that a rank had not recorded are incomplete.\n";
    const auto how = [](const std::string& saved) -> std::string {
        if (saved == "running") return "not saved at the end (killed?): calls after its last periodic write are lost";
        if (saved == "no-file") return "no spill file: none of its records survived";
        if (saved == "no-index") return "spill file without an index: its records cannot be read";
        return "saved at " + saved;
    };
    constexpr std::size_t listed = 32;
    std::string early;
    std::size_t shown = 0, early_count = 0;
    for (const auto& [rank, end] : ranks) {
        const bool behind = !end.behind.empty() && end.behind != "0";
        if (behind) {
            if (++early_count <= listed) early += fmt::format("{}{} ({} calls behind)", early.empty() ? "" : ", ", rank, end.behind);
        }
        const bool left_out = !end.left_out.empty() && end.left_out != "0";
        if (ranks.size() <= listed || behind || left_out || end.saved == "running") {
            if (shown++ < listed)
                fmt::format_to(std::back_inserter(out), "          rank {}: {} records, {}{}\n", rank,
                               end.records.empty() ? "?" : end.records, how(end.saved),
                               left_out ? fmt::format("; {} invalid records after them left out (zero-filled or "
                                                      "corrupt spill file)", end.left_out)
                                        : "");
        }
    }
    if (early_count > listed) early += fmt::format(", ... ({} ranks)", early_count);
    out += early.empty() ? "          every rank's records reach the last call it took part in\n"
                         : "          records end early on rank " + early + "\n";
}

void append_header(std::string& out, const Analysis& a) {
    const RunMeta& meta = a.meta;
    std::uint64_t calls = 0;
    std::uint64_t bytes = 0;
    for (const SiteStats& site : a.sites) {
        calls += site.calls;
        bytes += site.bytes;
    }
    // meta.txt's world size, checked: ranks that took part in no traced call have no records,
    // so fewer ranks with records is normal, but a size that is no count or is below them is
    // a damaged meta.txt, and said so.
    const std::size_t with_records = a.ranks.size();
    const std::string said = meta.get("world_size");
    const std::optional<int> size = meta.world_size();
    std::string ranks = fmt::format("{} ranks", said.empty() ? std::to_string(with_records) : said);
    if (!said.empty() && (!size || std::size_t(*size) < with_records))
        ranks = fmt::format("{} ranks with records (meta.txt's world_size={} is wrong)", with_records, said);
    else if (size && std::size_t(*size) > with_records)
        ranks = fmt::format("{} ranks ({} with records)", *size, with_records);
    fmt::format_to(std::back_inserter(out), "papshim PAP report{}{}\n",
                   a.directory.empty() ? "" : ": ", a.directory);
    append_recovery(out, meta);
    fmt::format_to(std::back_inserter(out), "run     : {}, MPI {}, papshim {}, mode {}\n",
                   ranks, meta.get("mpi", "?"), meta.get("papshim_version", "?"),
                   meta.get("mode", "?"));
    append_oversubscription(out, meta);
    fmt::format_to(std::back_inserter(out),
                   "totals  : {} rows, {} complete calls, {} incomplete, {} of results per rank, "
                   "{:.3f} s inside collectives (sum over ranks)\n",
                   a.rows, calls, a.incomplete_total, human_bytes(static_cast<double>(bytes)),
                   a.time_in_calls_s);
    if (a.rows > 0) {
        fmt::format_to(std::back_inserter(out), "span    : {:.6f} s .. {:.6f} s ({:.3f} s)\n",
                       a.first_arrival_s, a.last_exit_s, a.last_exit_s - a.first_arrival_s);
    }
    if (const std::string records = meta.get("records");
        !records.empty() && records != std::to_string(a.rows)) {
        fmt::format_to(std::back_inserter(out),
                       "warning : meta.txt says records={}, calls.csv has {} rows\n", records,
                       a.rows);
    }
    if (a.has_tau()) {
        fmt::format_to(std::back_inserter(out),
                       "tau     : alpha + beta*m = {:.3f} us + {:.4f} ns/B * m (meta.txt), the time "
                       "of one point-to-point message;\n"
                       "          m = Allgather(v): bytes/comm_size, Reduce/Allreduce: the whole "
                       "vector\n",
                       *meta.alpha_s * 1e6, *meta.beta_s_per_byte * 1e9);
    } else {
        out += "tau     : unknown (meta.txt has no alpha_s/beta_s_per_byte): omega/tau not shown\n";
    }
    out += "reading : omega = last arrival - first arrival of one call; MAD = mean |arrival - "
           "mean arrival| of one call.\n"
           "          omega/tau >= 1: the ranks arrive further apart than one point-to-point "
           "message takes -> imbalanced.\n"
           "          Every metric is per call, then aggregated over the complete calls of a "
           "call site.\n";
}

void append_sites(std::string& out, const Analysis& a, std::size_t top) {
    out += "\ncall sites, busiest first (times in ms)\n";
    fmt::format_to(std::back_inserter(out),
                   "{:>3}  {:<11}{:>7}{:>8}{:>11}  {:>9}{:>9}{:>9}{:>9}{:>10}{:>12}  {}\n", "#",
                   "collective", "calls", "incompl", "bytes/call", "omega avg", "median",
                   "p95", "MAD avg", "omega/tau", "wait sum", "last arrival (world rank:share)");
    const std::size_t shown = std::min(top, a.sites.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const SiteStats& site = a.sites[i];
        fmt::format_to(std::back_inserter(out), "{:>3}  {:<11}{:>7}{:>8}", i + 1,
                       site.collective, site.calls, site.incomplete);
        if (site.calls == 0) {
            out += "  (no complete call)\n";
            continue;
        }
        const auto n = static_cast<double>(site.calls);
        std::string last;
        for (const RankShare& share : top_ranks(site.last_counts, site.calls, 3)) {
            const double percent = share.share * 100;  // small shares keep a decimal
            fmt::format_to(std::back_inserter(last), "{}{}:{:.{}f}%", last.empty() ? "" : " ",
                           share.rank, percent, percent < 9.95 ? 1 : 0);
        }
        const std::string ratio =
            a.has_tau() ? fmt::format("{:.1f}", site.sum_omega_over_tau / n) : "n/a";
        fmt::format_to(std::back_inserter(out),
                       "{:>11}  {:>9.3f}{:>9.3f}{:>9.3f}{:>9.3f}{:>10}{:>12.1f}  {}\n",
                       human_bytes(static_cast<double>(site.bytes) / n), ms(mean(site.omega_s)),
                       ms(percentile(site.omega_s, 50)), ms(percentile(site.omega_s, 95)),
                       ms(site.sum_mad_s / n), ratio, ms(site.wait_s), last);
    }
    if (a.sites.size() > shown) {
        std::uint64_t calls = 0;
        std::uint64_t incomplete = 0;
        for (std::size_t i = shown; i < a.sites.size(); ++i) {
            calls += a.sites[i].calls;
            incomplete += a.sites[i].incomplete;
        }
        fmt::format_to(std::back_inserter(out), "  +{} more sites: {} calls, {} incomplete\n",
                       a.sites.size() - shown, calls, incomplete);
    }
    for (std::size_t i = 0; i < shown; ++i) {
        const SiteStats& site = a.sites[i];
        fmt::format_to(std::back_inserter(out), "{:>3}  {}\n", fmt::format("#{}", i + 1),
                       site_label(site));
        if (site.mixed_sites > 0) {
            fmt::format_to(std::back_inserter(out),
                           "       {} calls had ranks at other call sites (listed under rank "
                           "0's)\n",
                           site.mixed_sites);
        }
    }
    out += "  wait sum: Wait at NxN summed over ranks and calls (Reduce sites: Early Reduce at "
           "the root)\n";
}

// Up to this many ranks the wait table lists every rank; above, the ones most often last.
constexpr std::size_t all_ranks_up_to = 32;
constexpr std::size_t ranks_listed_when_many = 16;

void append_ranks(std::string& out, const Analysis& a) {
    if (a.ranks.empty()) return;
    std::vector<std::pair<int, const RankWait*>> rows;
    bool any_reduce = false;
    for (const auto& [rank, wait] : a.ranks) {
        rows.emplace_back(rank, &wait);
        any_reduce = any_reduce || wait.reduce_root_calls > 0;
    }
    const bool all = rows.size() <= all_ranks_up_to;
    if (!all) {
        std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
            return x.second->last > y.second->last;
        });
        rows.resize(ranks_listed_when_many);
    }
    fmt::format_to(std::back_inserter(out),
                   "\nwait states per world rank (Scalasca names; ms summed over complete "
                   "calls){}\n",
                   all ? "" : fmt::format(", the {} of {} ranks most often last",
                                          ranks_listed_when_many, a.ranks.size()));
    fmt::format_to(std::back_inserter(out), "{:>6}{:>8}{:>7}{:>14}{:>11}", "rank", "calls",
                   "last", "Wait at NxN", "per call");
    out += any_reduce ? fmt::format("{:>14}{:>10}\n", "Early Reduce", "as root") : "\n";
    for (const auto& [rank, wait] : rows) {
        const double per_call =
            wait->nxn_calls == 0 ? 0.0 : wait->wait_nxn_s / static_cast<double>(wait->nxn_calls);
        const double last_share =
            wait->calls == 0 ? 0.0
                             : 100.0 * static_cast<double>(wait->last) /
                                   static_cast<double>(wait->calls);
        fmt::format_to(std::back_inserter(out), "{:>6}{:>8}{:>6.0f}%{:>14.3f}{:>11.3f}", rank,
                       wait->calls, last_share, ms(wait->wait_nxn_s), ms(per_call));
        out += any_reduce ? fmt::format("{:>14.3f}{:>10}\n", ms(wait->early_reduce_s),
                                        wait->reduce_root_calls)
                          : "\n";
    }
    out += "  last: share of the rank's calls in which it arrived last. Wait at NxN: latest "
           "arrival - own arrival\n  (Allgather(v), Allreduce)";
    out += any_reduce ? ". Early Reduce: earliest non-root arrival - root arrival when positive "
                        "(Reduce).\n"
                      : ".\n";
}

// The predictor's settings as the run recorded them, in words.
std::string predictor_words(const RunMeta& meta) {
    try {
        const predict::Settings settings = predictor_settings(meta);
        switch (settings.method) {
            case predict::Method::ema: return fmt::format("ema, alpha {}", settings.alpha);
            case predict::Method::sma: return fmt::format("sma, window {}", settings.window);
            case predict::Method::last: return "last";
        }
    } catch (const std::exception& e) {
        return e.what();
    }
    return "?";
}

std::vector<double> widened(const std::vector<float>& values) { return {values.begin(), values.end()}; }

void append_prediction(std::string& out, const Analysis& a, std::size_t top) {
    const std::size_t shown = std::min(top, a.sites.size());
    bool any_prediction = false, any_plan = false;
    for (const SiteStats& site : a.sites) {
        any_prediction = any_prediction || site.predicted_rows > 0;
        for (const auto& [algorithm, plans] : site.plans) any_plan = any_plan || plans.made() > 0;
    }
    if (!any_prediction && !any_plan) {
        out += "\narrival prediction: none in this trace (no predicted_arrival_s column, or no call site "
               "called often enough to predict)\n";
        return;
    }
    fmt::format_to(std::back_inserter(out),
                   "\narrival prediction per call site (predictor {}; |err| = |predicted - actual arrival|, each "
                   "from its call's earliest, ms)\n",
                   predictor_words(a.meta));
    fmt::format_to(std::back_inserter(out), "{:>3}  {:<11}{:>15}{:>13}{:>9}{:>15}{:>9}  {}\n", "#", "collective",
                   "predicted rows", "|err| median", "p95", "/omega median", "p95", "last arriver right");
    for (std::size_t i = 0; i < shown; ++i) {
        const SiteStats& site = a.sites[i];
        fmt::format_to(std::back_inserter(out), "{:>3}  {:<11}{:>15}", i + 1, site.collective,
                       fmt::format("{}/{}", site.predicted_rows, site.rows));
        if (site.prediction_error_s.empty()) {
            out += site.predicted_rows == 0 ? "  (no prediction)\n" : "  (no call with every rank's prediction)\n";
            continue;
        }
        const auto errors = widened(site.prediction_error_s);
        fmt::format_to(std::back_inserter(out), "{:>13.3f}{:>9.3f}", ms(percentile(errors, 50)),
                       ms(percentile(errors, 95)));
        if (site.relative_error.empty()) {
            fmt::format_to(std::back_inserter(out), "{:>15}{:>9}", "-", "-");
        } else {
            const auto relative = widened(site.relative_error);
            fmt::format_to(std::back_inserter(out), "{:>15.2f}{:>9.2f}", percentile(relative, 50),
                           percentile(relative, 95));
        }
        if (site.last_assessed == 0) {
            out += "  -\n";
        } else {
            fmt::format_to(std::back_inserter(out), "  {}/{} ({:.0f}%)\n", site.last_right, site.last_assessed,
                           100.0 * static_cast<double>(site.last_right) / static_cast<double>(site.last_assessed));
        }
    }
    out += "  predicted rows: rows of complete calls with a prediction (none before a site's 2nd call);\n"
           "  |err|: over the calls where every rank had one; a shift common to all ranks is no error (no\n"
           "  plan changes with it); /omega: |err| over the omega of its call; last arriver right: calls whose\n"
           "  predicted last rank arrived last. Profile mode predicts offline, from each rank's own\n"
           "  records, what the online predictor would have (no message, no cost per call).\n";
    if (!any_plan) return;
    out += "plans by the algorithm that ran (hit: the call was the planned one; miss: it was another call; "
           "guarded: the guard distrusted the recent predictions; both fell back)\n";
    for (std::size_t i = 0; i < shown; ++i) {
        std::string line;
        for (const auto& [algorithm, plans] : a.sites[i].plans) {
            if (plans.made() == 0) continue;
            fmt::format_to(std::back_inserter(line), "{}{} {} hit {} miss {} guarded", line.empty() ? "" : "; ",
                           algorithm.empty() ? "?" : algorithm, plans.hit, plans.miss, plans.guarded);
        }
        if (!line.empty()) fmt::format_to(std::back_inserter(out), "{:>3}  {}\n", i + 1, line);
    }
}

void append_incomplete(std::string& out, const Analysis& a) {
    if (a.incomplete_total == 0) return;
    fmt::format_to(std::back_inserter(out),
                   "\nincomplete calls (some rank's row missing; left out of every metric "
                   "above): {}\n",
                   a.incomplete_total);
    for (const IncompleteCall& call : a.incomplete) {
        std::vector<std::string> ranges;  // "3" or "5-4095": a lost rank's rows, or all but one
        for (const RankRange& r : call.missing)
            ranges.push_back(r.first == r.last ? fmt::format("{}", r.first) : fmt::format("{}-{}", r.first, r.last));
        fmt::format_to(std::back_inserter(out), "  comm {} seq {} {} (size {}): missing ranks {}\n",
                       call.comm, call.seq, call.collective, call.comm_size, fmt::join(ranges, " "));
    }
    if (a.incomplete_total > a.incomplete.size()) {
        fmt::format_to(std::back_inserter(out), "  ... and {} more\n",
                       a.incomplete_total - a.incomplete.size());
    }
}


std::ofstream open_for_writing(const std::string& path) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot open for writing", path));
    return out;
}

}  // namespace

std::string format_summary(const Analysis& analysis, const SummaryOptions& options) {
    std::string out;
    append_header(out, analysis);
    if (analysis.sites.empty()) {
        out += "\nno collective calls recorded\n";
        return out;
    }
    append_sites(out, analysis, std::max<std::size_t>(options.top_sites, 1));
    append_ranks(out, analysis);
    append_prediction(out, analysis, std::max<std::size_t>(options.top_sites, 1));
    append_incomplete(out, analysis);
    return out;
}

void write_plot_data(const Analysis& analysis, const std::string& out_dir,
                     std::size_t top_sites) {
    const std::string sites_path = out_dir + "/plot-sites.csv";
    const std::string data_path = out_dir + "/plot-data.csv";
    std::ofstream sites = open_for_writing(sites_path);
    std::ofstream data = open_for_writing(data_path);
    sites << "site,collective,callsite,function,location,calls,ranks,sample_stride,omega_stride\n";
    data << "site,call,rank,value_ms\n";
    const std::size_t shown = std::min(top_sites, analysis.sites.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const SiteStats& site = analysis.sites[i];
        if (site.calls == 0) continue;
        const std::uint64_t omega_stride = (site.calls + max_omega_points - 1) / max_omega_points;
        sites << fmt::format("{},{},{},{},{},{},{},{},{}\n", i + 1, trace::csv_field(site.collective),
                             trace::csv_field(site.callsite), trace::csv_field(site.function),
                             trace::csv_field(site.location), site.calls, site.max_comm_size,
                             site.sample_stride, omega_stride);
        for (std::size_t call = 0; call < site.omega_s.size(); call += omega_stride) {
            data << fmt::format("{},{},-1,{:.6g}\n", i + 1, call, ms(site.omega_s[call]));
        }
        for (const SampledCall& sampled : site.samples) {
            for (std::size_t rank = 0; rank < sampled.delays_s.size(); ++rank) {
                data << fmt::format("{},{},{},{:.6g}\n", i + 1, sampled.index, rank,
                                    ms(sampled.delays_s[rank]));
            }
        }
    }
    if (!sites.flush() || !data.flush()) {
        throw std::runtime_error(fmt::format("{}: write failed", out_dir));
    }
}

}  // namespace papshim::report
