#include "papshim/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace papshim {
namespace {

constexpr std::array<std::string_view, collective_count> collective_names{
    "allgather", "allgatherv", "reduce", "allreduce"};

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return out;
}

std::string algorithm_variable(Collective c) { return "PAPSHIM_" + upper(collective_name(c)); }

std::optional<long> parse_integer(std::string_view s) {
    long value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return value;
}

std::optional<double> parse_number(std::string_view s) {
    double value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty() || !std::isfinite(value)) return std::nullopt;
    return value;
}

constexpr std::string_view default_profile_dir = "papshim-trace";

bool control_character(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Control characters as C escapes, so that an error quoting a value stays one line.
std::string escaped(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (control_character(c)) out += fmt::format("\\x{:02x}", c);
        else out += char(c);
    }
    return out;
}

// Edits (a letter added, dropped, changed, or two neighbours swapped) between a and b:
// the optimal string alignment distance.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

constexpr std::string_view variable_prefix = "PAPSHIM_";

// What module systems (Spack, Lmod, EasyBuild) and packagers set for an installed package
// <PKG>: <PKG>_ROOT, <PKG>_DIR, <PKG>_LIBRARY_PATH, ... A PAPSHIM_* name ending in one of
// these is theirs, not a misspelt variable of papshim, unless it is close to one.
constexpr std::array<std::string_view, 12> module_suffixes{"_ROOT", "_DIR",     "_HOME",   "_PREFIX",
                                                           "_VERSION", "_PATH", "_LIB",    "_INC",
                                                           "_INCLUDE", "_LIBDIR", "_INCDIR", "_BIN"};

// "Allgather(v)/Allreduce": the collectives, other than `except`, that have algorithm `name`.
std::string collectives_with(std::string_view name, Collective except, const AlgorithmNames& names) {
    auto has = [&](Collective c) {
        const auto& known = names[std::size_t(c)];
        return c != except && std::find(known.begin(), known.end(), name) != known.end();
    };
    std::vector<std::string> found;
    if (has(Collective::allgather) && has(Collective::allgatherv)) found.push_back("Allgather(v)");
    else if (has(Collective::allgather)) found.push_back("Allgather");
    else if (has(Collective::allgatherv)) found.push_back("Allgatherv");
    if (has(Collective::reduce)) found.push_back("Reduce");
    if (has(Collective::allreduce)) found.push_back("Allreduce");
    std::string out;
    for (const auto& f : found) out += (out.empty() ? "" : "/") + f;
    return out;
}

// Settings of a valid configuration that change nothing, as one line; nullopt if none.
std::optional<std::string> ineffective_settings(const Config& cfg, const Lookup& lookup) {
    std::vector<std::string> reasons;
    if (cfg.mode != Mode::dispatch) {
        std::vector<std::string> chosen;
        for (int i = 0; i < collective_count; ++i)
            if (cfg.algorithm[std::size_t(i)] != "native")
                chosen.push_back(fmt::format("{}={}", algorithm_variable(Collective(i)), cfg.algorithm[std::size_t(i)]));
        if (!chosen.empty()) {
            std::string list;
            for (const auto& c : chosen) list += (list.empty() ? "" : ", ") + c;
            reasons.push_back(fmt::format("{} {} no effect in {} mode: papshim's algorithms run only in dispatch mode "
                                          "(PAPSHIM_MODE=dispatch, or papshim_set_mode)",
                                          list, chosen.size() == 1 ? "has" : "have", mode_name(cfg.mode)));
        }
    }
    // Off mode opens no trace, and papshim_set_mode cannot open one later.
    if (cfg.mode == Mode::off)
        if (const char* dir = lookup("PAPSHIM_TRACE_DIR"))
            reasons.push_back(fmt::format("PAPSHIM_TRACE_DIR={} has no effect in off mode: nothing is traced", dir));
    if (reasons.empty()) return std::nullopt;
    std::string line;
    for (const auto& r : reasons) line += (line.empty() ? "" : "; ") + r;
    return line;
}

}  // namespace

std::optional<std::string> closest_variable(std::string_view name, const std::vector<VariableInfo>& vars) {
    if (!name.starts_with(variable_prefix)) return std::nullopt;
    const std::string_view body = name.substr(variable_prefix.size());
    std::optional<std::string> best;
    std::size_t best_distance = 0;
    for (const auto& v : vars) {
        const std::string_view known = std::string_view(v.name).substr(variable_prefix.size());
        const std::size_t allowed = known.size() <= 5 ? 1 : 2;  // MODE, WAIT: HOME is no typo of MODE
        const std::size_t distance = edit_distance(body, known);
        if (distance <= allowed && (!best || distance < best_distance)) {
            best = v.name;
            best_distance = distance;
        }
    }
    return best;
}

