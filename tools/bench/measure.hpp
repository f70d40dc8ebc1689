// How papshim-bench runs and times one collective, shared by the allgather and sweep suites
// (after the mini-benchmarks of [AG] and [CLV], spec/allgather-bdr-bslb-and-clairvoyant.md
// §5): each algorithm on its own communicator, its result checked against the native call,
// then iterations that run every algorithm once in an order shuffled per iteration
// (run_order), each call started after a double barrier and a per-rank delay and timed on
// the job-global clock.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace papshim::bench {

struct Algorithm {
    std::string name;
    bool native = false;  // PMPI_* directly instead of MPI_* through papshim
    MPI_Comm comm = MPI_COMM_NULL;        // the measured calls
    MPI_Comm check_comm = MPI_COMM_NULL;  // the correctness check: same selection, own history
};

// The algorithms under test, each selected on its own duplicates of MPI_COMM_WORLD, so the
// shim's per-communicator state (history, plans, auto's sampling) is the algorithm's alone:
// one for the measured calls, one for the undelayed correctness check, which would otherwise
// be the measured communicator's first call and, for `auto`, its first sampled exchange. A
// name papshim does not accept for the collective is a UsageError.
class AlgorithmSet {
public:
    AlgorithmSet(const std::vector<std::string>& names, Collective collective);
    ~AlgorithmSet();
    AlgorithmSet(const AlgorithmSet&) = delete;
    AlgorithmSet& operator=(const AlgorithmSet&) = delete;

    std::size_t size() const { return algorithms_.size(); }
    const Algorithm& operator[](std::size_t index) const { return algorithms_[index]; }
    // Ratios are taken against this one: native if listed, otherwise the first.
    std::size_t baseline() const { return baseline_; }
    const std::string& baseline_name() const { return algorithms_[baseline_].name; }

private:
    void free_all();

    std::vector<Algorithm> algorithms_;
    std::size_t baseline_ = 0;
};

// Throws UsageError where `bytes` cannot be one call of `collective` on `ranks` ranks (the
// reductions' MPI_INT vectors, Allgather(v)'s int counts): run before measuring anything.
void check_call_size(Collective collective, std::size_t bytes, int ranks);

// Buffers and one call of a collective. `bytes` is per rank for Allgather(v) (Allgatherv:
// the distribution `blocks` of block_distributions.hpp around it; the default, decreasing,
// has the last rank's block empty and Allgather's total) and the whole
// vector for Reduce and Allreduce (MPI_INT summed, so every algorithm's result must equal
// native's byte for byte). `salt` varies the content between sizes.
class CollectiveCall {
public:
    CollectiveCall(Collective collective, std::size_t bytes, int root, std::string_view blocks,
                   const World& world, std::size_t salt, ReductionOp op = ReductionOp::sum);

    // One call site for every call of a collective: papshim keys its arrival history by the
    // return address, and the check, the warm-up and the measured calls must share it as an
    // application's loop does. Hence never inlined, and no tail call (the fence in run()).
    // `native`: PMPI_* directly (papshim never sees the call); else MPI_* through papshim.
    [[gnu::noinline]] int run(MPI_Comm comm, bool native);
    // Compares every algorithm's result with the PMPI call's (Reduce: at the root; with
    // kRotatingRoot at every root in turn); a difference or an error aborts the job with
    // status 3 (abort_unless_everywhere).
    void check(const AlgorithmSet& algorithms);
    Collective collective() const { return collective_; }
    // Allgather(v): bytes of each rank's block; empty for Reduce and Allreduce.
    const std::vector<int>& counts() const { return counts_; }

private:
    bool result_is_checked() const;
    void check_root(const AlgorithmSet& algorithms);  // check() for one root
    // This call's root: kRotatingRoot gives the comm's call count mod p, or check_root_.
    int root_for(MPI_Comm comm);

    Collective collective_;
    std::size_t bytes_;
    int root_;
    MPI_Op op_;                          // Reduce, Allreduce: MPI_SUM or ordered_sum()
    int last_root_ = 0;                  // the root of the last call run
    int check_root_ = -1;                // check(): the root every call uses (-1: none)
    std::map<MPI_Comm, int> rotations_;  // kRotatingRoot: calls run so far, per communicator
    World world_;
    std::vector<int> counts_, displs_;
    std::vector<unsigned char> send_, recv_;
};

// Per-call results of one algorithm over the measured iterations (rank 0).
struct Cell {
    std::vector<double> elapsed;            // e = mean_i (f_i - a_i)
    std::vector<double> run_time;           // r = max f - min a
    std::vector<double> imbalance;          // w = max a - min a, what the pattern produced
    std::vector<double> unavoidable_wait;   // LB = mean_i (max a - a_i): e of a perfect algorithm
    std::vector<double> rank_mean_elapsed;  // per rank: mean over calls of f_i - a_i (OSU)
    // Per call: the most any rank entered later than the pattern asked (after the barriers
    // and its delay). A rank that oversleeps on a loaded machine moves the arrivals away from
    // the pattern, which a plan made from the pattern cannot absorb.
    std::vector<double> late_start;
    // What papshim's arrival prediction did over the measured calls (papshim_get_plan_stats,
    // differences across them): calls that ran a plan made for them, calls without one, calls
    // whose trusted plan `auto` left to MPI (papshim_plan_stats::declined), and of the plans
    // checked, those within the guard's bound and those whose predicted last arriver was the
    // real one; and the exchanges of predictions completed (each at the next followed call's entry).
    long planned = 0, unplanned = 0, declined = 0, assessed = 0, good = 0, last_right = 0, exchanges = 0;
    // What papshim ran on each measured call, counted by name (papshim_get_last_algorithm on
    // rank 0; every rank runs the same): `auto`'s choices, which its times alone do not show.
    // Empty for native, which papshim never sees.
    std::map<std::string, long> ran;
    bool uses_plans() const { return planned + unplanned > 0; }
    // Whether something other than the algorithm named ran some of the calls.
    bool ran_other_than(std::string_view name) const { return !ran.empty() && !(ran.size() == 1 && ran.begin()->first == name); }
};

// What both suites report of a cell: name, means, medians and the raw per-call series, and
// e and r as ratios of means to the baseline's cell of the same run.
Json cell_json(const std::string& name, const Cell& cell, const Cell& baseline);

struct Timing {
    int warmup = 0;      // untimed calls per algorithm first
    int iterations = 0;  // measured
    // Seconds this rank waits before its call in measured iteration `iteration`: the same
    // for every algorithm of that iteration, so the comparison is paired.
    std::function<double(int iteration)> delay;
    std::function<void(int iteration)> after_iteration;  // progress; may be empty
    // The same for warm-up call `iteration` (0 ≤ iteration < warmup). Empty: warm-up calls
    // follow a barrier with no delay. The sweep sets it, so that a persistent pattern is
    // already there when the predictor learns, as it is in the application it stands for.
    std::function<double(int iteration)> warmup_delay;
};

// The warm-up calls, then the measured iterations, each running every algorithm once in an
// order shuffled per iteration (run_order). Returns one Cell per algorithm on rank 0, none
// elsewhere.
std::vector<Cell> measure(CollectiveCall& call, const AlgorithmSet& algorithms,
                          const Timing& timing, const World& world);

}  // namespace papshim::bench
