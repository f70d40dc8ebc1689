// PAP tracing (profile mode): one fixed-size record per rank per intercepted call. Each
// thread fills chunks of a pre-faulted pool without a lock; a writer thread appends full
// chunks to the per-rank spill file and keeps the rank's index current, so a job that dies
// leaves a readable trace; rank 0 merges the files at MPI_Finalize (trace_format.hpp,
// docs/trace-format.md).
#pragma once

#include <semaphore.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "papshim/trace_format.hpp"

namespace papshim::trace {

// A run of records that one thread fills; the writer thread writes it once it is full.
struct Chunk {
    enum State : std::uint8_t { free, filling, full };
    std::atomic<std::uint8_t> state{free};
    std::atomic<std::uint32_t> count{0};  // records filled; release-stored after each record
    std::uint32_t written = 0;            // records already written by a save (writer side only)
    std::uint64_t order = 0;              // hand-off order, set before `state` becomes full
    Record* records = nullptr;
};

// Per-rank writer: memory bounded by `capacity` records (plus one chunk per thread beyond
// the pool's), spilled to `<dir>/.papshim-rank-<world rank>.bin` by a background thread.
class Writer {
public:
    // Called on the writer thread whenever it rewrites the index: the tick fit as of now,
    // and the site table if it can be had without waiting (false: keep the last one).
    struct IndexSource {
        std::function<Fit()> fit;
        std::function<bool(std::vector<SiteInfo>&)> sites;
    };

    Writer() = default;
    ~Writer();  // without finish(): stops the thread and writes nothing more (a crash, as seen on disk)
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Creates the spill file and the first index, pre-faults the pool and starts the writer
    // thread. False (with `error` set) when the directory is unusable. Once per object.
    bool open(const std::string& dir, int world_rank, std::size_t capacity, Names names, IndexSource source,
              std::string& error);
    bool is_open() const { return accepting_.load(std::memory_order_acquire); }

    // One thread's handle. add() is the hot path: a copy into the thread's chunk and a
    // release store of its count; every `chunk_records()` calls one hand-off (no lock).
    class Producer {
    public:
        explicit Producer(Writer& writer) : writer_(&writer) {}
        ~Producer();  // hands a partly filled chunk to the writer (thread exit)
        Producer(const Producer&) = delete;
        Producer& operator=(const Producer&) = delete;
        void add(const Record& r) { add(r, r.site); }
        void add(const Record& r, std::uint32_t site) {
            if (!chunk_ && !(chunk_ = writer_->next_chunk(nullptr))) return;  // closed: dropped
            const std::uint32_t n = chunk_->count.load(std::memory_order_relaxed);
            chunk_->records[n] = r;
            chunk_->records[n].site = site;
            chunk_->count.store(n + 1, std::memory_order_release);
            if (n + 1 == writer_->chunk_records_) chunk_ = writer_->next_chunk(chunk_);
        }

    private:
        Writer* writer_;
        Chunk* chunk_ = nullptr;
    };

    // Writes everything recorded so far, partly filled chunks included, and the index
    // marked `why`, on the writer thread; waits up to `timeout_ms` for it to confirm.
    // Async-signal-safe (atomics, sem_post, poll). False when not open or not confirmed.
    bool save(Saved why, int timeout_ms);

    // Stops the thread, writes the remaining records and the final index with `sites` and
    // `fit`, closes the file. Later add() calls drop their records.
    bool finish(std::vector<SiteInfo> sites, const Fit& fit, std::string& error);

    std::uint64_t records_written() const { return written_.load(std::memory_order_relaxed); }
    std::size_t chunk_records() const { return chunk_records_; }
    bool failed() const { return failed_.load(std::memory_order_relaxed); }

private:
    // Hands `full` (if any) to the writer and returns a chunk to fill; nullptr once closed.
    Chunk* next_chunk(Chunk* full);
    void hand_off(Chunk* full);
    Chunk* grow();
    void run();
    void write_chunks(bool partial);
    void write_records(const Record* records, std::size_t n);
    void write_index_now(bool refresh_sites);
    void stop_thread();

    std::string dir_;
    int world_rank_ = 0;
    int fd_ = -1;
    Names names_;
    IndexSource source_;
    std::uint32_t chunk_records_ = 1;
    std::size_t wake_after_ = 1;      // full chunks that wake the writer
    std::unique_ptr<Chunk[]> chunks_;
    std::size_t max_chunks_ = 0;
    std::atomic<std::size_t> chunk_count_{0};
    std::vector<std::pair<void*, std::size_t>> mappings_;  // the pool and grown chunks
    std::mutex grow_lock_;                                 // only when more threads than chunks
    std::atomic<std::uint64_t> next_order_{0};
    std::atomic<std::size_t> full_chunks_{0};
    std::atomic<int> waiting_for_free_{0};
    sem_t work_{};   // wakes the writer thread (sem_post is async-signal-safe)
    sem_t freed_{};  // wakes producers waiting for a free chunk
    bool semaphores_ = false;
    std::atomic<bool> accepting_{false};
    std::atomic<bool> running_{false};  // the writer thread serves save()
    std::atomic<bool> stop_{false};
    std::atomic<std::uint8_t> save_reason_{0};
    std::atomic<std::uint64_t> save_requests_{0};
    std::atomic<std::uint64_t> saves_done_{0};
    std::thread thread_;
    // The writer thread's (and, after it stopped, finish()'s) own state.
    std::atomic<std::uint64_t> written_{0};
    std::atomic<bool> failed_{false};
    std::uint64_t next_to_write_ = 0;  // hand-off order of the next chunk to write
    Saved saved_ = Saved::running;
    std::vector<SiteInfo> sites_;
};

}  // namespace papshim::trace

namespace papshim::runtime {

// src/runtime/trace_sink.cpp: called by the MPI_Abort entry before PMPI_Abort. Writes this
// rank's buffered records and its index so papshim-report can recover the trace. No-op
// when not tracing.
void save_trace_before_abort();
// Called by papshim's _exit() before the process ends: Open MPI ends a rank that meets a
// fatal MPI error (MPI_ERRORS_ARE_FATAL) with _exit(), which runs no atexit handler.
void save_trace_before_fast_exit();

}  // namespace papshim::runtime