bool module_variable(std::string_view name) {
    // PAPSHIM_DIR too: the suffix's '_' may be the prefix's.
    return name.starts_with(variable_prefix) &&
           std::any_of(module_suffixes.begin(), module_suffixes.end(),
                       [&](std::string_view suffix) { return name.ends_with(suffix); });
}

std::string_view collective_name(Collective c) { return collective_names[std::size_t(c)]; }

std::optional<Collective> parse_collective(std::string_view name) {
    for (std::size_t i = 0; i < collective_names.size(); ++i)
        if (collective_names[i] == name) return Collective(i);
    return std::nullopt;
}

std::string_view mode_name(Mode m) {
    switch (m) {
        case Mode::off: return "off";
        case Mode::profile: return "profile";
        case Mode::dispatch: return "dispatch";
    }
    return "?";
}

std::optional<Mode> parse_mode(std::string_view s) {
    for (Mode m : {Mode::off, Mode::profile, Mode::dispatch})
        if (mode_name(m) == s) return m;
    return std::nullopt;
}

bool valid_algorithm(Collective c, std::string_view name, const AlgorithmNames& names) {
    if (name == "native" || name == "auto") return true;
    const auto& known = names[std::size_t(c)];
    return std::find(known.begin(), known.end(), name) != known.end();
}

std::string algorithm_choices(Collective c, const AlgorithmNames& names) {
    std::string out = "native, auto";
    for (const auto& n : names[std::size_t(c)]) out += ", " + n;
    return out;
}

std::string invalid_algorithm_message(Collective c, std::string_view name, const AlgorithmNames& names) {
    std::string message = fmt::format("invalid {}='{}': expected one of {}", algorithm_variable(c), name,
                                      algorithm_choices(c, names));
    // The name of another collective's algorithm: say whose, which is likely what was meant.
    if (const std::string others = collectives_with(name, c, names); !others.empty())
        message += fmt::format("; {} is {} {} algorithm", name, others.starts_with('A') ? "an" : "a", others);
    return message;
}

std::vector<std::string> Config::canonical() const {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("PAPSHIM_MODE={}", mode_name(mode)));
    for (int i = 0; i < collective_count; ++i)
        lines.push_back(fmt::format("{}={}", algorithm_variable(Collective(i)), algorithm[std::size_t(i)]));
    lines.push_back(fmt::format("PAPSHIM_TRACE_DIR={}", trace_dir));
    lines.push_back(fmt::format("PAPSHIM_CALLSITE_DEPTH={}", callsite_depth));
    lines.push_back(fmt::format("PAPSHIM_VERBOSE={}", verbose));
    lines.push_back(fmt::format("PAPSHIM_TRACE_BUFFER={}", trace_buffer));
    lines.push_back(fmt::format("PAPSHIM_NODE_SIZE={}", node_size));
    lines.push_back(shm_slot ? fmt::format("PAPSHIM_SHM_SLOT={}", shm_slot) : "PAPSHIM_SHM_SLOT=auto");
    lines.push_back(fmt::format("PAPSHIM_PREDICTOR={}", predictor));
    lines.push_back(fmt::format("PAPSHIM_EMA_ALPHA={}", ema_alpha));
    lines.push_back(fmt::format("PAPSHIM_SMA_WINDOW={}", sma_window));
    lines.push_back(fmt::format("PAPSHIM_TAU_US={}", tau_us));
    lines.push_back(fmt::format("PAPSHIM_HELPER_THREAD={}", helper_thread_always ? "always" : helper_thread ? "1" : "0"));
    lines.push_back(fmt::format("PAPSHIM_REPRODUCIBLE={}", reproducible ? 1 : 0));
    lines.push_back(fmt::format("PAPSHIM_WAIT={}", wait));
    lines.push_back(node_cpus ? fmt::format("PAPSHIM_NODE_CPUS={}", node_cpus) : "PAPSHIM_NODE_CPUS=auto");
    lines.push_back(fmt::format("PAPSHIM_NETWORK={}", network));
    return lines;
}

