// Recovery of a dead job's trace: the spill files it left become calls.csv and trace.json,
// and meta.txt says that the run did not reach MPI_Finalize and how each rank's records end.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "papshim/report.hpp"

extern char** environ;

namespace papshim::report {
namespace {

// `addr2line -C -f -e MODULE OFFSET...`: a function line and a file:line line per offset;
// empty when addr2line cannot run.
std::vector<std::string> addr2line(const std::string& module, const std::vector<std::uintptr_t>& offsets) {
    std::vector<std::string> args = {"addr2line", "-C", "-f", "-e", module};
    for (auto offset : offsets) args.push_back(fmt::format("{:#x}", offset));
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return {};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const bool started = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; started && (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
        if (n > 0) text.append(buffer, std::size_t(n));
        else if (errno != EINTR) break;
    }
    ::close(out[0]);
    int status = 0;
    if (started) ::waitpid(pid, &status, 0);
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
        const auto end = text.find('\n', start);
        lines.push_back(text.substr(start, end - start));
        start = end == std::string::npos ? text.size() : end + 1;
    }
    return lines;
}

// A dead job's indexes name call sites by module and offset only (the job symbolises at
// MPI_Finalize); resolve function and file:line here, where the modules usually still are.
void symbolise_indexes(const std::string& dir, int world_size) {
    std::vector<trace::Index> indexes(static_cast<std::size_t>(world_size));
    std::map<std::string, std::map<std::uintptr_t, std::pair<std::string, std::string>>> wanted;
    for (int r = 0; r < world_size; ++r) {
        if (!std::filesystem::exists(trace::index_path(dir, r))) continue;
        auto& index = indexes[std::size_t(r)] = trace::read_index(trace::index_path(dir, r));
        for (const auto& site : index.sites)
            if (site.location.empty() && !site.module_path.empty() && std::filesystem::exists(site.module_path))
                wanted[site.module_path][site.offset];
    }
    for (auto& [module, found] : wanted) {
        std::vector<std::uintptr_t> offsets;
        for (const auto& entry : found) offsets.push_back(entry.first);
        const auto lines = addr2line(module, offsets);
        std::size_t i = 0;
        for (auto& [offset, names] : found) {
            if (2 * i + 1 >= lines.size()) break;
            names = {lines[2 * i], lines[2 * i + 1].substr(0, lines[2 * i + 1].find(" ("))};  // drop "(discriminator N)"
            ++i;
        }
    }
    for (int r = 0; r < world_size; ++r) {
        auto& index = indexes[std::size_t(r)];
        bool changed = false;
        for (auto& site : index.sites) {
            const auto module = wanted.find(site.module_path);
            if (!site.location.empty() || module == wanted.end()) continue;
            const auto& [function, location] = module->second[site.offset];
            // Without debug information addr2line names the nearest preceding symbol even past
            // its end; the job's own name is size-checked ('?' there). Trust addr2line's name
            // only together with a real file:line, i.e. when it read the debug information.
            if (location.empty() || location.rfind("??", 0) == 0) continue;
            site.location = location;
            if (!function.empty() && function != "??") site.function = function;
            changed = true;
        }
        std::string error;
        if (changed && !trace::write_index(dir, index, error)) throw std::runtime_error(error);
    }
}

// meta.txt of `dir`, empty when there is none.
RunMeta meta_of(const std::string& dir) {
    const std::string path = dir + "/meta.txt";
    if (std::ifstream in(path); in) return parse_meta(in, path);
    return {};
}

// A merge completed: MPI_Finalize's (finalized=1, written after calls.csv was in place) or a
// recovery's (recovered=1). MPI_Init writes meta.txt without either, so a calls.csv next to
// spill files and such a meta.txt is an earlier job's or one cut short.
bool merged(const RunMeta& meta) { return meta.get("finalized") == "1" || meta.get("recovered") == "1"; }

}  // namespace

bool needs_recovery(const std::string& dir) { return trace::has_spill_files(dir) && !merged(meta_of(dir)); }

trace::MergeResult recover_directory(const std::string& dir, bool asked,
                                     const trace::MergeProgress::Print& progress) {
    // The job's processes may still be going down when its launcher returns: give them a moment.
    const auto owner = trace::claim_owner(dir);
    for (int waited_ms = 0; owner && trace::owner_runs_here(*owner) && waited_ms < 3000; waited_ms += 50)
        ::usleep(50'000);
    if (owner && trace::owner_runs_here(*owner))
        throw std::runtime_error(fmt::format("{}: the job that traces into it still runs ({}); its trace is "
                                             "complete after its MPI_Finalize", dir, owner->describe()));
    // Another host's job may still be running: only an explicit --recover takes it for dead.
    if (owner && !asked && !owner->on_this_host())
        throw std::runtime_error(fmt::format("{}: a job on another host holds it ({}), running or ended before its "
                                             "merge; papshim-report --recover {} once it has ended",
                                             dir, owner->describe(), dir));
    // Never replace what MPI_Finalize merged: its spill files are gone, and any left are another job's.
    if (!trace::has_spill_files(dir))
        throw std::runtime_error(fmt::format("{}: no spill files (.papshim-rank-N.bin) to recover; its calls.csv, "
                                             "if any, is left as it is", dir));
    const RunMeta meta = meta_of(dir);
    if (meta.get("finalized") == "1")
        throw std::runtime_error(fmt::format("{}: meta.txt says the run reached MPI_Finalize (finalized=1), whose "
                                             "calls.csv is complete; not recovering over it", dir));
    const int world_size = trace::spill_world_size(dir);
    if (world_size <= 0) throw std::runtime_error(fmt::format("{}: no spill files (.papshim-rank-N.bin) to recover", dir));
    trace::MergeOptions options;
    options.recovering = true;
    options.predictor = predictor_settings(meta);  // the offline predictions of the run's own settings
    options.progress = progress;
    symbolise_indexes(dir, world_size);
    const trace::MergeResult result = trace::merge(dir, world_size, options);

    // Keep what MPI_Init wrote (the run's description); replace what the merge knows better.
    const std::string meta_path = dir + "/meta.txt";
    std::string kept;
    if (std::ifstream in(meta_path); in) {
        for (std::string line; std::getline(in, line);) {
            const std::string key = line.substr(0, line.find('='));
            if (key == "records" || key == "finalized" || key == "recovered" || key.rfind("rank.", 0) == 0) continue;
            kept += line + '\n';
        }
    } else {
        kept = fmt::format("world_size={}\n", world_size);
    }
    std::string error;
    if (!trace::replace_file(meta_path, kept + fmt::format("records={}\n", result.records) + trace::recovery_meta(result),
                             error))
        throw std::runtime_error(error);
    trace::release_directory(dir);  // merged now: a next job may trace here
    return result;
}

}  // namespace papshim::report
