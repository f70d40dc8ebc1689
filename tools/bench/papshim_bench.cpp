// papshim-bench: papshim against the native MPI collectives in the same run. Linked to
// libpapshim.so ahead of MPI, so MPI_* resolves to the shim while PMPI_* stays native.
#include <mpi.h>
#include <papshim/control.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "common.hpp"
#include "measure.hpp"
#include "papshim/algorithms.hpp"

namespace fs = std::filesystem;
using namespace papshim::bench;

namespace {

// Every rank must name the same trace directory before MPI_Init, without communicating:
// derive it from the launcher's job id (or the shared parent, the local launcher daemon).
std::string shared_trace_dir() {
    std::string job;
    for (const char* variable : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"})
        if (const char* value = std::getenv(variable); value && *value) {
            job = value;
            break;
        }
    if (job.empty()) job = std::to_string(getppid());
    for (char& c : job)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return (fs::temp_directory_path() / ("papshim-bench-trace-" + job)).string();
}

std::string library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string version(text, std::strlen(text));  // some MPIs count the terminating NUL
    version = version.substr(0, version.find('\n'));
    while (!version.empty() &&
           (version.back() == ',' || std::isspace(static_cast<unsigned char>(version.back()))))
        version.pop_back();
    return version;
}

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm parts{};
    gmtime_r(&now, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

// "0.52 0.61 0.70": the 1, 5 and 15-minute load averages (Linux), to judge a run's noise.
std::string load_average() {
    std::ifstream file("/proc/loadavg");
    std::string one, five, fifteen;
    if (!(file >> one >> five >> fifteen)) return "unknown";
    return one + " " + five + " " + fifteen;
}

std::string host_name() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

// What the job runs on, as papshim-run --emulate-network (or the user) says.
std::string network_name() {
    const char* network = std::getenv("PAPSHIM_NETWORK");
    return network && *network ? network : "unspecified";
}

// BDR and BSLB receive in the background on papshim's helper thread (MPI_THREAD_MULTIPLE),
// which papshim starts only when a PAPSHIM_* variable selects such an algorithm. The bench
// selects per communicator, so it asks for the thread itself whenever one of its algorithms
// needs it (the planned reductions do not); a user's PAPSHIM_HELPER_THREAD still wins. Every
// algorithm of the run, native included, then runs at MPI_THREAD_MULTIPLE.
void request_helper_thread(const Options& options) {
    if (options.suite == Suite::overhead) return;
    // The two enums list the collectives in the same order (static_assert in options.cpp).
    const auto collective = static_cast<papshim::Collective>(options.collective);
    const bool needs = std::any_of(options.algorithms.begin(), options.algorithms.end(), [&](const std::string& name) {
        return papshim::needs_helper_thread(collective, name);
    });
    if (needs) setenv("PAPSHIM_HELPER_THREAD", "always", 0);
}

// The thread level MPI really provides (papshim answers MPI_Query_thread with the level the
// program asked for).
const char* real_thread_level() {
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    return level == MPI_THREAD_MULTIPLE ? "multiple" : level == MPI_THREAD_SERIALIZED ? "serialized"
           : level == MPI_THREAD_FUNNELED ? "funneled" : "single";
}

const char* helper_thread_setting() {
    const char* value = std::getenv("PAPSHIM_HELPER_THREAD");
    return value ? value : "1 (default)";
}

Json metadata(const Options& options, const World& world, int argc, char** argv,
              const std::string& trace_dir) {
    const char* initial_mode = std::getenv("PAPSHIM_MODE");
    Json chosen = {{"suite", suite_name(options.suite)}};
    if (options.suite != Suite::overhead) {
        chosen["collective"] = collective_name(options.collective);
        if (options.collective == Collective::reduce) chosen["root"] = root_json(options.root);
        if (options.collective == Collective::reduce || options.collective == Collective::allreduce)
            chosen["op"] = op_name(options.op);
        if (options.collective == Collective::allgatherv) chosen["blocks"] = options.blocks;
        chosen["bytes"] = options.bytes;
        chosen["algorithms"] = options.algorithms;
    }
    if (options.suite == Suite::allgather) chosen["pattern"] = options.pattern.text;
    if (options.suite == Suite::sweep) {
        Json patterns = Json::array();
        for (const SweepPattern& kind : options.sweep_patterns) patterns.push_back(kind.name);
        Json delays = Json::array();
        for (const SweepDelay& delay : options.delays) delays.push_back(delay.text);
        chosen["patterns"] = std::move(patterns);
        chosen["delays"] = std::move(delays);
        chosen["plot_dir"] = options.plot_dir;
    }
    if (options.suite != Suite::overhead) chosen["hiccups"] = options.hiccups.text;
    chosen["iterations"] = options.iterations;
    chosen["warmup"] = options.warmup;
    chosen["rounds"] = options.rounds;
    chosen["seed"] = options.seed;
    return {{"tool", "papshim-bench"},
            {"papshim_version", papshim_version()},
            {"mpi_build", PAPSHIM_BENCH_MPI},
            {"mpi_library", library_version()},
            {"ranks", world.ranks},
            {"date_utc", utc_now()},
            {"host", host_name()},
            {"network", network_name()},
            {"load_average_at_start", load_average()},
            {"trace_dir", trace_dir},
            {"papshim_mode_at_init", initial_mode ? initial_mode : "dispatch (default)"},
            {"papshim_helper_thread", helper_thread_setting()},
            // What PAPSHIM_WAIT chose: with "yield" on an oversubscribed node papshim's
            // algorithms give the core away while they wait, where MPICH's native calls spin.
            {"papshim_wait", papshim_wait_policy()},
            {"mpi_thread_level", real_thread_level()},
            {"command_line", std::vector<std::string>(argv, argv + argc)},
            {"options", std::move(chosen)}};
}

// Rank 0 checks it can write the JSON file (and create the plot folder) before spending
// minutes measuring.
void check_writable(const std::string& json_path, const std::string& plot_dir,
                    const World& world) {
    int problem = 0;  // 1: the folder, 2: the file
    if (world.rank == 0 && !plot_dir.empty()) {
        std::error_code error;
        fs::create_directories(plot_dir, error);
        if (error || !fs::is_directory(plot_dir)) problem = 1;
    }
    // Appending opens it as writing does, and keeps an earlier run's results until this
    // run has its own.
    if (world.rank == 0 && !problem && !json_path.empty())
        problem = std::ofstream(json_path, std::ios::app).good() ? 0 : 2;
    PMPI_Bcast(&problem, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (problem == 1) throw UsageError(fmt::format("--plot: cannot create '{}'", plot_dir));
    if (problem == 2) throw UsageError(fmt::format("--json: cannot write '{}'", json_path));
}

// papshim_bench_plot.py, installed next to this program, draws the sweep's PNGs from its
// JSON file with matplotlib (run after MPI_Finalize: no MPI process forks).
void draw_plots(const std::string& json_path, const std::string& plot_dir) {
    const std::string python = PAPSHIM_BENCH_PYTHON;
    std::error_code error;
    const fs::path script =
        fs::read_symlink("/proc/self/exe", error).parent_path() / "papshim_bench_plot.py";
    if (python.empty() || access(python.c_str(), X_OK) != 0 || !fs::exists(script)) {
        fmt::print(stderr, "papshim-bench: plots skipped: no {}\n",
                   python.empty() ? "python3" : !fs::exists(script) ? script.string() : python);
        return;
    }
    std::vector<std::string> args = {python, script.string(), json_path, plot_dir};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t child = 0;
    int status = -1;
    if (posix_spawn(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) == 0)
        waitpid(child, &status, 0);
    if (status != 0)
        fmt::print(stderr, "papshim-bench: plots failed: {} {} {} exited with status {}\n",
                   script.string(), json_path, plot_dir,
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

int main(int argc, char** argv) {
    const ParseResult parsed = parse_options(argc, argv);
    const Options& options = parsed.options;

    // Only the overhead suite uses profile mode, which needs a trace directory. Starting the
    // shim in profile mode opens the trace and keeps dispatch mode from recording (dispatch
    // records only when started in dispatch mode with PAPSHIM_TRACE_DIR set), so the
    // dispatch+native variant measures dispatch alone. The other suites leave both alone.
    std::string trace_dir;
    bool own_trace_dir = false;
    const bool asked_help = !parsed.help.empty();
    const bool overhead = parsed.error.empty() && !asked_help && options.suite == Suite::overhead;
    if (overhead) setenv("PAPSHIM_MODE", "profile", 0);
    if (const char* user_dir = std::getenv("PAPSHIM_TRACE_DIR"); user_dir && *user_dir) {
        trace_dir = user_dir;
    } else if (overhead) {
        trace_dir = shared_trace_dir();
        own_trace_dir = true;  // the name is this job's alone
        setenv("PAPSHIM_TRACE_DIR", trace_dir.c_str(), 1);
    }

    if (parsed.error.empty() && !asked_help) request_helper_thread(options);
    MPI_Init(&argc, &argv);
    World world;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world.ranks);
    if (own_trace_dir) {
        // The shim may have traced into DIR.1, ... (a held DIR): report and remove that one.
        char claimed[4096] = {};
        if (papshim_get_trace_dir(claimed, sizeof claimed) == MPI_SUCCESS && claimed[0] != '\0') trace_dir = claimed;
    }

    // --plot needs the results as JSON: in DIR/sweep.json unless --json names a file.
    const std::string json_path =
        options.json_path.empty() && !options.plot_dir.empty()
            ? (fs::path(options.plot_dir) / "sweep.json").string()
            : options.json_path;
    int status = 0;
    if (!parsed.error.empty() || asked_help) {
        if (world.rank == 0) {
            if (asked_help)
                fmt::print("{}", parsed.help);
            else
                fmt::print(stderr, "{}\n", parsed.error);
        }
        status = asked_help ? 0 : 2;
    } else {
        if (world.rank == 0 && !parsed.warning.empty()) fmt::print(stderr, "{}\n", parsed.warning);
        try {
            check_writable(json_path, options.plot_dir, world);
            // Every size before the first measurement: a bad one found at its turn lost the others'.
            if (options.suite != Suite::overhead)
                for (std::size_t bytes : options.bytes) check_call_size(options.collective, bytes, world.ranks);
            if (world.rank == 0)
                fmt::print("papshim-bench: network {}; MPI thread level {}, PAPSHIM_HELPER_THREAD={}; "
                           "papshim's algorithms wait: {}\n",
                           network_name(), real_thread_level(), helper_thread_setting(), papshim_wait_policy());
            // Taken before the suite runs, so the date and load are the start's.
            Json json = world.rank == 0 ? metadata(options, world, argc, argv, trace_dir) : Json();
            json["results"] = options.suite == Suite::overhead    ? run_overhead_suite(options, world)
                              : options.suite == Suite::allgather ? run_allgather_suite(options, world)
                                                                  : run_sweep_suite(options, world);
            if (world.rank == 0 && !json_path.empty()) {
                json["load_average_at_end"] = load_average();
                std::ofstream out(json_path);
                out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
                out.close();
                if (out) {
                    fmt::print("\nresults written to {}\n", json_path);
                } else {
                    fmt::print(stderr, "papshim-bench: could not write the results to {} (disk full?)\n", json_path);
                    status = 1;
                }
            }
            if (world.rank == 0) {
                fmt::print("load average (1, 5, 15 min) at the end: {}\n", load_average());
            }
        } catch (const UsageError& error) {
            if (world.rank == 0) fmt::print(stderr, "papshim-bench: {}\n", error.what());
            status = 2;
        }
    }
    std::fflush(stdout);
    MPI_Finalize();

    if (status == 0 && world.rank == 0 && !options.plot_dir.empty())
        draw_plots(json_path, options.plot_dir);
    // The shim merges the trace at MPI_Finalize on rank 0, so rank 0 may remove it afterwards.
    if (own_trace_dir && world.rank == 0) {
        if (options.keep_trace) {
            fmt::print("profile trace kept in {}\n", trace_dir);
        } else {
            std::error_code ignored;
            fs::remove_all(trace_dir, ignored);
            // papshim's own line at MPI_Finalize named it: say it is gone on purpose.
            fmt::print("profile trace in {} removed (--keep-trace keeps it)\n", trace_dir);
        }
    }
    return status;
}
