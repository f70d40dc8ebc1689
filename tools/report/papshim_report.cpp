// papshim-report DIR [--no-plots] [--top N] [--plots-dir PATH] [--recover]
// Prints the PAP report of a trace directory (docs/report.md) and draws its PNG plots with
// papshim_plot.py, found next to this program. A directory a dead job left (spill files, a
// meta.txt that says no merge completed) is recovered first. Exit 0 ok, 2 bad usage or bad input.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "cli.hpp"
#include "papshim/report.hpp"
#include "papshim/trace_format.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace report = papshim::report;

constexpr int exit_ok = 0;
constexpr int exit_unwritten = 1;  // stdout or the plots
constexpr int exit_bad = 2;
// papshim_plot.py exits with this when matplotlib cannot be imported.
constexpr int plot_exit_no_matplotlib = 3;

struct Options {
    std::string dir;
    std::string plots_dir;
    bool no_plots = false;
    bool recover = false;
    std::size_t top = 10;
};

// The folder of this executable: the plot script is installed next to it.
fs::path own_folder() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : self.parent_path();
}

// Runs the plot script; returns its exit status, or -1 if it could not be started.
int run_plot_script(const std::string& python, const std::string& script,
                    const std::string& plots_dir) {
    std::vector<std::string> args = {python, script, plots_dir};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

// Whether the plots were drawn or skipped for want of matplotlib (false: they failed).
bool draw_plots(const report::Analysis& analysis, const Options& options) {
    std::error_code ec;
    fs::create_directories(options.plots_dir, ec);
    report::write_plot_data(analysis, options.plots_dir, options.top);
    const std::string python = PAPSHIM_PLOT_PYTHON;
    const fs::path script = own_folder() / "papshim_plot.py";
    if (python.empty() || access(python.c_str(), X_OK) != 0) {
        std::fputs("plots skipped: matplotlib not available (no python3 interpreter)\n", stderr);
        return true;
    }
    if (!fs::exists(script)) {
        std::fputs(fmt::format("plots skipped: {} not found\n", script.string()).c_str(), stderr);
        return true;
    }
    const int status = run_plot_script(python, script.string(), options.plots_dir);
    if (status == plot_exit_no_matplotlib) {
        std::fputs("plots skipped: matplotlib not available\n", stderr);
    } else if (status != 0) {
        std::fputs(fmt::format("plots failed: {} exited with {}\n", script.string(), status)
                       .c_str(),
                   stderr);
        return false;
    }
    return true;
}

// The trace directory `given` names: a directory, or a trace's calls.csv (its directory).
// Empty, with `error` set, when `given` is none: missing, another file, or a directory that
// holds no trace (no calls.csv, meta.txt or spill files). A directory with only a job's
// papshim.lock is left to the recovery, which says whether that job still runs.
std::string trace_directory(const std::string& given, std::string& error) {
    std::error_code ec;
    const fs::file_status status = fs::status(given, ec);
    if (!fs::exists(status)) {
        error = fmt::format("{}: no such directory", given);
        return {};
    }
    std::string dir = given;
    if (fs::is_regular_file(status) && fs::path(given).filename() == "calls.csv") {
        dir = fs::path(given).parent_path().string();
        if (dir.empty()) dir = ".";
    } else if (!fs::is_directory(status)) {
        error = fmt::format("{} is not a directory: give the trace directory (PAPSHIM_TRACE_DIR)", given);
        return {};
    }
    const auto exists = [&](const char* name) { return fs::exists(fs::path(dir) / name, ec); };
    if (!exists("calls.csv") && !exists("meta.txt") && !papshim::trace::has_spill_files(dir) &&
        !exists(papshim::trace::claim_file)) {
        error = fmt::format("{} is not a papshim trace (no calls.csv, meta.txt or spill files)", dir);
        return {};
    }
    return dir;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    CLI::App app;
    papshim::cli::configure(
        app, "papshim-report DIR [--no-plots] [--top N] [--plots-dir PATH] [--recover]",
        "Prints the PAP report of trace directory DIR (PAPSHIM_TRACE_DIR) to stdout and draws its plots; see\n"
        "docs/report.md for what each number means. DIR holds calls.csv and meta.txt, or the spill files\n"
        "of a job that died before MPI_Finalize, which are merged first. DIR/calls.csv stands for DIR.",
        "Exit status: 0 ok, 1 the report could not be written to stdout or its plots failed, 2 bad\n"
        "usage or an unreadable or malformed trace.", 18);
    app.add_option("DIR", options.dir, "trace directory with calls.csv and meta.txt (PAPSHIM_TRACE_DIR)");
    papshim::cli::add_parsed(
        app, "--top", options.top,
        [](const std::string& text) { return papshim::cli::parse_integer<std::size_t>(text, 1); },
        "list and plot the N busiest call sites (default 10)", "N");
    app.add_flag("--no-plots", options.no_plots, "print the report only");
    app.add_option("--plots-dir", options.plots_dir, "write the PNGs and their plot-*.csv input to P (default DIR)")
        ->option_text("P");
    app.add_flag("--recover", options.recover,
                 "merge the spill files of a job that did not reach MPI_Finalize into calls.csv and\n"
                 "trace.json first (done without this flag when DIR has spill files and meta.txt does not\n"
                 "say a merge completed); refused when meta.txt says MPI_Finalize merged the trace");
    std::string help;
    std::string error = papshim::cli::parse(app, argc, argv, help);
    if (!help.empty()) {
        std::fputs(help.c_str(), stdout);
        return exit_ok;
    }
    if (error.empty() && options.dir.empty()) error = "missing the trace directory";
    if (!error.empty()) {
        std::fputs(fmt::format("papshim-report: {} (see --help)\n", error).c_str(), stderr);
        return exit_bad;
    }
    options.dir = trace_directory(options.dir, error);
    if (options.dir.empty()) {
        std::fputs(fmt::format("papshim-report: {}\n", error).c_str(), stderr);
        return exit_bad;
    }
    if (options.plots_dir.empty()) options.plots_dir = options.dir;
    const bool only_a_lock = !fs::exists(fs::path(options.dir) / "calls.csv") &&
                             !fs::exists(fs::path(options.dir) / "meta.txt") &&
                             !papshim::trace::has_spill_files(options.dir);
    try {
        if (options.recover || only_a_lock || report::needs_recovery(options.dir)) {
            const auto recovered = report::recover_directory(options.dir, options.recover, [](const std::string& line) {
                std::fputs(fmt::format("papshim-report: {}\n", line).c_str(), stderr);
            });
            std::fputs(fmt::format("papshim-report: the run in {} did not reach MPI_Finalize; recovered {} records "
                                   "of {} ranks from its spill files into calls.csv and trace.json\n",
                                   options.dir, recovered.records, recovered.ranks.size())
                           .c_str(),
                       stderr);
            for (const auto& warning : recovered.warnings)
                std::fputs(fmt::format("papshim-report: warning: {}\n", warning).c_str(), stderr);
        }
        const report::Analysis analysis = report::analyze_directory(options.dir);
        std::fputs(report::format_summary(analysis, {options.top}).c_str(), stdout);
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::fputs("papshim-report: could not write the report to stdout\n", stderr);
            return exit_unwritten;
        }
        if (!options.no_plots && !draw_plots(analysis, options)) return exit_unwritten;
    } catch (const std::exception& e) {
        std::fputs(fmt::format("papshim-report: {}\n", e.what()).c_str(), stderr);
        return exit_bad;
    }
    return exit_ok;
}
