// What the runtime's own files share and nothing outside src/runtime/ may use: the pieces
// initialise()/finalise() call in the other files, and the collective helpers they all need.
#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "papshim/runtime.hpp"

namespace papshim::runtime::detail {

// runtime.cpp
// Lowest rank of `comm` for which `bad` holds, or INT_MAX (collective).
int lowest_rank_with(MPI_Comm comm, int rank, bool bad);
void verbose(int level, const std::string& line);
// The verbose lines' word for LinkModel::early_send_bytes: "buffered" (whole chunks), "buffered
// up to N KiB", or "wait".
std::string early_sends_label(const LinkModel& link);
// The world ranks of `ranks` of `comm` (MPI_UNDEFINED for a process outside the world; local).
std::vector<int> world_ranks_of(const State& s, MPI_Comm comm, std::span<const int> ranks);

// trace_sink.cpp
// Registers the names records refer to (algorithms of every collective, builtin ops).
void register_names(const AlgorithmNames& names);
// Opens the trace directory on every rank, or on none (one warning from the lowest failing rank).
void open_trace(State& s);
// Flushes every thread's records, writes this rank's files; rank 0 merges them (collective).
void finish_trace(State& s);

// contexts.cpp
// The attribute key that holds a communicator's context (its delete callback frees it).
void create_context_keyval(State& s);
// Frees the contexts of communicators the application never freed (MPI_Finalize).
void free_remaining_contexts(State& s);
// Ends every context's planning (exchanges in flight completed, background receives
// cancelled), before the helper thread stops at MPI_Finalize (collective).
void retire_planners();
// Fills s.node_of_world (collective over the world; left empty where MPI cannot split it).
void map_world_nodes(State& s);

}  // namespace papshim::runtime::detail
