/* papshim public control API (C). Resolvable with dlsym(RTLD_DEFAULT, ...) when the
 * library is preloaded, so a program can use it without linking papshim. */
#ifndef PAPSHIM_CONTROL_H
#define PAPSHIM_CONTROL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Select the algorithm for one collective ("allgather", "allgatherv", "reduce",
 * "allreduce") on `comm`: "native", "auto" or an algorithm name. Collective over `comm`:
 * every rank must call it with the same arguments (checked; a mismatch or an unknown name
 * returns MPI_ERR_ARG on every rank and changes nothing). An inter-communicator, whose calls
 * always go to MPI, returns MPI_ERR_COMM at once. A communicator on which MPI could not make
 * papshim's own communicators (MPICH's 2048 per process) runs natively for good: any name but
 * "native" returns MPI_ERR_OTHER there. Returns MPI_SUCCESS otherwise. */
int papshim_set_algorithm(MPI_Comm comm, const char* collective, const char* name);

/* Writes the algorithm currently selected for `collective` on `comm` into name[0..len). */
int papshim_get_algorithm(MPI_Comm comm, const char* collective, char* name, int len);

/* Writes the algorithm that ran the last call of `collective` on `comm` in this process
 * ("native" also when papshim forwarded the call, e.g. for arguments it leaves to MPI; ""
 * before the first call papshim saw, and on a communicator without a papshim_set_algorithm
 * choice whose collective is configured `native`: those calls are forwarded without any
 * bookkeeping). A query, not a collective. */
int papshim_get_last_algorithm(MPI_Comm comm, const char* collective, char* name, int len);

/* What papshim's arrival prediction did on `comm` so far (this rank's view; the counts that
 * come from exchanged data are the same on every rank). A query, not a collective. New
 * fields are appended as papshim grows (board_exchanges and exchange came with 0.1.0's
 * shared-memory exchange): compile against the header of the library you run. */
typedef struct papshim_plan_stats {
    long calls;          /* calls papshim saw on the communicator */
    long exchanges;      /* prediction exchanges completed */
    long planned;        /* calls that ran a plan made for them (hit) */
    long unplanned;      /* calls with a plan-using algorithm but no plan they could use (miss):
                          * none yet, the call differed from the predicted one, or the guard
                          * did not trust the recent predictions (they ran the balanced form) */
    long assessed;       /* plans whose predictions were checked against the real arrivals */
    long good;           /* ... of which the prediction error was within the guard's bound */
    long last_right;     /* ... of which the predicted last arriver was the real one */
    int trusted;         /* the guard allows PAP-aware plans now: the last 4 plans' predictions
                          * were within half of max(predicted spread, actual spread, tau)
                          * of the real arrivals */
    int armed;           /* a recent exchange showed a spread of 6 tau or more: `auto`'s sampled
                          * Reduce/Allreduce calls then exchange on every call unless `resting`
                          * (its Allgather/Allgatherv calls exchange on every call where it may
                          * run BDR and never elsewhere, armed or not) */
    long board_exchanges; /* ... of the exchanges, those read from the node's shared memory
                           * (one-node communicators: no message) */
    int exchange;        /* when the communicator exchanges predictions, from the algorithms
                          * selected on it: 0 never, 1 on sampled calls of `auto`'s
                          * collectives, 2 on every call (an algorithm that plans from
                          * predicted arrivals is selected for some collective) */
    int helper_thread;   /* papshim's helper thread runs in this process: bdr and bslb plan
                          * only with it (without it they run their balanced form) */
    long mispredicted;   /* followed calls for which every rank agreed on a plan, made for
                          * another call (the predicted signature: collective, size, root, op
                          * or Allgatherv layout, differed from the real one) */
    long declined;       /* calls with a trusted plan that `auto` left to MPI: a planner in
                          * rounds whose predicted arrivals come between one and N of its
                          * rounds apart, where its plan loses (docs/algorithms/clairvoyant.md
                          * §7); Clairvoyant's Reduce, which `auto` planned until 2026-12-03
                          * (it plans the predicted chain since): 0 under `auto` now */
    int resting;         /* `auto`'s per-call exchange rests: its Reduce/Allreduce could have run a
                          * plan on the last 8 calls in a row and did not (the guard distrusted
                          * the predictions, or the plan was declined), so only each sampled call
                          * and the call after it exchange. It ends when a plan runs, when a
                          * plan's prediction proves good while the guard distrusted them, or
                          * when no recent exchange shows imbalance */
} papshim_plan_stats;
int papshim_get_plan_stats(MPI_Comm comm, papshim_plan_stats* stats);

/* Switch the process-wide mode: "off", "profile" or "dispatch". Every rank must switch at
 * the same point of the program (between collectives). Returns MPI_ERR_ARG for an unknown
 * mode. Used by papshim-bench to compare modes inside one run. */
int papshim_set_mode(const char* mode);

/* Writes the directory this job's trace goes to into dir[0..len), "" when this process
 * does not trace. It can differ from PAPSHIM_TRACE_DIR: where another job's trace holds that
 * directory, the job traces into DIR.1, DIR.2, ... Between MPI_Init and MPI_Finalize.
 * Returns MPI_ERR_TRUNCATE (and writes "") when the name needs more than len bytes. */
int papshim_get_trace_dir(char* dir, int len);

/* Seconds on the job-global clock, the one trace times use: a monotonic local clock plus
 * this rank's offset to world rank 0, estimated at MPI_Init (0 = rank 0's MPI_Init).
 * Lets a benchmark compare arrival and exit times across ranks. */
double papshim_wtime(void);

/* How papshim's own algorithms wait for messages in this process, as PAPSHIM_WAIT chose at
 * MPI_Init: "mpi" (the MPI library's wait) or "yield" (test, and give the core away between
 * tests). "mpi" before MPI_Init, and under auto when MPI_Init ran in mode off. */
const char* papshim_wait_policy(void);

/* The library version, e.g. "0.1.0". */
const char* papshim_version(void);

#ifdef __cplusplus
}
#endif

#endif