std::vector<VariableInfo> describe_variables(const AlgorithmNames& names) {
    std::vector<VariableInfo> vars;
    vars.push_back({"PAPSHIM_MODE", "dispatch", "off, profile, dispatch",
                    "off: forward every call untouched; profile: forward and record the arrival "
                    "pattern; dispatch: run the selected algorithms (records too if PAPSHIM_TRACE_DIR is set)"});
    for (int i = 0; i < collective_count; ++i) {
        auto c = Collective(i);
        vars.push_back({algorithm_variable(c), "native", algorithm_choices(c, names),
                        fmt::format("algorithm for MPI_{}{} in dispatch mode: native (the MPI library's), "
                                    "auto (per call, from size, node layout and the arrival imbalance "
                                    "seen so far; native where papshim's measured no gain) or one of papshim's",
                                    char(std::toupper(collective_name(c)[0])), collective_name(c).substr(1))});
    }
    vars.push_back({"PAPSHIM_TRACE_DIR", std::string(default_profile_dir) + " (profile mode)", "a directory",
                    "where calls.csv, trace.json, summary.txt and meta.txt are written at MPI_Finalize, after "
                    "which rank 0 says where in one line; created if missing; an earlier papshim trace there "
                    "(its meta.txt is papshim's) is replaced, its plots too, and the job says so; where another "
                    "job's trace holds it (its papshim.lock), or it holds files of papshim's names but is no "
                    "papshim trace, it is left untouched: the job traces into DIR.1, DIR.2 ... and says so; in "
                    "dispatch mode tracing happens only when it is set"});
    vars.push_back({"PAPSHIM_CALLSITE_DEPTH", "1", "1..16",
                    "stack frames above the MPI call that identify a call site"});
    vars.push_back({"PAPSHIM_VERBOSE", "0", "0, 1, 2",
                    "lines on stderr, each starting papshim: (at every level, rank 0's lines at MPI_Finalize: "
                    "where the trace is, and before it, every 2 s, how far a trace merge that takes longer than "
                    "2 s is). 1: world rank 0 prints one at MPI_Init (ranks, mode, the measured α and β, the "
                    "clock's round trip, how papshim waits, the trace directory if tracing). 2: also, from a "
                    "communicator's rank 0 when papshim first makes its context (its first call papshim handles), "
                    "one line with its ranks and nodes (an extra collective on every rank; not for "
                    "inter-communicators), and one with its α and β where papshim measures a communicator's own "
                    "link (at its first call that exchanges predictions, on a communicator whose rank 0 and last "
                    "rank are not the world's)"});
    vars.push_back({"PAPSHIM_TRACE_BUFFER", "65536", "1..100000000",
                    "trace records kept in memory per rank before they are spilled to a file in the trace directory"});
    vars.push_back({"PAPSHIM_NODE_SIZE", "0", "0..1000000",
                    "ranks per node for papshim's node-aware algorithms: 0 = the MPI's shared-memory "
                    "split; N = virtual nodes of N consecutive world ranks (within that split), e.g. to "
                    "test several nodes on one machine; papshim-run --emulate-network sets it"});
    vars.push_back({"PAPSHIM_SHM_SLOT", "auto", "auto, or 1024..67108864",
                    "bytes per rank in a node's shared-memory segment: the largest vector the dynamic_leader "
                    "Reduce and Allreduce take, and the largest result broadcast through shared memory; auto: the "
                    "largest power of two from 64 KiB to 4 MiB with which a segment of the world's largest "
                    "node (its ranks + 1 slots) stays within 64 MiB, e.g. 4 MiB up to 15 ranks per node, "
                    "512 KiB at 64, 256 KiB at 128 (a segment's pages are taken only as they are written)"});
    vars.push_back({"PAPSHIM_PREDICTOR", "ema", "ema, sma, last",
                    "how a call site's history of compute intervals (or of the time between entries, where "
                    "that has predicted its arrivals better) predicts the next arrival: exponential "
                    "moving average, simple moving average, or the last value"});
    vars.push_back({"PAPSHIM_EMA_ALPHA", "0.25", "0 < alpha <= 1", "weight of the newest sample in the EMA"});
    vars.push_back({"PAPSHIM_SMA_WINDOW", "8", "1..1024", "samples in the SMA"});
    vars.push_back({"PAPSHIM_TAU_US", "measured", "measured, or a number of microseconds > 0 and at most 1e9",
                    "τ, the time of one segment over one link, for the PAP-aware planners (BDR; Clairvoyant's round, "
                    "a segment and its reduction) and the imbalance factor ω/τ; measured: α + β·segment bytes "
                    "(Clairvoyant: α + (β + γ)·segment bytes) from the communicator's link, measured "
                    "between its rank 0 and last rank at its first call that exchanges predictions (MPI_Init's "
                    "world link where those are the world's)"});
    vars.push_back({"PAPSHIM_HELPER_THREAD", "1", "0, 1, always",
                    "1: a helper thread posts bdr's and bslb's background receives while ranks compute, which they "
                    "need to plan (MPI_Init is upgraded to MPI_THREAD_MULTIPLE when bdr or bslb is configured; "
                    "auto raises nothing, but for Allgather or Allgatherv it starts the thread where MPI already "
                    "provides MPI_THREAD_MULTIPLE on every rank, as for mpi4py, and may then run bdr; the planned "
                    "Reduce/Allreduce algorithms need no thread: their prediction exchanges complete inside MPI "
                    "calls); always: start it and upgrade whatever is configured, for programs that choose bdr or "
                    "bslb per communicator with papshim_set_algorithm; 0: no thread, no upgrade, progress only "
                    "inside MPI calls; without the thread bdr and bslb run their balanced form"});
    vars.push_back({"PAPSHIM_REPRODUCIBLE", "0", "0, 1",
                    "1: floating-point Reduce/Allreduce only by algorithms whose reduction order does not depend "
                    "on arrival order, so results repeat bit for bit from run to run (arrival-ordered ones "
                    "differ in the last bits)"});
    vars.push_back({"PAPSHIM_WAIT", "auto", "auto, mpi, yield",
                    "how papshim's own algorithms wait for their messages: mpi: the MPI library's wait (MPICH's "
                    "keeps polling on its core); yield: test, and give the core to another process between tests; "
                    "auto: yield where a node runs more ranks than the CPUs its ranks may use (counted in MPI_Init "
                    "unless the mode is off; a cgroup CPU quota is not seen: PAPSHIM_NODE_CPUS) and MPI's wait does not yield by "
                    "itself (MPICH), else mpi (Open MPI yields on a node mpiexec knows is oversubscribed). Native "
                    "calls always wait MPI's way"});
    vars.push_back({"PAPSHIM_NODE_CPUS", "auto", "auto, or 1..1000000",
                    "the CPUs the ranks of a node may use, which decides whether they share cores, and with it "
                    "PAPSHIM_WAIT's auto, what auto runs for a Reduce or an Allreduce on one node (its "
                    "small-Allreduce window, and from 16 KiB which shared-memory algorithm it follows the arrivals "
                    "with), and how long papshim's shared-memory waits spin; auto: "
                    "counted in MPI_Init as the union of the node's ranks' affinity masks. Set it where that "
                    "count is wrong, e.g. a cgroup CPU quota smaller than the CPUs a job may be scheduled on"});
    vars.push_back({"PAPSHIM_NETWORK", "unspecified", "any text without control characters",
                    "what network the job runs on, recorded in the trace's meta.txt and papshim-bench's "
                    "output; papshim-run --emulate-network sets it"});
    return vars;
}

