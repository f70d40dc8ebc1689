// papshim-report DIR [--no-plots] [--top N] [--plots-dir PATH]
// Prints the PAP report of a trace directory (docs/report.md) and draws its PNG plots with
// papshim_plot.py, found next to this program. Exit 0 ok, 2 bad usage or bad input.
#include "papshim/report.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace report = papshim::report;

constexpr int exit_ok = 0;
constexpr int exit_bad = 2;
// papshim_plot.py exits with this when matplotlib cannot be imported.
constexpr int plot_exit_no_matplotlib = 3;

constexpr std::string_view usage =
    "usage: papshim-report DIR [--no-plots] [--top N] [--plots-dir PATH]\n"
    "  DIR             trace directory with calls.csv and meta.txt (PAPSHIM_TRACE_DIR)\n"
    "  --top N         list and plot the N busiest call sites (default 10)\n"
    "  --no-plots      print the report only\n"
    "  --plots-dir P   write the PNGs and their plot-*.csv input to P (default DIR)\n"
    "Prints the report to stdout; see docs/report.md for what each number means.\n";

struct Options {
    std::string dir;
    std::string plots_dir;
    bool plots = true;
    std::size_t top = 10;
};

std::optional<Options> parse_arguments(int argc, char** argv, std::string& error) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) return nullptr;
            return argv[++i];
        };
        if (arg == "--no-plots") {
            options.plots = false;
        } else if (arg == "--top") {
            const char* text = value();
            const std::string_view digits = text ? text : "";
            const auto [end, ec] =
                std::from_chars(digits.data(), digits.data() + digits.size(), options.top);
            if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
                options.top == 0) {
                error = "--top needs a positive whole number";
                return std::nullopt;
            }
        } else if (arg == "--plots-dir") {
            const char* text = value();
            if (!text || !*text) {
                error = "--plots-dir needs a path";
                return std::nullopt;
            }
            options.plots_dir = text;
        } else if (!arg.empty() && arg.front() == '-') {
            error = fmt::format("unknown option '{}'", arg);
            return std::nullopt;
        } else if (options.dir.empty()) {
            options.dir = arg;
        } else {
            error = fmt::format("one trace directory expected, got also '{}'", arg);
            return std::nullopt;
        }
    }
    if (options.dir.empty()) {
        error = "missing the trace directory";
        return std::nullopt;
    }
    if (options.plots_dir.empty()) options.plots_dir = options.dir;
    return options;
}

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

void draw_plots(const report::Analysis& analysis, const Options& options) {
    std::error_code ec;
    fs::create_directories(options.plots_dir, ec);
    report::write_plot_data(analysis, options.plots_dir, options.top);
    const std::string python = PAPSHIM_PLOT_PYTHON;
    const fs::path script = own_folder() / "papshim_plot.py";
    if (python.empty() || access(python.c_str(), X_OK) != 0) {
        std::fputs("plots skipped: matplotlib not available (no python3 interpreter)\n", stderr);
        return;
    }
    if (!fs::exists(script)) {
        std::fputs(fmt::format("plots skipped: {} not found\n", script.string()).c_str(), stderr);
        return;
    }
    const int status = run_plot_script(python, script.string(), options.plots_dir);
    if (status == plot_exit_no_matplotlib) {
        std::fputs("plots skipped: matplotlib not available\n", stderr);
    } else if (status != 0) {
        std::fputs(fmt::format("plots failed: {} exited with {}\n", script.string(), status)
                       .c_str(),
                   stderr);
    }
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(usage.data(), stdout);
            return exit_ok;
        }
    }
    std::string error;
    const auto options = parse_arguments(argc, argv, error);
    if (!options) {
        std::fputs(fmt::format("papshim-report: {} (see --help)\n", error).c_str(), stderr);
        return exit_bad;
    }
    try {
        const report::Analysis analysis = report::analyze_directory(options->dir);
        std::fputs(report::format_summary(analysis, {options->top}).c_str(), stdout);
        std::fflush(stdout);
        if (options->plots) draw_plots(analysis, *options);
    } catch (const std::exception& e) {
        std::fputs(fmt::format("papshim-report: {}\n", e.what()).c_str(), stderr);
        return exit_bad;
    }
    return exit_ok;
}
