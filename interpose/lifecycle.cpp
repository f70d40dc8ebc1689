// MPI_Init*, MPI_Finalize: set the runtime up after the MPI library, tear it down before;
// MPI_Abort: save the trace first.
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "builtin_ops.hpp"
#include "entry_points.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/runtime.hpp"

namespace {

// The thread level the application asked for, when papshim raised the real one.
int application_level = -1;
bool runtime_started = false;  // MPI_Init or MPI_Init_thread succeeded
// Sessions open: MPI_Finalize then leaves MPI_COMM_SELF's attributes to the last session's end
// (MPICH), too late for the trace's merge over MPI_COMM_WORLD.
int open_sessions = 0;

// Whether this job's configuration can use the helper thread (DESIGN §5), read before MPI
// exists; the full, collective check of every variable comes after MPI_Init. Only then is
// MPI_Init upgraded to MPI_THREAD_MULTIPLE, which can make every MPI call dearer.
bool wants_helper_thread() {
    const char* mode = std::getenv("PAPSHIM_MODE");
    if (mode && std::string_view(mode) != "dispatch") return false;
    const char* thread = std::getenv("PAPSHIM_HELPER_THREAD");
    if (thread && std::string_view(thread) == "0") return false;
    if (thread && std::string_view(thread) == "always") return true;
    using papshim::Collective;
    constexpr std::pair<const char*, Collective> kVariables[] = {{"PAPSHIM_ALLGATHER", Collective::allgather},
                                                                 {"PAPSHIM_ALLGATHERV", Collective::allgatherv},
                                                                 {"PAPSHIM_REDUCE", Collective::reduce},
                                                                 {"PAPSHIM_ALLREDUCE", Collective::allreduce}};
    for (const auto& [variable, collective] : kVariables) {
        const char* choice = std::getenv(variable);
        // Only BDR and BSLB need it, for their background receives. The other planned
        // algorithms and `auto` exchange predictions that complete at their next call; `auto`
        // runs BDR only where the helper already runs (the program asked for
        // MPI_THREAD_MULTIPLE, or HELPER_THREAD=always).
        if (choice && papshim::needs_helper_thread(collective, choice)) return true;
    }
    return false;
}

// The other MPI's library in this process: a libpapshim.so built for Open MPI preloaded into
// an MPICH program (or the reverse) would call one MPI with the other's handles and crash or
// fail without saying why. papshim-run refuses such a launch; this catches the others
// (a bare LD_PRELOAD, srun, a wrapper script).
#ifdef PAPSHIM_OPEN_MPI
constexpr const char *kThisMpi = "Open MPI", *kOtherMpi = "MPICH", *kOtherBuild = "mpich";
constexpr std::string_view kOtherLibraries[] = {"libmpich.so", "libmpi.so.12"};
#else
constexpr const char *kThisMpi = "MPICH", *kOtherMpi = "Open MPI", *kOtherBuild = "openmpi";
constexpr std::string_view kOtherLibraries[] = {"libmpi.so.40", "libopen-pal.so"};
#endif

// Whether the launcher numbered this process and not as 0: where papshim says something once
// for the whole job before MPI can tell ranks apart (no variable: say it here).
bool launched_as_other_than_rank0() {
    for (const char* variable : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"})
        if (const char* rank = std::getenv(variable); rank && std::string_view(rank) != "0") return true;
    return false;
}

const char* other_mpi_library() {
    const char* found = nullptr;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* result) {
            const std::string_view path = info->dlpi_name ? info->dlpi_name : "";
            const std::string_view name = path.substr(path.rfind('/') + 1);
            for (std::string_view other : kOtherLibraries)
                if (name.starts_with(other)) {
                    *static_cast<const char**>(result) = info->dlpi_name;
                    return 1;
                }
            return 0;
        },
        &found);
    return found;
}

void refuse_other_mpi() {
    const char* library = other_mpi_library();
    if (!library) return;
    if (launched_as_other_than_rank0()) std::exit(2);  // one line for the job
    std::fprintf(stderr,
                 "papshim: this libpapshim.so is built for %s, but the program runs on %s (%s is loaded); "
                 "preload the libpapshim.so of a build for that MPI (-DPAPSHIM_MPI=%s)\n",
                 kThisMpi, kOtherMpi, library, kOtherBuild);
    std::exit(2);
}