ParseResult parse_config(const Lookup& lookup, const std::vector<std::string>& environment_names,
                         const AlgorithmNames& names) {
    Config cfg;
    auto fail = [](std::string msg) { return ParseResult{std::nullopt, ConfigError{std::move(msg)}, std::nullopt}; };
    auto invalid = [&](std::string_view var, std::string_view value, std::string_view expected) {
        return fail(fmt::format("invalid {}='{}': expected {}", var, value, expected));
    };

    const auto vars = describe_variables(names);
    for (const auto& env : environment_names) {
        if (env.rfind("PAPSHIM_", 0) != 0) continue;
        bool known = std::any_of(vars.begin(), vars.end(), [&](const VariableInfo& v) { return v.name == env; });
        if (known) continue;
        // A near miss of a variable is a typo, whatever its ending (PAPSHIM_TRACEDIR); a
        // module system's PAPSHIM_ROOT, PAPSHIM_DIR ... is left alone.
        if (auto close = closest_variable(env, vars))
            return fail(fmt::format("unknown variable {}: did you mean {}?", env, *close));
        if (module_variable(env)) continue;
        std::string all;
        for (const auto& v : vars) all += (all.empty() ? "" : ", ") + v.name;
        return fail(fmt::format("unknown variable {}: papshim reads {}", env, all));
    }

    if (const char* v = lookup("PAPSHIM_MODE")) {
        auto m = parse_mode(v);
        if (!m) return invalid("PAPSHIM_MODE", v, "one of off, profile, dispatch");
        cfg.mode = *m;
    }
    for (int i = 0; i < collective_count; ++i) {
        auto c = Collective(i);
        std::string var = algorithm_variable(c);
        if (const char* v = lookup(var.c_str())) {
            if (!valid_algorithm(c, v, names)) return fail(invalid_algorithm_message(c, v, names));
            cfg.algorithm[std::size_t(i)] = v;
        }
    }
    if (const char* v = lookup("PAPSHIM_TRACE_DIR")) {
        if (*v == '\0') return invalid("PAPSHIM_TRACE_DIR", v, "a non-empty directory path");
        cfg.trace_dir = v;
    } else if (cfg.mode == Mode::profile) {
        cfg.trace_dir = default_profile_dir;
    }
    // `keyword`: a word the variable takes besides numbers, which leaves `out` as it is.
    auto integer = [&](const char* var, long lo, long hi, auto& out,
                       const char* keyword = nullptr) -> std::optional<ParseResult> {
        const char* v = lookup(var);
        if (!v || (keyword && std::string_view(v) == keyword)) return std::nullopt;
        auto n = parse_integer(v);
        if (!n || *n < lo || *n > hi)
            return invalid(var, v,
                           fmt::format("{}an integer in {}..{}", keyword ? fmt::format("{}, or ", keyword) : "", lo, hi));
        out = static_cast<std::remove_reference_t<decltype(out)>>(*n);
        return std::nullopt;
    };
    if (auto e = integer("PAPSHIM_CALLSITE_DEPTH", 1, 16, cfg.callsite_depth)) return *e;
    if (auto e = integer("PAPSHIM_VERBOSE", 0, 2, cfg.verbose)) return *e;
    if (auto e = integer("PAPSHIM_TRACE_BUFFER", 1, 100000000, cfg.trace_buffer)) return *e;
    if (auto e = integer("PAPSHIM_NODE_SIZE", 0, 1000000, cfg.node_size)) return *e;
    if (auto e = integer("PAPSHIM_SHM_SLOT", 1024, 67108864, cfg.shm_slot, "auto")) return *e;
    if (const char* v = lookup("PAPSHIM_NETWORK")) {
        // meta.txt holds it as one key=value line: a line break would split it.
        const std::string_view text(v);
        if (std::any_of(text.begin(), text.end(), [](unsigned char c) { return control_character(c); }))
            return invalid("PAPSHIM_NETWORK", escaped(text), "text without control characters (line breaks, tabs)");
        cfg.network = v;
    }
    if (const char* v = lookup("PAPSHIM_PREDICTOR")) {
        if (std::string_view(v) != "ema" && std::string_view(v) != "sma" && std::string_view(v) != "last")
            return invalid("PAPSHIM_PREDICTOR", v, "one of ema, sma, last");
        cfg.predictor = v;
    }
    auto number = [&](const char* var, double lo_exclusive, double hi, double& out) -> std::optional<ParseResult> {
        const char* v = lookup(var);
        if (!v) return std::nullopt;
        auto n = parse_number(v);
        if (!n || !(*n > lo_exclusive) || *n > hi)
            return invalid(var, v, fmt::format("a number above {} and at most {}", lo_exclusive, hi));
        out = *n;
        return std::nullopt;
    };
    if (auto e = number("PAPSHIM_EMA_ALPHA", 0.0, 1.0, cfg.ema_alpha)) return *e;
    if (auto e = integer("PAPSHIM_SMA_WINDOW", 1, 1024, cfg.sma_window)) return *e;
    // "measured", the default, may be written out (papshim-info and the README show it).
    if (const char* v = lookup("PAPSHIM_TAU_US"); !v || std::string_view(v) != "measured")
        if (auto e = number("PAPSHIM_TAU_US", 0.0, 1e9, cfg.tau_us)) return *e;
    // The exact words: MPI_Init's thread-level upgrade reads this variable before MPI exists
    // (lifecycle.cpp, wants_helper_thread) and compares text, so "00" or " 1" would mean one
    // thing there and another here.
    if (const char* v = lookup("PAPSHIM_HELPER_THREAD")) {
        const std::string_view value(v);
        if (value != "0" && value != "1" && value != "always")
            return invalid("PAPSHIM_HELPER_THREAD", v, "one of 0, 1, always");
        cfg.helper_thread = value != "0";
        cfg.helper_thread_always = value == "always";
    }
    int reproducible = 0;
    if (auto e = integer("PAPSHIM_REPRODUCIBLE", 0, 1, reproducible)) return *e;
    cfg.reproducible = reproducible != 0;
    if (const char* v = lookup("PAPSHIM_WAIT")) {
        const std::string_view value(v);
        if (value != "auto" && value != "mpi" && value != "yield") return invalid("PAPSHIM_WAIT", v, "one of auto, mpi, yield");
        cfg.wait = v;
    }
    if (auto e = integer("PAPSHIM_NODE_CPUS", 1, 1000000, cfg.node_cpus, "auto")) return *e;
    return ParseResult{cfg, std::nullopt, ineffective_settings(cfg, lookup)};
}

}  // namespace papshim
