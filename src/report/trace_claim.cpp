// A job's claim on its trace directory (trace_format.hpp): two jobs that trace into one
// directory would overwrite each other's spill files, and a job started after one that died
// would overwrite the dead job's trace before anyone recovered it.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "papshim/trace_format.hpp"

namespace papshim::trace {
namespace {

std::string lock_path(const std::string& dir) { return dir + "/" + claim_file; }

// Why `dir` could not be created: when a file stands where it or a directory above it should
// be (ENOTDIR; EEXIST for "file/"), that file's name, where the system's "Not a directory" names none.
std::string creation_error(const std::string& dir, const std::error_code& failed) {
    const std::string generic = fmt::format("cannot create directory {}: {}", dir, failed.message());
    if (failed != std::errc::not_a_directory && failed != std::errc::file_exists) return generic;
    std::string bare = dir;  // "out/" names the file out
    while (bare.size() > 1 && bare.back() == '/') bare.pop_back();
    std::error_code ec;
    std::filesystem::path file = bare;
    while (file.has_relative_path() && !std::filesystem::exists(file, ec)) file = file.parent_path();
    if (!std::filesystem::exists(file, ec) || std::filesystem::is_directory(file, ec)) return generic;
    if (file == bare) return fmt::format("trace directory {} is an existing file, not a directory", dir);
    return fmt::format("cannot create trace directory {}: {} is an existing file, not a directory", dir,
                       file.string());
}

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string lock_text(const ClaimOwner& owner) {
    return fmt::format("host={}\npid={}\nstarted={}\n", owner.host, owner.pid, owner.started);
}

// The candidates' names: `wanted` itself, then wanted.1, wanted.2, ... (without the
// trailing slashes a user may have typed, so that "out/" gives "out.1", not "out/.1").
std::string candidate(const std::string& wanted, int suffix) {
    if (suffix == 0) return wanted;
    std::string base = wanted;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    return fmt::format("{}.{}", base, suffix);
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c) != 0; });
}

// "calls.csv, summary.txt and 3 more"
std::string list_names(const std::vector<std::string>& names) {
    constexpr std::size_t shown = 4;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) text += (i ? ", " : "") + names[i];
    if (names.size() > shown) text += fmt::format(" and {} more", names.size() - shown);
    return text;
}

}  // namespace

bool is_papshim_file_name(std::string_view name) {
    if (name.ends_with(".new")) name.remove_suffix(4);  // replace_file's and the merge's temporaries
    for (const char* fixed : {"calls.csv", "trace.json", "summary.txt", "meta.txt", claim_file})
        if (name == fixed) return true;
    if (name.starts_with(".papshim-rank-")) {
        std::string_view rank = name.substr(std::string_view(".papshim-rank-").size());
        if (rank.ends_with(".bin")) rank.remove_suffix(4);
        else if (rank.ends_with(".index")) rank.remove_suffix(6);
        else return false;
        return all_digits(rank);
    }
    return (name.starts_with("pap-") && name.ends_with(".png")) || (name.starts_with("plot-") && name.ends_with(".csv"));
}

bool is_papshim_meta(const std::string& path) {
    std::error_code failed;
    if (!std::filesystem::is_regular_file(path, failed)) return false;
    std::ifstream in(path);
    std::string line;
    for (int read = 0; read < 64 && std::getline(in, line); ++read)  // papshim writes it first
        if (line.starts_with("papshim_version=") && line.size() > std::string_view("papshim_version=").size())
            return true;
    return false;
}

DirectoryContents inspect_directory(const std::string& dir, bool ignore_lock) {
    DirectoryContents contents;
    std::error_code failed;
    for (std::filesystem::directory_iterator it(dir, failed), end; !failed && it != end; it.increment(failed)) {
        const std::string name = it->path().filename().string();
        if (ignore_lock && name == claim_file) continue;
        if (is_papshim_file_name(name)) contents.papshim_names.push_back(name);
    }
    if (failed && std::filesystem::exists(dir)) {  // unlistable: at least the fixed names
        contents.papshim_names.clear();
        for (const char* fixed : {"calls.csv", "trace.json", "summary.txt", "meta.txt"})
            if (std::filesystem::exists(dir + "/" + fixed, failed)) contents.papshim_names.emplace_back(fixed);
    }
    std::sort(contents.papshim_names.begin(), contents.papshim_names.end());
    contents.earlier_trace = is_papshim_meta(dir + "/meta.txt");
    return contents;
}