// MPI_Init and MPI_Init_thread: the application gets the level it asked for (or less, if
// MPI gives less), even when papshim asked MPI for more.
int initialise(int* argc, char*** argv, int required, int* provided) {
    refuse_other_mpi();
    int actual = MPI_THREAD_SINGLE;
    int rc = MPI_SUCCESS;
    if (wants_helper_thread() && required < MPI_THREAD_MULTIPLE) {
        rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &actual);
        if (rc == MPI_SUCCESS) {
            application_level = std::min(required, actual);
            if (provided) *provided = application_level;
        }
    } else if (provided) {
        rc = PMPI_Init_thread(argc, argv, required, provided);
        actual = *provided;
    } else {
        rc = PMPI_Init(argc, argv);
        PMPI_Query_thread(&actual);
    }
    if (rc == MPI_SUCCESS) {
        papshim::interpose::probe_builtin_ops();  // even in off and profile: papshim_set_mode may switch
        papshim::runtime::initialise(papshim::algorithm_names(), actual == MPI_THREAD_MULTIPLE);
        runtime_started = true;
    }
    return rc;
}

}  // namespace

PAPSHIM_EXPORT int MPI_Init(int* argc, char*** argv) { return initialise(argc, argv, MPI_THREAD_SINGLE, nullptr); }

PAPSHIM_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    return initialise(argc, argv, required, provided);
}

PAPSHIM_EXPORT int MPI_Query_thread(int* provided) {
    if (application_level < 0 || !provided) return PMPI_Query_thread(provided);
    *provided = application_level;
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT int MPI_Finalize(void) {
    papshim::runtime::finalise(open_sessions == 0);
    papshim::interpose::begin_finalize_progress();
    const int rc = PMPI_Finalize();
    papshim::interpose::end_finalize_progress();
    papshim::runtime::after_mpi_finalize();
    return rc;
}

#if MPI_VERSION >= 4
// papshim starts in MPI_Init/MPI_Init_thread. A program that uses sessions only is left
// alone; if PAPSHIM_* asks for something, say once (world rank 0, by the launcher's
// variable) at exit that nothing was done.
PAPSHIM_EXPORT int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
    static const bool registered = [] {
        bool configured = false;
        for (char** variable = environ; *variable; ++variable)
            configured = configured || std::string_view(*variable).starts_with("PAPSHIM_");
        if (!configured || launched_as_other_than_rank0()) return false;
        return std::atexit([] {
            if (runtime_started) return;
            std::fputs("papshim: this program used MPI sessions without MPI_Init; papshim starts in MPI_Init and "
                       "MPI_Init_thread, so its collectives ran unchanged and untraced\n", stderr);
        }) == 0;
    }();
    (void)registered;
    const int rc = PMPI_Session_init(info, errhandler, session);
    if (rc == MPI_SUCCESS) ++open_sessions;
    return rc;
}

PAPSHIM_EXPORT int MPI_Session_finalize(MPI_Session* session) {
    papshim::interpose::begin_finalize_progress();
    const int rc = PMPI_Session_finalize(session);
    papshim::interpose::end_finalize_progress();
    if (rc == MPI_SUCCESS && open_sessions > 0) --open_sessions;
    return rc;
}
#endif

// A communicator's free deletes its attributes, and a user's delete callback may still call
// collectives on it: the runtime keeps its context for them until the free returns.
PAPSHIM_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
    const bool tracked = comm && papshim::runtime::begin_free(*comm);
    const int rc = PMPI_Comm_free(comm);
    if (tracked) papshim::runtime::end_free();
    return rc;
}

PAPSHIM_EXPORT int MPI_Comm_disconnect(MPI_Comm* comm) {
    const bool tracked = comm && papshim::runtime::begin_free(*comm);
    const int rc = PMPI_Comm_disconnect(comm);
    if (tracked) papshim::runtime::end_free();
    return rc;
}

// The job ends here without MPI_Finalize: write this rank's buffered trace records first,
// so papshim-report can recover the trace (docs/trace-format.md).
PAPSHIM_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
    papshim::runtime::save_trace_before_abort();
    return PMPI_Abort(comm, errorcode);
}

// _exit() and _Exit() skip atexit handlers, and Open MPI ends a rank that meets a fatal MPI
// error (MPI_ERRORS_ARE_FATAL) with _exit(): save its records first, as profiling tools do
// by wrapping _exit. A forked child, a process that is not tracing, or one whose save
// already ran returns from the save at once. Then the process ends as glibc's _exit does.
// The _exit after papshim's in the lookup order (a sanitizer's interceptor, else glibc's),
// resolved when the library loads: not inside _exit, which a fatal error may reach with
// the loader's locks taken.
using ExitFunction = void (*)(int);
const ExitFunction next_exit = [] { return reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, "_exit")); }();

extern "C" PAPSHIM_EXPORT void _exit(int status) noexcept {
    papshim::runtime::save_trace_before_fast_exit();
    if (next_exit && next_exit != &_exit) next_exit(status);
    for (;;) ::syscall(SYS_exit_group, status);
}
extern "C" PAPSHIM_EXPORT void _Exit(int status) noexcept { _exit(status); }
