// papshim-bench: papshim against the native MPI collectives in the same run. Linked to
// libpapshim.so ahead of MPI, so MPI_* resolves to the shim while PMPI_* stays native.
#include <mpi.h>
#include <papshim/control.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "common.hpp"

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

Json metadata(const Options& options, const World& world, int argc, char** argv,
              const std::string& trace_dir) {
    const char* initial_mode = std::getenv("PAPSHIM_MODE");
    Json chosen = {{"suite", suite_name(options.suite)}};
    if (options.suite == Suite::allgather) {
        chosen["collective"] = collective_name(options.collective);
        chosen["bytes"] = options.bytes;
        chosen["algorithms"] = options.algorithms;
        chosen["pattern"] = options.pattern.text;
    }
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
            {"load_average_at_start", load_average()},
            {"trace_dir", trace_dir},
            {"papshim_mode_at_init", initial_mode ? initial_mode : "dispatch (default)"},
            {"command_line", std::vector<std::string>(argv, argv + argc)},
            {"options", std::move(chosen)}};
}

// Rank 0 checks it can write the JSON file before spending minutes measuring.
void check_json_writable(const std::string& path, const World& world) {
    int writable = 1;
    if (world.rank == 0 && !path.empty()) writable = std::ofstream(path).good() ? 1 : 0;
    PMPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!writable) throw UsageError(fmt::format("--json: cannot write '{}'", path));
}

}  // namespace

int main(int argc, char** argv) {
    const ParseResult parsed = parse_options(argc, argv);
    const Options& options = parsed.options;

    // Only the overhead suite uses profile mode, which needs a trace directory. Starting the
    // shim in profile mode opens the trace and keeps dispatch mode from recording (dispatch
    // records only when started in dispatch mode with PAPSHIM_TRACE_DIR set), so the
    // dispatch+native variant measures dispatch alone. The allgather suite leaves both alone.
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

    MPI_Init(&argc, &argv);
    World world;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world.ranks);

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
        try {
            check_json_writable(options.json_path, world);
            // Taken before the suite runs, so the date and load are the start's.
            Json json = world.rank == 0 ? metadata(options, world, argc, argv, trace_dir) : Json();
            json["results"] = options.suite == Suite::overhead
                                  ? run_overhead_suite(options, world)
                                  : run_allgather_suite(options, world);
            if (world.rank == 0 && !options.json_path.empty()) {
                json["load_average_at_end"] = load_average();
                std::ofstream(options.json_path)
                    << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
                fmt::print("\nresults written to {}\n", options.json_path);
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

    // The shim merges the trace at MPI_Finalize on rank 0, so rank 0 may remove it afterwards.
    if (own_trace_dir && world.rank == 0) {
        if (options.keep_trace) {
            fmt::print("profile trace kept in {}\n", trace_dir);
        } else {
            std::error_code ignored;
            fs::remove_all(trace_dir, ignored);
        }
    }
    return status;
}