void remove_earlier_outputs(const std::string& dir) {
    // unlink, not remove: a directory of one of these names is not papshim's.
    for (const char* name : merged_outputs) {
        ::unlink((dir + "/" + name).c_str());
        ::unlink((dir + "/" + name + ".new").c_str());
    }
    for (const char* name : plot_inputs) ::unlink((dir + "/" + name).c_str());
    ::unlink((dir + "/pap-omega.png").c_str());
    std::error_code failed;
    std::vector<std::string> heatmaps;
    for (std::filesystem::directory_iterator it(dir, failed), end; !failed && it != end; it.increment(failed)) {
        const std::string name = it->path().filename().string();
        std::string_view site = name;
        if (!site.starts_with("pap-heatmap-") || !site.ends_with(".png")) continue;
        site.remove_prefix(std::string_view("pap-heatmap-").size());
        site.remove_suffix(4);
        if (all_digits(site)) heatmaps.push_back(it->path().string());
    }
    for (const auto& path : heatmaps) ::unlink(path.c_str());
}

std::string ClaimOwner::describe() const {
    return fmt::format("host {}, pid {}, started {}", host.empty() ? "?" : host, pid, started.empty() ? "?" : started);
}

bool ClaimOwner::on_this_host() const { return host == host_name(); }

ClaimOwner this_process() {
    ClaimOwner owner;
    owner.host = host_name();
    owner.pid = long(::getpid());
    char when[32] = {};
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    if (::gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    owner.started = when;
    return owner;
}

std::optional<ClaimOwner> claim_owner(const std::string& dir) {
    std::ifstream in(lock_path(dir));
    if (!in) return std::nullopt;
    ClaimOwner owner;
    for (std::string line; std::getline(in, line);) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
        if (key == "host") owner.host = value;
        else if (key == "pid") owner.pid = std::strtol(value.c_str(), nullptr, 10);
        else if (key == "started") owner.started = value;
    }
    return owner;
}

// A process of that pid that has not exited (a zombie has) and that was started no later
// than the lock was written: a later one only reuses the number.
bool owner_runs_here(const ClaimOwner& owner) {
    if (owner.pid <= 0 || !owner.on_this_host()) return false;
    std::ifstream stat_file(fmt::format("/proc/{}/stat", owner.pid));
    std::string stat;
    if (!std::getline(stat_file, stat)) return false;
    const auto name_end = stat.rfind(')');  // the command name may hold spaces and ')'
    if (name_end == std::string::npos) return false;
    std::istringstream fields(stat.substr(name_end + 1));
    std::string state;
    fields >> state;
    if (state == "Z" || state == "X") return false;
    std::string field;
    for (int skipped = 0; skipped < 18 && fields >> field;) ++skipped;  // fields 4..21
    unsigned long long start_ticks = 0;
    std::tm when{};
    if (!(fields >> start_ticks) || !::strptime(owner.started.c_str(), "%Y-%m-%dT%H:%M:%SZ", &when)) return true;
    long long boot = -1;
    std::ifstream proc_stat("/proc/stat");
    for (std::string line; std::getline(proc_stat, line);)
        if (line.rfind("btime ", 0) == 0) boot = std::atoll(line.c_str() + 6);
    if (boot < 0) return true;
    const long long started = boot + (long long)(start_ticks / (unsigned long long)::sysconf(_SC_CLK_TCK));
    return started <= (long long)::timegm(&when) + 2;  // the lock is written during MPI_Init
}

Claim claim_directory(const std::string& wanted, const ClaimOwner& owner) {
    Claim claim;
    const std::string text = lock_text(owner);
    for (int suffix = 0; suffix <= max_claim_suffix; ++suffix) {
        const std::string dir = candidate(wanted, suffix);
        std::error_code failed;
        std::filesystem::create_directories(dir, failed);
        if (failed) {
            claim.error = creation_error(dir, failed);
            return claim;
        }
        const int fd = ::open(lock_path(dir).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST) {
            const auto holder = claim_owner(dir);
            claim.skipped.push_back(fmt::format("{} ({})", dir, holder ? holder->describe() : "its lock unreadable"));
            continue;
        }
        if (fd < 0) {
            claim.error = fmt::format("cannot write {}: {}", lock_path(dir), std::strerror(errno));
            return claim;
        }
        const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
        const int saved_errno = errno;
        ::close(fd);
        if (!written) {
            ::unlink(lock_path(dir).c_str());
            claim.error = fmt::format("cannot write {}: {}", lock_path(dir), std::strerror(saved_errno));
            return claim;
        }
        // Files of papshim's names that are not a papshim trace are someone else's: left as
        // they are, and the job goes on to the next candidate.
        const DirectoryContents contents = inspect_directory(dir, true);
        if (contents.foreign()) {
            ::unlink(lock_path(dir).c_str());
            claim.foreign.push_back(fmt::format("{} holds {}", dir, list_names(contents.papshim_names)));
            continue;
        }
        claim.replaces_trace = contents.earlier_trace;
        claim.dir = dir;
        return claim;
    }
    claim.error = fmt::format("{} and {} more directories after it hold other jobs' traces, or files of papshim's "
                              "names that are not a papshim trace", wanted, max_claim_suffix);
    return claim;
}

void release_directory(const std::string& dir) { ::unlink(lock_path(dir).c_str()); }

}  // namespace papshim::trace
